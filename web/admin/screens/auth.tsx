import { useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { navigate, searchParam, usePath } from '../router.ts';
import { FEATURES } from '../features.ts';
import type { User } from '../types.ts';
import { ErrorNotice, Field, Loading, messageOf, Notice, PageTitle, useLoad } from '../ui.tsx';

type SignedIn = (u: User, next?: string) => void;

function signInMessage(err: unknown) {
  if (err instanceof ApiError && err.status === 401) return new Error('That e-mail and password do not match an account.');
  if (err instanceof ApiError && err.status === 429) return new Error('Too many attempts. Wait a few minutes and try again.');
  return err;
}

export function SignIn({ onSignedIn }: { onSignedIn: SignedIn }) {
  const path = usePath();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const user = await api.post('/users/login', { body: { username, password }, noRefresh: true });
      onSignedIn(user, searchParam(path, 'next'));
    } catch (err) {
      setError(signInMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card narrow" onSubmit={submit} aria-describedby="signin-help">
      <PageTitle>Sign in</PageTitle>
      <p id="signin-help" class="muted">
        The console for your presentations, inventory and leads.
      </p>
      <ErrorNotice error={error} />
      <Field label="E-mail" type="email" autoComplete="username" required value={username} onValue={setUsername} />
      <Field label="Password" type="password" autoComplete="current-password" required value={password} onValue={setPassword} />
      <button type="submit" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
      {FEATURES.mail && (
        <p>
          <a href="/admin/reset">Forgot your password?</a>
        </p>
      )}
      {FEATURES.sso && (
        <p>
          <a class="button secondary" href="/auth/oidc/login">
            Sign in with your company account
          </a>
        </p>
      )}
    </form>
  );
}

export function RequestReset() {
  const [username, setUsername] = useState('');
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      await api.post('/users/password-reset', { body: { username }, noRefresh: true });
      setSent(true);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="card narrow" onSubmit={submit}>
      <PageTitle>Reset your password</PageTitle>
      {sent ? (
        <Notice kind="ok">If {username} has an account, a link to choose a new password is on its way. It works once, for one hour.</Notice>
      ) : (
        <>
          <ErrorNotice error={error} />
          <Field label="E-mail" type="email" autoComplete="username" required value={username} onValue={setUsername} />
          <button type="submit">Send me a link</button>
        </>
      )}
      <p>
        <a href="/admin/login">Back to sign in</a>
      </p>
    </form>
  );
}

/** A password being chosen: at least 8 characters, as the service requires. */
function NewPassword({ label, value, onValue }: { label: string; value: string; onValue: (value: string) => void }) {
  return (
    <Field label={label} type="password" autoComplete="new-password" minLength={8} required value={value} onValue={onValue} hint="At least 8 characters." />
  );
}

export function ConfirmReset({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (password !== again) {
      setError(new Error('The two passwords are not the same.'));
      return;
    }
    setError(undefined);
    try {
      await api.post('/users/password-reset/confirm', { body: { token, password }, noRefresh: true });
      setDone(true);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 410 ? new Error('This link has been used or has expired. Ask for a new one.') : err);
    }
  };
  if (done) {
    return (
      <div class="card narrow">
        <PageTitle>Password changed</PageTitle>
        <Notice kind="ok">Your new password is set, and every other session has been signed out.</Notice>
        <p>
          <a href="/admin/login">Sign in</a>
        </p>
      </div>
    );
  }
  return (
    <form class="card narrow" onSubmit={submit}>
      <PageTitle>Choose a new password</PageTitle>
      <ErrorNotice error={error} />
      <NewPassword label="New password" value={password} onValue={setPassword} />
      <Field label="New password again" type="password" autoComplete="new-password" required value={again} onValue={setAgain} />
      <button type="submit">Set password</button>
      <p>
        <a href="/admin/reset">Ask for a new link</a>
      </p>
    </form>
  );
}

export function AcceptInvite({ token, user, onSignedIn }: { token: string; user: User | null; onSignedIn: SignedIn }) {
  const info = useLoad(() => api.get(`/invites/${encodeURIComponent(token)}`, { noRefresh: true }), [token]);
  const [name, setName] = useState('');
  const [lastName, setLastName] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  if (info.loading) return <Loading what="Opening your invitation" />;
  if (info.error) {
    const gone = info.error instanceof ApiError && (info.error.status === 410 || info.error.status === 404);
    return (
      <div class="card narrow">
        <PageTitle>Invitation</PageTitle>
        <Notice kind="error">{gone ? 'This invitation has been used, revoked or has expired. Ask for a new one.' : messageOf(info.error)}</Notice>
        <p>
          <a href="/admin/login">Sign in</a>
        </p>
      </div>
    );
  }
  if (!info.data) return <Loading what="Opening your invitation" />;
  const inv = info.data;
  const target = inv.project ?? inv.group;
  const sameUser = user?.username.toLowerCase() === inv.email.toLowerCase();
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      const body = sameUser ? {} : { password, ...(name ? { name } : {}), ...(lastName ? { lastName } : {}) };
      const u = await api.post(`/invites/${encodeURIComponent(token)}/accept`, { body, noRefresh: true });
      onSignedIn(u, inv.project ? `/admin/projects/${inv.project._id}` : inv.group ? `/admin/groups/${inv.group._id}` : '/admin');
    } catch (err) {
      setError(err instanceof ApiError && err.status === 410 ? new Error('This invitation has been used or has expired.') : err);
    }
  };
  return (
    <form class="card narrow" onSubmit={submit}>
      <PageTitle>Join {target?.name ?? 'the team'}</PageTitle>
      <p>
        You are invited as {inv.level === 'owner' ? 'the owner' : inv.level === 'administrator' ? 'an administrator' : 'an editor'} of{' '}
        <strong>{target?.name}</strong>, as <strong>{inv.email}</strong>.
      </p>
      <ErrorNotice error={error} />
      {sameUser ? (
        <p class="muted">You are signed in as {inv.email}.</p>
      ) : (
        <>
          <Field label="First name" autoComplete="given-name" value={name} onValue={setName} />
          <Field label="Last name" autoComplete="family-name" value={lastName} onValue={setLastName} />
          <NewPassword label="Choose a password" value={password} onValue={setPassword} />
        </>
      )}
      <button type="submit">Accept invitation</button>
    </form>
  );
}

export const goSignIn = () => navigate('/admin/login');
