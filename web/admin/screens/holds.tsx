import { useEffect, useState } from 'preact/hooks';
import { all, api, ApiError, query, etagOf } from '../api.ts';
import type { Project, Unit } from '../types.ts';
import { ErrorNotice, Loading, Notice, PageTitle, useLoad, when } from '../ui.tsx';

type Held = Unit & { projectName: string };

async function loadHolds(): Promise<Held[]> {
  const projects = await all<Project>('/projects');
  const per = await Promise.all(
    projects.map(async (p) => (await all<Unit>(`/units${query({ project: p._id, availability: 'on_hold' })}`)).map((u) => ({ ...u, projectName: p.name }))),
  );
  return per.flat().sort((a, b) => (a.onHoldExpiresAt ?? '').localeCompare(b.onHoldExpiresAt ?? ''));
}

const left = (iso: string | undefined, now: number) => {
  if (!iso) return '';
  const s = Math.max(0, Math.round((Date.parse(iso) - now) / 1000));
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s left`;
};

/** Units held right now (by visitors or by hand), soonest to lapse first, with release. */
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
  const release = async (u: Held) => {
    setError(undefined);
    try {
      await api.patch(`/units/${u._id}`, { availability: 'available' }, { ifMatch: etagOf(u) });
      setNews(`${u.name} released: it is available again.`);
      holds.reload();
    } catch (err) {
      setError(err instanceof ApiError && err.status === 412 ? new Error(`${u.name} changed meanwhile; the list is reloaded.`) : err);
      holds.reload();
    }
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
          <li key={u._id} class="card">
            <strong>{u.name}</strong> <span class="muted">{u.projectName}</span>
            <div class="small">
              until {when(u.onHoldExpiresAt)} · <span aria-hidden="true">{left(u.onHoldExpiresAt, now)}</span>
            </div>
            <button type="button" class="secondary" onClick={() => release(u)}>
              Release {u.name}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
