import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, whenSignedOut } from './api.ts';
import { interceptLinks, match, navigate, usePath } from './router.ts';
import { Loading } from './ui.tsx';
import { AcceptInvite, ConfirmReset, RequestReset, SignIn } from './screens/auth.tsx';
import { ProjectList } from './screens/projects.tsx';
import { ProjectShell } from './screens/project.tsx';
import { LeadsInbox } from './screens/leads.tsx';
import { Holds } from './screens/holds.tsx';
import { GroupList, GroupScreen } from './screens/groups.tsx';
import { Profile } from './screens/profile.tsx';
import { setExperimental } from './experimental.ts';
import { People } from './screens/people.tsx';
import type { User } from './types.ts';
import { FEATURES } from './features.ts';

/** Screens anyone may open: the mailed links land on them. */
const OPEN = ['/admin/login', ...(FEATURES.mail ? ['/admin/reset', '/admin/reset/:token', '/admin/invites/:token'] : [])];

/** The screen an address shows: the open ones to anyone, the rest once signed in. */
function screenFor(pathname: string, path: string, user: User | null | undefined, signedIn: (u: User, next?: string) => void, onUser: (u: User) => void) {
  let m: Record<string, string> | undefined;
  if (pathname === '/admin/login') return <SignIn onSignedIn={signedIn} />;
  if (FEATURES.mail && pathname === '/admin/reset') return <RequestReset />;
  if (FEATURES.mail && (m = match('/admin/reset/:token', pathname))) return <ConfirmReset token={m.token} />;
  if (FEATURES.mail && (m = match('/admin/invites/:token', pathname))) return <AcceptInvite token={m.token} user={user ?? null} onSignedIn={signedIn} />;
  if (user === undefined || user === null) return <Loading what="Checking your session" />;
  if (pathname === '/admin' || pathname === '/admin/' || pathname === '/admin/projects') return <ProjectList path={path} proposed={user.projectNameURL} />;
  if ((m = match('/admin/projects/:id', pathname))) return <ProjectShell id={m.id} tab="settings" path={path} user={user} />;
  if ((m = match('/admin/projects/:id/:tab', pathname))) return <ProjectShell id={m.id} tab={m.tab} path={path} user={user} />;
  if ((m = match('/admin/projects/:id/floors/:floor', pathname))) return <ProjectShell id={m.id} tab="floors" floor={m.floor} path={path} user={user} />;
  if (pathname === '/admin/leads') return <LeadsInbox path={path} />;
  if (pathname === '/admin/holds') return <Holds />;
  if (pathname === '/admin/groups') return <GroupList />;
  if (pathname === '/admin/profile') return <Profile user={user} onSaved={onUser} />;
  if (pathname === '/admin/people' && user.role === 'admin') return <People me={user._id} />;
  if ((m = match('/admin/groups/:id', pathname))) return <GroupScreen id={m.id} user={user} />;
  return (
    <p>
      Nothing here. <a href="/admin">Back to projects</a>
    </p>
  );
}

function App() {
  const path = usePath();
  const [user, setUser] = useState<User | null | undefined>(undefined);
  const pathname = path.split('?')[0];
  const open = OPEN.some((p) => match(p, pathname));

  useEffect(() => {
    whenSignedOut(() => setUser(null));
    api.get('/users/me').then(setUser, () => setUser(null));
  }, []);
  useEffect(() => {
    if (user === null && !open) navigate(`/admin/login?next=${encodeURIComponent(path)}`, { replace: true });
  }, [user, open, path]);

  const signedIn = (u: User, next?: string) => {
    setUser(u);
    navigate(next && next.startsWith('/admin') && !next.startsWith('/admin/login') ? next : '/admin', { replace: true });
  };

  // Read by the screens that hold an experimental feature (plan outlines), on this render already.
  setExperimental(user?.experimentalFeatures);
  const screen = screenFor(pathname, path, user, signedIn, setUser);

  const signOut = async () => {
    try {
      await api.post('/users/logout');
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) throw err;
    }
    setUser(null);
    navigate('/admin/login', { replace: true });
  };

  const section = pathname.split('/')[2] ?? '';
  const current = (s: string) => (section === s || (s === 'projects' && section === '') ? 'page' : undefined);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="bar">
        <a class="brand" href="/admin">
          Showsuite
        </a>
        {user && !open && (
          <nav aria-label="Sections">
            <a href="/admin" aria-current={current('projects')}>
              Projects
            </a>
            <a href="/admin/leads" aria-current={current('leads')}>
              Leads
            </a>
            <a href="/admin/holds" aria-current={current('holds')}>
              Holds
            </a>
            <a href="/admin/groups" aria-current={current('groups')}>
              Groups
            </a>
            {user.role === 'admin' && (
              <a href="/admin/people" aria-current={current('people')}>
                People
              </a>
            )}
          </nav>
        )}
        {user && !open && (
          <div class="who">
            <span class="muted">{user.username}</span>
            <a href="/admin/profile" aria-current={current('profile')}>
              Profile
            </a>
            <button type="button" class="secondary" onClick={signOut}>
              Sign out
            </button>
          </div>
        )}
      </header>
      <main id="main">{screen}</main>
    </>
  );
}

interceptLinks();
const root = document.getElementById('app');
// The console's HTML always has #app; without it there is nowhere to draw.
if (root) {
  root.textContent = ''; // the "Loading" line the HTML shows until the script runs
  render(<App />, root);
}
