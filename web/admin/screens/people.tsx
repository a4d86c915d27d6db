import { useState } from 'preact/hooks';
import { api, ApiError, etagOf, request } from '../api.ts';
import { ErrorNotice, Field, Loading, Notice, PageTitle, useLoad, when } from '../ui.tsx';
import type { components } from '../../api-schema.d.ts';

type Account = components['schemas']['Account'];

function AccountCard({ a, me, onActive, onReset }: { a: Account; me: string; onActive: (a: Account, active: boolean) => void; onReset: (a: Account) => void }) {
  const name = [a.name, a.lastName].filter(Boolean).join(' ');
  return (
    <li class="card">
      <strong>{name || a.username}</strong> {name && <span class="muted">{a.username}</span>}{' '}
      <span class={a.active ? 'badge live' : 'badge draft'}>{a.active ? 'Active' : 'Deactivated'}</span>
      {a.role !== 'user' && <span class="badge"> {a.role === 'admin' ? 'Service administrator' : 'Integration'}</span>}
      <div class="small muted">{a.active ? `Last signed in ${a.lastSignInAt ? when(a.lastSignInAt) : 'never'}` : `Deactivated ${when(a.deactivatedAt)}`}</div>
      <div class="small">
        {a.projects.length
          ? a.projects.map((p, i) => (
              <span key={p._id}>
                {i > 0 && ', '}
                <a href={`/admin/projects/${p._id}`}>{p.name}</a> ({p.role})
              </span>
            ))
          : 'No project'}
      </div>
      <div class="row wrap">
        {a._id !== me && (
          <button type="button" class="secondary" aria-label={`${a.active ? 'Deactivate' : 'Reactivate'} ${a.username}`} onClick={() => onActive(a, !a.active)}>
            {a.active ? 'Deactivate' : 'Reactivate'}
          </button>
        )}
        {a.active && (
          <button type="button" class="secondary" aria-label={`Mail ${a.username} a reset link`} onClick={() => onReset(a)}>
            Mail a reset link
          </button>
        )}
      </div>
    </li>
  );
}

/** Every account, for the service's administrators: search, who has access to what, deactivate and reactivate, reset links. */
export function People({ me }: { me: string }) {
  const [q, setQ] = useState('');
  const [search, setSearch] = useState('');
  const [error, setError] = useState<unknown>();
  const [news, setNews] = useState('');
  const list = useLoad(async () => {
    const answer = await request('get', '/users', { query: { 'options[limit]': 200, ...(search ? { 'filters[q]': search } : {}) } });
    return { accounts: answer.data, total: answer.total ?? answer.data.length };
  }, [search]);
  const act = async (run: () => Promise<unknown>, done: string) => {
    setError(undefined);
    try {
      await run();
      setNews(done);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 412 ? new Error('That account changed meanwhile; the list is reloaded.') : err);
    }
    await list.reload();
  };
  const onActive = (a: Account, active: boolean) => {
    if (!active && !confirm(`Deactivate ${a.username}? Their sessions and API tokens stop at once.`)) return;
    void act(
      () => api.patch(`/users/${a._id}`, { body: { active }, ifMatch: etagOf(a) }),
      active ? `${a.username} can sign in again.` : `${a.username} is deactivated: signed out everywhere.`,
    );
  };
  const onReset = (a: Account) => void act(() => api.post(`/users/${a._id}/password-reset`), `A reset link was mailed to ${a.username}.`);
  return (
    <section>
      <PageTitle>People</PageTitle>
      <form
        class="row wrap"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setSearch(q.trim());
        }}
      >
        <Field label="Search by e-mail or name" type="search" value={q} onValue={setQ} />
        <button type="submit" class="secondary">
          Search
        </button>
      </form>
      <ErrorNotice error={error || list.error} />
      <Notice kind="ok">{news}</Notice>
      {list.loading && !list.data ? (
        <Loading what="Finding accounts" />
      ) : (
        <>
          <p class="muted">
            {list.data?.total ?? 0} account{list.data?.total === 1 ? '' : 's'}
            {search ? ` matching “${search}”` : ''}.
          </p>
          <ul class="cards">
            {(list.data?.accounts ?? []).map((a) => (
              <AccountCard key={a._id} a={a} me={me} onActive={onActive} onReset={onReset} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
