import { useState } from 'preact/hooks';
import { all, api, ApiError, request, etagOf } from '../api.ts';
import { navigate } from '../router.ts';
import type { Group, User } from '../types.ts';
import { ErrorNotice, Field, Loading, Notice, PageTitle, useLoad } from '../ui.tsx';
import { Team } from './team.tsx';
import { PAGES_ORIGIN } from '../features.ts';
import { InternalLink } from '../internal-link.tsx';

const groupPage = (namespace: string) => `${PAGES_ORIGIN}/g/${encodeURIComponent(namespace)}`;

/** The group's public address (/g/…), own domain and the team's internal link, with a link to its page once it has one. */
function GroupAddress({ group, onSaved }: { group: Group; onSaved: (g: Group) => void }) {
  const [namespace, setNamespace] = useState(group.namespace ?? '');
  const [hostName, setHostName] = useState(group.hostName ?? '');
  const [internalURL, setInternalURL] = useState(group.internalURL ?? '');
  const [error, setError] = useState<unknown>();
  const [news, setNews] = useState('');
  const save = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    const body = {
      ...(namespace !== (group.namespace ?? '') ? { namespace } : {}),
      ...(hostName !== (group.hostName ?? '') ? { hostName } : {}),
      ...(internalURL !== (group.internalURL ?? '') ? { internalURL } : {}),
    };
    try {
      onSaved(await api.patch(`/groups/${group._id}`, { body, ifMatch: etagOf(group) }));
      setNews('Address saved.');
    } catch (err) {
      setError(err instanceof ApiError && err.status === 409 ? new Error('That address or domain is taken by another group; choose another.') : err);
    }
  };
  const invalid = (path: string) => (error instanceof ApiError ? error.field(path) : undefined);
  return (
    <form class="card" onSubmit={save} aria-labelledby="group-address-h">
      <h2 id="group-address-h">Addresses</h2>
      <div class="two">
        <Field
          label="Public address (/g/…)"
          value={namespace}
          onValue={setNamespace}
          pattern="[a-z0-9](-?[a-z0-9])*"
          hint="Lower-case letters, digits and single dashes."
          error={invalid('/namespace')}
        />
        <Field label="Own domain" value={hostName} onValue={setHostName} hint="e.g. homes.example.com, pointed at this service." error={invalid('/hostName')} />
        <Field
          label="Internal link"
          type="url"
          value={internalURL}
          onValue={setInternalURL}
          hint="Your team’s own page about the group: linked beside its name here, never on the group's page."
          error={invalid('/internalURL')}
        />
      </div>
      <div class="row wrap">
        <button
          type="submit"
          disabled={namespace === (group.namespace ?? '') && hostName === (group.hostName ?? '') && internalURL === (group.internalURL ?? '')}
        >
          Save address
        </button>
        {group.namespace && (
          <a href={groupPage(group.namespace)} target="_blank" rel="noopener noreferrer" id="group-page" class="align-self-center">
            Open the group's page: {groupPage(group.namespace)}
          </a>
        )}
      </div>
      <ErrorNotice error={error} />
      <Notice kind="ok">{news}</Notice>
    </form>
  );
}

export function GroupList() {
  const groups = useLoad(() => all('/groups'), []);
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>();
  const create = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      const g = await api.post('/groups', { query: { name } });
      navigate(`/admin/groups/${g._id}`);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section>
      <PageTitle>Groups</PageTitle>
      <p class="muted">A group gathers projects on one page and shares a team.</p>
      <ErrorNotice error={error || groups.error} />
      {groups.loading && !groups.data ? (
        <Loading />
      ) : (
        <ul class="cards">
          {groups.data?.map((g) => (
            <li key={g._id}>
              <a class="card project" href={`/admin/groups/${g._id}`}>
                <strong>{g.name}</strong>
                <span class="muted small">
                  {g.projects.length} project{g.projects.length === 1 ? '' : 's'}
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
      <form class="card row wrap" onSubmit={create} aria-label="New group">
        <div class="grow">
          <Field label="New group name" required value={name} onValue={setName} />
        </div>
        <button type="submit" class="align-end">
          Create group
        </button>
      </form>
    </section>
  );
}

export function GroupScreen({ id, user }: { id: string; user: User }) {
  const group = useLoad(() => request('get', `/groups/${id}`).then((a) => a.data), [id]);
  const projects = useLoad(() => all('/projects'), []);
  const [error, setError] = useState<unknown>();
  const [news, setNews] = useState('');
  if ((group.loading && !group.data) || (projects.loading && !projects.data)) return <Loading />;
  if (group.error) return <ErrorNotice error={group.error} />;
  if (!group.data) return <Loading />;
  const g = group.data;
  const toggle = async (pid: string, on: boolean) => {
    setError(undefined);
    try {
      const next = await api.patch(`/groups/${g._id}`, {
        body: { projects: on ? [...g.projects, pid] : g.projects.filter((x) => x !== pid) },
        ifMatch: etagOf(g),
      });
      group.set(next);
      setNews('Projects saved.');
    } catch (err) {
      setError(err instanceof ApiError && err.status === 412 ? new Error('The group changed meanwhile; reloaded, try again.') : err);
      void group.reload();
    }
  };
  return (
    <section>
      <p class="crumbs">
        <a href="/admin/groups">Groups</a> › {g.name}
        <InternalLink url={g.internalURL} id="internal-link" />
      </p>
      <PageTitle>{g.name}</PageTitle>
      <GroupAddress group={g} onSaved={group.set} />
      <fieldset class="group">
        <legend>Projects in {g.name}</legend>
        <ErrorNotice error={error} />
        <Notice kind="ok">{news}</Notice>
        {(projects.data ?? []).map((p) => (
          <div class="toggle" key={p._id}>
            <input
              type="checkbox"
              id={`gp-${p._id}`}
              checked={g.projects.includes(p._id)}
              onChange={(e) => toggle(p._id, (e.target as HTMLInputElement).checked)}
            />
            <label for={`gp-${p._id}`}>{p.name}</label>
          </div>
        ))}
      </fieldset>
      <Team kind="groups" record={g} user={user} onChange={(r) => group.set(r as Group)} />
    </section>
  );
}
