import type { components } from '../../api-schema.d.ts';
import { useState } from 'preact/hooks';
import { api, ApiError, etagOf, type RequestBody } from '../api.ts';
import { EXPERIMENTAL_FEATURES } from '../experimental.ts';
import { FEATURES } from '../features.ts';
import { Plan } from './plan-billing.tsx';
import type { User } from '../types.ts';
import { ErrorNotice, Field, Loading, Notice, PageTitle, Select, Toggle, useLoad, when } from '../ui.tsx';
import { Payments } from './payments.tsx';

/** An API token as GET /users/me/tokens lists it; the create answer adds `token` (shown only then). */
type ApiToken = components['schemas']['ApiToken'] & { token?: string };

const EXPIRY: [string, string][] = [
  ['30', '30 days'],
  ['90', '90 days'],
  ['365', '1 year'],
  ['', 'Never'],
];
/** What a token may do, as the document names it. */
type Scope = RequestBody<'/users/me/tokens', 'post'>['scope'];
const SCOPES: [Scope, string][] = [
  ['read', 'Read only (GET)'],
  ['write', 'Read and write'],
];

/** The profile fields the user edits here (PATCH /users/me), with their labels and what each does. */
type Editable = 'name' | 'lastName' | 'companyName' | 'phone' | 'address1' | 'address2' | 'city' | 'region' | 'zip' | 'country';
const FIELDS: [Editable, string, string?][] = [
  ['name', 'First name'],
  ['lastName', 'Last name'],
  ['companyName', 'Company', 'Signs the e-mails sent for the projects you own: leads, confirmations, holds, worksheets.'],
  ['phone', 'Phone'],
  ['address1', 'Address'],
  ['address2', 'Address, second line'],
  ['city', 'City'],
  ['region', 'Region or state'],
  ['zip', 'Postal code'],
  ['country', 'Country'],
];

/** The signed-in user's own page: who they are, their profile, invitations waiting for them, and their API tokens. */
export function Profile({ user, onSaved }: { user: User; onSaved: (u: User) => void }) {
  return (
    <section>
      <PageTitle>Profile</PageTitle>
      <dl class="facts card">
        <dt>Signed in as</dt>
        <dd>{user.username}</dd>
        <dt>Role</dt>
        <dd>{user.role}</dd>
        {user.projectNameURL && (
          <>
            <dt>Next project’s address</dt>
            <dd>/p/{user.projectNameURL} (proposed, free today)</dd>
          </>
        )}
      </dl>
      <ProfileForm user={user} onSaved={onSaved} />
      {FEATURES.billing && <Plan />}
      <Payments user={user} onUser={onSaved} />
      <Invitations user={user} />
      <ApiTokens />
    </section>
  );
}

