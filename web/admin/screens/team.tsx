import { useState } from 'preact/hooks';
import { api, ApiError, etagOf } from '../api.ts';
import { FEATURES } from '../features.ts';
import type { Invite, User } from '../types.ts';
import { ErrorNotice, Field, Notice, PageTitle, Select } from '../ui.tsx';

interface Membership {
  _id: string;
  __v: number;
  name: string;
  user: string;
  administrators: string[];
  editors: string[];
  invites?: Invite[];
}

const person = (id: string, me: User) => (id === me._id ? `${me.username} (you)` : `User …${id.slice(-6)}`);

/** Administrators, editors and invitations of a project or a group. */
export function Team({ kind, record, user, onChange }: { kind: 'projects' | 'groups'; record: Membership; user: User; onChange: (r: Membership) => void }) {
  const [error, setError] = useState<unknown>();
  const [news, setNews] = useState('');
  const [email, setEmail] = useState('');
  const [level, setLevel] = useState('editor');
  const manager = user.role === 'admin' || record.user === user._id || record.administrators.includes(user._id);
  const base = `/${kind}/${record._id}`;

  const removeMember = async (list: 'administrators' | 'editors', id: string) => {
    setError(undefined);
    try {
      const next = await api.patch<Membership>(base, { [list]: record[list].filter((x) => x !== id) }, { ifMatch: etagOf(record) });
      setNews(`${person(id, user)} removed.`);
      onChange(next);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 412 ? new Error('The team changed meanwhile; reload and try again.') : err);
    }
  };
  const invite = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      await api.post(`${base}/invites`, { email, level });
      setNews(`Invitation sent to ${email}.`);
      setEmail('');
      onChange(await api.get<Membership>(base));
    } catch (err) {
      setError(err);
    }
  };
  const revoke = async (inv: Invite) => {
    setError(undefined);
    try {
      await api.del(`${base}/invites/${inv._id}`);
      setNews(`Invitation to ${inv.email} revoked.`);
      onChange(await api.get<Membership>(base));
    } catch (err) {
      setError(err);
    }
  };

  const members = (list: 'administrators' | 'editors', title: string) => (
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
                  onClick={() => removeMember(list, id)}
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

  return (
    <section>
      <PageTitle>Team of {record.name}</PageTitle>
      <ErrorNotice error={error} />
      <Notice kind="ok">{news}</Notice>
      <p>Owner: {person(record.user, user)}</p>
      <div class="two">
        {members('administrators', 'Administrators')}
        {members('editors', 'Editors')}
      </div>
      <p class="muted small">Administrators may change integrations and the team, delete floors and units, and read leads; editors change content.</p>
      {FEATURES.mail && (
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
                ]}
                onValue={setLevel}
              />
              <button type="submit" class="align-end">
                Send invitation
              </button>
            </form>
          )}
        </>
      )}
    </section>
  );
}
