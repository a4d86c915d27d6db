import { useMemo, useState } from 'preact/hooks';
import { all, ApiError, download, query } from '../api.ts';
import { toCsv } from '../csv.ts';
import type { Lead, Project, Unit } from '../types.ts';
import { ErrorNotice, Field, Loading, PageTitle, Select, useLoad, when } from '../ui.tsx';

interface Row extends Lead {
  projectName: string;
  unitName: string;
}

/** Leads of every project the caller may read them for (owner, administrators), newest first. */
async function loadInbox(): Promise<{ rows: Row[]; projects: Project[]; skipped: number }> {
  const projects = await all<Project>('/projects');
  let skipped = 0;
  const per = await Promise.all(
    projects.map(async (p) => {
      try {
        const [leads, units] = await Promise.all([all<Lead>(`/leads${query({ project: p._id })}`), all<Unit>(`/units${query({ project: p._id })}`)]);
        const names = new Map(units.map((u) => [u._id, u.name]));
        return leads.map((l) => ({ ...l, project: p._id, projectName: p.name, unitName: l.unit ? (names.get(l.unit) ?? 'a deleted unit') : '' }));
      } catch (err) {
        if (err instanceof ApiError && err.status === 403) {
          skipped++;
          return [];
        }
        throw err;
      }
    }),
  );
  const rows = per.flat().sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  return { rows, projects, skipped };
}

export function LeadsInbox({ path }: { path: string }) {
  void path;
  const inbox = useLoad(loadInbox, []);
  const [f, setF] = useState({ project: '', source: '', unit: '', from: '', to: '' });
  const rows = useMemo(
    () =>
      (inbox.data?.rows ?? []).filter(
        (l) =>
          (!f.project || l.project === f.project) &&
          (!f.source || (l.source ?? '') === f.source) &&
          (!f.unit || l.unitName.toLowerCase().includes(f.unit.toLowerCase())) &&
          (!f.from || l.createdAt >= new Date(`${f.from}T00:00:00`).toISOString()) &&
          (!f.to || l.createdAt < new Date(new Date(`${f.to}T00:00:00`).getTime() + 86_400_000).toISOString()),
      ),
    [inbox.data, f],
  );
  if (inbox.loading && !inbox.data) return <Loading what="Collecting leads" />;
  if (inbox.error) return <ErrorNotice error={inbox.error} />;
  const sources = [...new Set((inbox.data?.rows ?? []).map((l) => l.source ?? ''))].sort();
  const exportCsv = () =>
    download(
      'leads.csv',
      toCsv(
        ['createdAt', 'project', 'firstName', 'lastName', 'email', 'phone', 'unit', 'source', 'message'],
        rows.map((l) => [l.createdAt, l.projectName, l.firstName, l.lastName, l.email, l.phone, l.unitName, l.source, l.message]),
      ),
    );
  return (
    <section>
      <PageTitle>Leads</PageTitle>
      <fieldset class="filters">
        <legend>Filter</legend>
        <Select label="Project" value={f.project} options={[['', 'All projects'], ...(inbox.data?.projects ?? []).map((p) => [p._id, p.name] as [string, string])]} onValue={(v) => setF({ ...f, project: v })} />
        <Select label="Source" value={f.source} options={[['', 'Any source'], ...sources.map((s) => [s, s || '(none)'] as [string, string])]} onValue={(v) => setF({ ...f, source: v })} />
        <Field label="Unit" value={f.unit} onValue={(v) => setF({ ...f, unit: v })} />
        <Field label="From" type="date" value={f.from} onValue={(v) => setF({ ...f, from: v })} />
        <Field label="To" type="date" value={f.to} onValue={(v) => setF({ ...f, to: v })} />
      </fieldset>
      <div class="row wrap">
        <p class="muted grow" role="status">
          {rows.length} lead{rows.length === 1 ? '' : 's'}
          {inbox.data!.skipped ? ` (projects where you are an editor are not included: ${inbox.data!.skipped})` : ''}
        </p>
        <button type="button" class="secondary" onClick={() => inbox.reload()}>
          Refresh
        </button>
        <button type="button" class="secondary" onClick={exportCsv} disabled={!rows.length}>
          Export CSV
        </button>
      </div>
      <ul class="leads">
        {rows.map((l) => (
          <li key={l._id} class="card lead">
            <div class="row wrap between">
              <strong>
                {l.firstName} {l.lastName}
              </strong>
              <span class="muted small">{when(l.createdAt)}</span>
            </div>
            <div class="small">
              {l.projectName}
              {l.unitName ? ` · ${l.unitName}` : ''}
              {l.source ? ` · ${l.source}` : ''}
            </div>
            <div class="small">
              {l.email && <a href={`mailto:${l.email}`}>{l.email}</a>} {l.phone && <a href={`tel:${l.phone}`}>{l.phone}</a>}
            </div>
            {l.message && <p class="message">{l.message}</p>}
          </li>
        ))}
      </ul>
    </section>
  );
}
