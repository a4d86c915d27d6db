import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, query, request } from '../api.ts';
import { navigate, searchParam } from '../router.ts';
import { ErrorNotice, Field, Loading, PageTitle, useLoad, when } from '../ui.tsx';
import { pageUrl } from '../features.ts';

const PAGE = 20;

/** `proposed`: the address the service proposes for the user's next project (their projectNameURL). */
export function ProjectList({ path, proposed }: { path: string; proposed?: string | undefined }) {
  const q = searchParam(path, 'q');
  const page = Math.max(1, Number(searchParam(path, 'page')) || 1);
  const [text, setText] = useState(q);
  // Each answer carries the page it is, so the pager names the page whose cards are on screen, also while the next
  // one loads (the cards of the page before stay until it arrives).
  const list = useLoad(
    () =>
      request('get', '/projects', { query: { 'filters[name]': q, 'options[skip]': (page - 1) * PAGE, 'options[limit]': PAGE, 'options[sort]': 'name' } }).then(
        (answer) => ({
          ...answer,
          page,
        }),
      ),
    [q, page],
  );
  // Search as you type, without a history entry per key.
  useEffect(() => {
    if (text === q) return;
    const t = setTimeout(() => navigate(`/admin${query({ q: text })}`, { replace: true }), 250);
    return () => clearTimeout(t);
  }, [text]);

  const total = list.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE));
  const shown = list.data?.page ?? page;
  const pageLink = (p: number) => `/admin${query({ q, page: p > 1 ? p : undefined })}`;
  return (
    <section>
      <PageTitle>Projects</PageTitle>
      <div class="row wrap">
        <div class="grow">
          <Field label="Search by name" type="search" value={text} onValue={setText} />
        </div>
        <CreateProject proposed={proposed} />
      </div>
      <ErrorNotice error={list.error} />
      {list.loading && !list.data ? (
        <Loading />
      ) : (
        <>
          <p class="muted" role="status">
            {total === 0 ? (q ? `No project matches “${q}”.` : 'No projects yet: create the first one.') : `${total} project${total === 1 ? '' : 's'}`}
          </p>
          <ul class="cards" aria-busy={list.loading}>
            {list.data?.data.map((p) => (
              <li key={p._id}>
                <a class="card project" href={`/admin/projects/${p._id}`}>
                  <strong>
                    {p.name} {p.published === false && <span class="badge draft">Draft</span>}
                  </strong>
                  <span class="muted">{p.namespace ? pageUrl(p.namespace) : 'no public address yet'}</span>
                  <span class="muted small">
                    {p.floors.length} floor{p.floors.length === 1 ? '' : 's'} · changed {when(p.updatedAt)}
                  </span>
                </a>
              </li>
            ))}
          </ul>
          {pages > 1 && (
            <nav class="pager" aria-label="Pages">
              {shown > 1 ? <a href={pageLink(shown - 1)}>Previous</a> : <span />}
              <span>
                Page {shown} of {pages}
              </span>
              {shown < pages ? <a href={pageLink(shown + 1)}>Next</a> : <span />}
            </nav>
          )}
        </>
      )}
    </section>
  );
}

const slugify = (s: string) =>
  s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63);

function CreateProject({ proposed }: { proposed: string | undefined }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [namespace, setNamespace] = useState('');
  const [touched, setTouched] = useState(false);
  const [error, setError] = useState<unknown>();
  if (!open) {
    return (
      <button type="button" class="align-end" onClick={() => setOpen(true)}>
        New project
      </button>
    );
  }
  // The name's slug as it is typed; before any name, the address the service proposes (free when it was asked).
  const ns = touched ? namespace : slugify(name) || (proposed ?? '');
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      // A new project is a draft: its page is public only once someone publishes it (the Publish tab).
      const p = await api.post('/projects', { query: { name, namespace: ns || undefined }, body: { published: false } });
      navigate(`/admin/projects/${p._id}`);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 409 ? new Error(`The address /p/${ns} is taken; choose another.`) : err);
    }
  };
  return (
    <form class="card create" onSubmit={submit} aria-label="New project">
      <ErrorNotice error={error} />
      <Field label="Project name" required value={name} onValue={setName} autoFocus />
      <Field
        label="Public address (/p/…)"
        value={ns}
        onValue={(v) => {
          setTouched(true);
          setNamespace(v);
        }}
        pattern="[a-z0-9](-?[a-z0-9])*"
        hint="Lower-case letters, digits and single dashes."
        error={error instanceof ApiError ? error.field('/namespace') : undefined}
      />
      <div class="row">
        <button type="submit">Create project</button>
        <button type="button" class="secondary" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
