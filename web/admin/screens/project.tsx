import { useEffect, useMemo, useRef } from 'preact/hooks';
import { api, request, etagOf } from '../api.ts';
import type { Project, User } from '../types.ts';
import { canManage } from '../access.ts';
import { ErrorNotice, Loading, useLoad } from '../ui.tsx';
import { Settings } from './settings.tsx';
import { Floors } from './floors.tsx';
import { PlanEditor } from './plan.tsx';
import { prefetchUnits, Units } from './units.tsx';
import { Team } from './team.tsx';
import { FEATURES, pageUrl } from '../features.ts';
import { Webhooks } from './webhooks.tsx';
import { Insights } from './insights.tsx';
import { isDraft, Publish } from './publish.tsx';
import { Launch } from './launch.tsx';
import { Deposits } from './deposits.tsx';
import { Place } from './place.tsx';
import { searchParam } from '../router.ts';
import { InternalLink } from '../internal-link.tsx';

const TABS: [string, string][] = [
  ['settings', 'Settings'],
  ['floors', 'Floors & plans'],
  ['map', 'Map & pictures'],
  ['units', 'Units'],
  ['team', 'Team'],
  ['insights', 'Insights'],
  ['launch', 'Launch'],
  ['publish', 'Publish'],
  ['deposits', 'Deposits'],
  ...(FEATURES.webhooks ? ([['webhooks', 'Webhooks']] as [string, string][]) : []),
];
/** Tabs only the owner and administrators see (the API answers editors 403 there). */
const MANAGERS_ONLY = new Set(['deposits']);

/** Owner or administrator: may change integrations, the team, delete floors and units, read leads. */

export function ProjectShell({ id, tab, floor, path, user }: { id: string; tab: string; floor?: string; path: string; user: User }) {
  // The units tab's first rows are asked for alongside the project, not after it.
  useMemo(() => {
    if (tab === 'units') void prefetchUnits(id);
  }, [id]);
  const project = useLoad(() => request('get', `/projects/${id}`), [id]);
  // On a phone the sections scroll sideways in one row: the current one is brought into view.
  const tabsRef = useRef<HTMLElement>(null);
  const shown = project.data !== undefined;
  useEffect(() => {
    tabsRef.current?.querySelector('[aria-current="page"]')?.scrollIntoView({ block: 'nearest', inline: 'center' });
  }, [tab, shown]);
  if (project.loading && !project.data) return <Loading what="Loading the project" />;
  if (project.error) return <ErrorNotice error={project.error} />;
  const answer = project.data;
  if (!answer) return <Loading what="Loading the project" />;
  const p = answer.data;
  const reload = () => project.reload();
  const setProject = (next: Project) => project.set({ ...answer, data: next, etag: etagOf(next) });
  let body;
  if (tab === 'settings') body = <Settings project={p} user={user} onSaved={setProject} onReload={reload} />;
  else if (tab === 'floors' && floor) body = <PlanEditor project={p} floorId={floor} />;
  else if (tab === 'floors') body = <Floors project={p} user={user} onProject={setProject} />;
  else if (tab === 'map') body = <Place project={p} onProject={setProject} />;
  else if (tab === 'units') body = <Units project={p} user={user} path={path} />;
  else if (tab === 'team') body = <Team kind="projects" record={p} user={user} onChange={(r) => setProject(r as Project)} />;
  else if (tab === 'insights') body = <Insights project={p} user={user} />;
  else if (tab === 'launch') body = canManage(p, user) ? <Launch project={p} onProject={setProject} /> : <p>Only the owner and administrators run a launch.</p>;
  else if (tab === 'deposits')
    body = canManage(p, user) ? (
      <Deposits project={p} marked={searchParam(path, 'deposit') || undefined} />
    ) : (
      <p>Only the owner and administrators see the deposits.</p>
    );
  else if (tab === 'publish') body = <Publish project={p} onProject={setProject} />;
  else if (tab === 'webhooks' && FEATURES.webhooks) body = <Webhooks project={p} user={user} />;
  else body = <p>Unknown section.</p>;
  return (
    <section>
      <p class="crumbs">
        <a href="/admin">Projects</a> ›{' '}
        {isDraft(p) ? (
          <>
            {p.name}{' '}
            <a class="badge draft" href={`/admin/projects/${id}/publish`}>
              Draft: not public yet
            </a>
          </>
        ) : p.namespace ? (
          <a href={pageUrl(p.namespace)} target="_blank" rel="noopener noreferrer" id="public-page">
            {p.name} (public page)
          </a>
        ) : (
          p.name
        )}
        <InternalLink url={p.internalURL} id="internal-link" />
      </p>
      <nav class="tabs" ref={tabsRef} aria-label={`${p.name} sections`}>
        {TABS.filter(([t]) => !MANAGERS_ONLY.has(t) || canManage(p, user)).map(([t, label]) => (
          <a key={t} href={`/admin/projects/${id}/${t}`} aria-current={t === tab ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      {body}
    </section>
  );
}

export const refetchProject = (id: string) => api.get(`/projects/${id}`);
