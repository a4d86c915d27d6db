import { useState } from 'preact/hooks';
import { api, ApiError, etagOf, type RequestBody } from '../api.ts';
import { FEATURES } from '../features.ts';
import type { Invite, TeamMember, User } from '../types.ts';
import { ErrorNotice, Field, Notice, PageTitle, Select, useLoad } from '../ui.tsx';

interface Membership {
  _id: string;
  __v: number;
  name: string;
  user: string;
  administrators: string[];
  editors: string[];
  invites?: Invite[];
}

/** A member by name, else e-mail (from GET /projects/{id}/team or GET /groups/{id}/team). */
const personOf = (names: Map<string, TeamMember> | undefined) => (id: string, me: User) => {
  const m = names?.get(id);
  const label = m ? (m.name ?? m.email) : id === me._id ? me.username : `User …${id.slice(-6)}`;
  return id === me._id ? `${label} (you)` : label;
};

/** Administrators, editors and invitations of a project or a group. */
export function Team({ kind, record, user, onChange }: { kind: 'projects' | 'groups'; record: Membership; user: User; onChange: (r: Membership) => void }) {
  const [error, setError] = useState<unknown>();
  const [news, setNews] = useState('');
  const manager = user.role === 'admin' || record.user === user._id || record.administrators.includes(user._id);
  const base = `/${kind}/${record._id}` as const;
  const team = useLoad(
    () => (kind === 'projects' ? api.get(`/projects/${record._id}/team`) : api.get(`/groups/${record._id}/team`)),
    [kind, record._id, record.__v],
  );
  const person = personOf(new Map((team.data ?? []).map((m) => [m._id, m])));

  const removeMember = async (list: 'administrators' | 'editors', id: string) => {
    setError(undefined);
    const left = record[list].filter((x) => x !== id);
    try {
      const next = await api.patch(base, { body: list === 'administrators' ? { administrators: left } : { editors: left }, ifMatch: etagOf(record) });
      setNews(`${person(id, user)} removed.`);
      onChange(next);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 412 ? new Error('The team changed meanwhile; reload and try again.') : err);
    }
  };
  return (
    <section>
      <PageTitle>Team of {record.name}</PageTitle>
      <ErrorNotice error={error} />
      <Notice kind="ok">{news}</Notice>
      <p>Owner: {person(record.user, user)}</p>
      <div class="two">
        <Members list="administrators" title="Administrators" record={record} user={user} manager={manager} person={person} onRemove={removeMember} />
        <Members list="editors" title="Editors" record={record} user={user} manager={manager} person={person} onRemove={removeMember} />
      </div>
      <p class="muted small">Administrators may change integrations and the team, delete floors and units, and read leads; editors change content.</p>
      {FEATURES.mail && (
        <Invitations
          base={base}
          record={record}
          manager={manager}
          owner={user.role === 'admin' || record.user === user._id}
          onNews={setNews}
          onError={setError}
          onChange={onChange}
        />
      )}
    </section>
  );
}

interface MembersProps {
  list: 'administrators' | 'editors';
  title: string;
  record: Membership;
  user: User;
  manager: boolean;
  person: (id: string, me: User) => string;
  onRemove: (list: 'administrators' | 'editors', id: string) => Promise<void>;
}

function Members({ list, title, record, user, manager, person, onRemove }: MembersProps) {
  return (
    <div>
      <h2>{title}</h2>
      {record[list].length ? (
        <ul class="people">
          {record[list].map((id) => (
            <li key={id}>
              {person(id, user)}
              {manager && (
                <button
                  type="button"
                  class="secondary small"
                  onClick={() => onRemove(list, id)}
                  aria-label={`Remove ${person(id, user)} from ${title.toLowerCase()}`}
                >
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">None.</p>
      )}
    </div>
  );
}

/** What an invitation makes the colleague, as the document names it (the same for a project and a group). */
type Level = RequestBody<'/projects/{id}/invites', 'post'>['level'];

interface InvitationsProps {
  base: `/${'projects' | 'groups'}/${string}`;
  record: Membership;
  manager: boolean;
  /** May hand the record over (an invitation as owner). */
  owner: boolean;
  onNews: (news: string) => void;
  onError: (err: unknown) => void;
  onChange: (r: Membership) => void;
}

/** Invitations waiting for an answer, and a new one (where the service sends mail). */
function Invitations({ base, record, manager, owner, onNews, onError, onChange }: InvitationsProps) {
  const [email, setEmail] = useState('');
  const [level, setLevel] = useState<Level>('editor');
  const invite = async (e: Event) => {
    e.preventDefault();
    onError(undefined);
    try {
      await api.post(`${base}/invites`, { body: { email, level } });
      onNews(`Invitation sent to ${email}.`);
      setEmail('');
      onChange(await api.get(base));
    } catch (err) {
      onError(err);
    }
  };
  const revoke = async (inv: Invite) => {
    onError(undefined);
    try {
      await api.del(`${base}/invites/${inv._id}`);
      onNews(`Invitation to ${inv.email} revoked.`);
      onChange(await api.get(base));
    } catch (err) {
      onError(err);
    }
  };

  return (
    <>
      <h2>Pending invitations</h2>
      {record.invites?.length ? (
        <ul class="people">
          {record.invites.map((inv) => (
            <li key={inv._id ?? inv.email}>
              {inv.email} as {inv.level}
              {manager && inv._id && (
                <button type="button" class="secondary small" onClick={() => revoke(inv)} aria-label={`Revoke the invitation to ${inv.email}`}>
                  Revoke
                </button>
              )}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">None.</p>
      )}
      {manager && (
        <form class="card row wrap" onSubmit={invite} aria-label="Invite a colleague">
          <div class="grow">
            <Field label="Colleague's e-mail" type="email" required value={email} onValue={setEmail} />
          </div>
          <Select
            label="As"
            value={level}
            options={[
              ['editor', 'Editor'],
              ['administrator', 'Administrator'],
              // The record changes hands only when the recipient accepts; the current owner stays as an administrator.
              ...(owner ? ([['owner', 'New owner (transfer)']] as [Level, string][]) : []),
            ]}
            onValue={setLevel}
          />
          <button type="submit" class="align-end">
            Send invitation
          </button>
        </form>
      )}
    </>
  );
}
