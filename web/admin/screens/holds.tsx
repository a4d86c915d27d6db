import { useEffect, useState } from 'preact/hooks';
import { all, api, ApiError, etagOf, type RequestBody } from '../api.ts';
import type { Lead, Project, Unit } from '../types.ts';
import { ErrorNotice, Loading, Notice, PageTitle, useLoad } from '../ui.tsx';
import { localTime } from './leads.tsx';

type Held = Unit & { projectName: string; minutes: number; holder?: Lead };
const DEFAULT_MINUTES = 15;

/** Units on hold across the caller's projects, each with its holder: the newest "hold" lead naming that unit. */
async function loadHolds(): Promise<Held[]> {
  const projects = await all('/projects');
  const [per, holders] = await Promise.all([
    Promise.all(projects.map(async (p) => ({ p, units: await all('/units', { query: { project: p._id, availability: 'on_hold' } }) }))),
    // Editors may not read leads: then the holder is simply not named.
    all('/leads', { query: { 'filters[source]': 'hold' } }).catch((err: unknown) => {
      if (err instanceof ApiError && err.status < 500) return [];
      throw err;
    }),
  ]);
  const byUnit = new Map<string, Lead>();
  for (const l of holders) if (l.unit && !byUnit.has(l.unit)) byUnit.set(l.unit, l);
  const minutes = (p: Project) => (Number(p.onHoldMinsDuration) > 0 ? Number(p.onHoldMinsDuration) : DEFAULT_MINUTES);
  return per
    .flatMap(({ p, units }) => units.map((u) => ({ ...u, projectName: p.name, minutes: minutes(p), holder: byUnit.get(u._id) })))
    .sort((a, b) => (a.onHoldExpiresAt ?? '').localeCompare(b.onHoldExpiresAt ?? ''));
}

const left = (iso: string | undefined, now: number) => {
  if (!iso) return '';
  const s = Math.max(0, Math.round((Date.parse(iso) - now) / 1000));
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s left`;
};

function HoldCard({ u, now, onRelease, onExtend }: { u: Held; now: number; onRelease: (u: Held) => void; onExtend: (u: Held) => void }) {
  const h = u.holder;
  return (
    <li class="card hold">
      <strong>{u.name}</strong> <span class="muted">{u.projectName}</span>
      <div class="small">
        Held by {h ? [h.firstName, h.lastName].filter(Boolean).join(' ') || h.email || 'a visitor' : 'your team or a visitor'}
        {h?.email && (
          <>
            {' · '}
            <a href={`mailto:${h.email}`}>{h.email}</a>
          </>
        )}
        {h?.phone && (
          <>
            {' · '}
            <a href={`tel:${h.phone}`}>{h.phone}</a>
          </>
        )}
      </div>
      <div class="small">
        until <time dateTime={u.onHoldExpiresAt}>{localTime(u.onHoldExpiresAt)}</time> · <span aria-hidden="true">{left(u.onHoldExpiresAt, now)}</span>
      </div>
      <div class="row wrap">
        <button type="button" class="secondary" onClick={() => onExtend(u)}>
          Extend {u.name} by {u.minutes} min
        </button>
        <button type="button" class="secondary" onClick={() => onRelease(u)}>
          Release {u.name}
        </button>
      </div>
    </li>
  );
}

/** Units held right now (by visitors or by hand), soonest to lapse first, with who holds them, release and extend. */
export function Holds() {
  const holds = useLoad(loadHolds, []);
  const [now, setNow] = useState(Date.now());
  const [error, setError] = useState<unknown>();
  const [news, setNews] = useState('');
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  if (holds.loading && !holds.data) return <Loading what="Finding holds" />;
  const live = (holds.data ?? []).filter((u) => !u.onHoldExpiresAt || Date.parse(u.onHoldExpiresAt) > now);
  const change = async (u: Held, body: RequestBody<'/units/{id}', 'patch'>, done: string) => {
    setError(undefined);
    try {
      await api.patch(`/units/${u._id}`, { body, ifMatch: etagOf(u) });
      setNews(done);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 412 ? new Error(`${u.name} changed meanwhile; the list is reloaded.`) : err);
    }
    void holds.reload();
  };
  const release = (u: Held) => change(u, { availability: 'available' }, `${u.name} released: it is available again.`);
  const extend = (u: Held) => {
    const until = new Date(Math.max(Date.now(), Date.parse(u.onHoldExpiresAt ?? '') || 0) + u.minutes * 60_000).toISOString();
    return change(u, { onHoldExpiresAt: until }, `${u.name} held until ${localTime(until)}.`);
  };
  return (
    <section>
      <PageTitle>Holds</PageTitle>
      <ErrorNotice error={error || holds.error} />
      <Notice kind="ok">{news}</Notice>
      <div class="row wrap">
        <p class="muted grow">{live.length ? `${live.length} unit${live.length === 1 ? '' : 's'} on hold now.` : 'No unit is on hold right now.'}</p>
        <button type="button" class="secondary" onClick={() => holds.reload()}>
          Refresh
        </button>
      </div>
      <ul class="cards">
        {live.map((u) => (
          <HoldCard key={u._id} u={u} now={now} onRelease={release} onExtend={extend} />
        ))}
      </ul>
    </section>
  );
}