function ProfileForm({ user, onSaved }: { user: User; onSaved: (u: User) => void }) {
  const [draft, setDraft] = useState<Partial<Record<Editable, string>> & { experimentalFeatures?: boolean }>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [news, setNews] = useState('');
  const value = (k: Editable) => draft[k] ?? user[k] ?? '';
  const experimentalOn = draft.experimentalFeatures ?? user.experimentalFeatures === true;
  const changed = Object.keys(draft).length > 0;
  const save = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    setNews('');
    setBusy(true);
    try {
      const saved = await api.patch('/users/me', { body: draft, ifMatch: etagOf(user) });
      setDraft({});
      setNews('Profile saved.');
      onSaved(saved);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const invalid = (k: string) => (error instanceof ApiError ? error.field(`/${k}`) : undefined);
  return (
    <form class="card" onSubmit={save} aria-label="Your profile">
      <h2>Your details</h2>
      <ErrorNotice error={error} />
      <Notice kind="ok">{news}</Notice>
      <div class="grid-fields">
        {FIELDS.map(([k, label, hint]) => (
          <Field
            key={k}
            label={label}
            value={value(k)}
            onValue={(v) => setDraft((d) => ({ ...d, [k]: v }))}
            maxLength={k === 'phone' ? 50 : k === 'zip' ? 30 : 1000}
            autoComplete={AUTOCOMPLETE[k]}
            hint={hint}
            error={invalid(k)}
          />
        ))}
      </div>
      <Toggle
        label="Show experimental features"
        checked={experimentalOn}
        onChange={(v) => setDraft((d) => ({ ...d, experimentalFeatures: v }))}
        hint={`unfinished tools, shown only to you: ${EXPERIMENTAL_FEATURES.join('; ')}`}
      />
      <button type="submit" disabled={busy || !changed}>
        Save profile
      </button>
    </form>
  );
}

const AUTOCOMPLETE: Record<Editable, string> = {
  name: 'given-name',
  lastName: 'family-name',
  companyName: 'organization',
  phone: 'tel',
  address1: 'address-line1',
  address2: 'address-line2',
  city: 'address-level2',
  region: 'address-level1',
  zip: 'postal-code',
  country: 'country-name',
};

/** The invitations to the user's address still pending: where to, as what, until when; the link is in the mail. */
function Invitations({ user }: { user: User }) {
  const invites = user.invites ?? [];
  if (!invites.length) return null;
  return (
    <>
      <h2>Invitations waiting for you</h2>
      <ul class="hooks" aria-label="Invitations waiting for you">
        {invites.map((i) => (
          <li key={i._id} class="card">
            <strong>{i.project?.name ?? i.group?.name}</strong> ({i.project ? 'project' : 'group'}), as {i.level}
            <div class="small muted">Accept it with the link in the e-mail we sent you{i.expiresAt ? `; it works until ${when(i.expiresAt)}` : ''}.</div>
          </li>
        ))}
      </ul>
    </>
  );
}

function ApiTokens() {
  const tokens = useLoad(() => api.get('/users/me/tokens'), []);
  const [name, setName] = useState('');
  const [scope, setScope] = useState<Scope>('read');
  const [days, setDays] = useState('90');
  const [fresh, setFresh] = useState<ApiToken>();
  const [copied, setCopied] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const create = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const made = await api.post('/users/me/tokens', { body: { name: name.trim(), scope, ...(days ? { expiresInDays: Number(days) } : {}) } });
      setFresh(made);
      setCopied(false);
      setName('');
      void tokens.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const copy = async () => {
    if (!fresh?.token) return;
    try {
      await navigator.clipboard.writeText(fresh.token);
      setCopied(true);
    } catch (err) {
      setError(err);
    }
  };
  const revoke = async (t: ApiToken) => {
    if (!confirm(`Revoke the token “${t.name}”? Programs using it stop working at once.`)) return;
    setError(undefined);
    try {
      await api.del(`/users/me/tokens/${t._id}`);
      if (fresh?._id === t._id) setFresh(undefined);
      void tokens.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <h2>API tokens</h2>
      <p class="muted">
        A token lets a program (a dashboard, a website, an automation) call the service as you, sent as <code>Authorization: Bearer &lt;token&gt;</code>. A
        read-only token can only read.
      </p>
      <ErrorNotice error={error || tokens.error} />
      {fresh?.token && <FreshToken name={fresh.name} token={fresh.token} copied={copied} onCopy={copy} onDone={() => setFresh(undefined)} />}
      <form class="card" onSubmit={create} aria-label="New API token">
        <div class="grid-fields">
          <Field label="Token name" required maxLength={100} value={name} onValue={setName} hint="What it is for, e.g. “Sales dashboard”" />
          <Select label="Access" value={scope} options={SCOPES} onValue={setScope} />
          <Select label="Expires after" value={days} options={EXPIRY} onValue={setDays} />
        </div>
        <button type="submit" disabled={busy || !name.trim()}>
          Create token
        </button>
      </form>
      {tokens.loading && !tokens.data ? <Loading /> : null}
      {tokens.data && !tokens.data.length && <Notice>No API tokens yet.</Notice>}
      <ul class="hooks tokens" aria-label="Your API tokens">
        {tokens.data?.map((t) => (
          <TokenItem key={t._id} token={t} onRevoke={revoke} />
        ))}
      </ul>
    </>
  );
}

/** A token just made: shown this once, to copy. */
function FreshToken({
  name,
  token,
  copied,
  onCopy,
  onDone,
}: {
  name: string;
  token: string;
  copied: boolean;
  onCopy: () => Promise<void>;
  onDone: () => void;
}) {
  return (
    <div class="notice ok token-once" role="status">
      <p>
        New token <strong>{name}</strong>: copy it now, it is shown only this once.
      </p>
      <code class="secret">{token}</code>
      <div class="row">
        <button type="button" onClick={onCopy}>
          {copied ? 'Copied' : 'Copy token'}
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

function TokenItem({ token: t, onRevoke }: { token: ApiToken; onRevoke: (t: ApiToken) => Promise<void> }) {
  return (
    <li class="card">
      <div class="row between wrap">
        <div>
          <strong>{t.name}</strong> <span class={`badge ${t.scope}`}>{t.scope === 'write' ? 'read and write' : 'read only'}</span>
          <div class="small muted">
            Created {when(t.createdAt)} ·{' '}
            {t.expiresAt ? `${new Date(t.expiresAt).getTime() < Date.now() ? 'Expired' : 'Expires'} ${when(t.expiresAt)}` : 'Never expires'} ·{' '}
            {t.lastUsedAt ? `Last used ${when(t.lastUsedAt)}` : 'Never used'}
          </div>
        </div>
        <button type="button" class="secondary danger" onClick={() => onRevoke(t)} aria-label={`Revoke ${t.name}`}>
          Revoke
        </button>
      </div>
    </li>
  );
}
