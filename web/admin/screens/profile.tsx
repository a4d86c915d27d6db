import type { components } from '../../api-schema.d.ts';
import { useState } from 'preact/hooks';
import { api, type RequestBody } from '../api.ts';
import type { User } from '../types.ts';
import { ErrorNotice, Field, Loading, Notice, PageTitle, Select, useLoad, when } from '../ui.tsx';

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

/** The signed-in user's own page: who they are, and the API tokens their integrations use. */
export function Profile({ user }: { user: User }) {
  const name = [user.name, user.lastName].filter(Boolean).join(' ');
  return (
    <section>
      <PageTitle>Profile</PageTitle>
      <dl class="facts card">
        <dt>Signed in as</dt>
        <dd>{user.username}</dd>
        {name && (
          <>
            <dt>Name</dt>
            <dd>{name}</dd>
          </>
        )}
        <dt>Role</dt>
        <dd>{user.role}</dd>
      </dl>
      <ApiTokens />
    </section>
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
