import { useEffect, useMemo, useState } from 'preact/hooks';
import { all, api, download, fetchFile, type Query } from '../api.ts';
import type { Lead, Project, TeamMember, Unit, User } from '../types.ts';
import { ErrorNotice, Field, Loading, Notice, PageTitle, Select, useLoad } from '../ui.tsx';
import { cap, fullName, LEAD_STATUSES, LeadRow } from './lead-row.tsx';

export { LEAD_STATUSES, localTime } from './lead-row.tsx';
const SOURCES = ['presentation', 'hold', 'waitlist'];
type LeadStatus = (typeof LEAD_STATUSES)[number];
type Filters = { q: string; project: string; unit: string; source: string; status: LeadStatus | ''; createdFrom: string; createdTo: string };
const NONE: Filters = { q: '', project: '', unit: '', source: '', status: '', createdFrom: '', createdTo: '' };
type SortKey = 'createdAt' | 'name' | 'project' | 'unit' | 'source' | 'status';
type Sort = { key: SortKey; down: boolean };

/** The zone of this browser: an export's times are written on its wall clock (GET /leads `tz`). */
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** One person of one project (their e-mail, any case): what "one row per person" groups by. */
const personKey = (l: Lead) => `${l.project} ${l.email.toLowerCase()}`;

/** Leads grouped by person, in the order of each person's first lead in `rows`; each group newest first. */
function byPerson(rows: Lead[]): { lead: Lead; history: Lead[] }[] {
  const groups = new Map<string, Lead[]>();
  for (const l of rows) {
    const key = personKey(l);
    const group = groups.get(key);
    if (group) group.push(l);
    else groups.set(key, [l]);
  }
  return [...groups.values()].map((g) => {
    const [lead, ...history] = g.slice().sort((a, b) => b.createdAt.localeCompare(a.createdAt)) as [Lead, ...Lead[]];
    return { lead, history };
  });
}

/** The query of `GET /leads` with the inbox's filters: every project the caller may read leads of, unless one is chosen. */
const leadsQuery = (f: Filters, format?: 'csv' | 'xlsx'): Query<'/leads', 'get'> => ({
  project: f.project || undefined,
  format,
  tz: format ? browserZone() : undefined,
  'filters[q]': f.q.trim(),
  'filters[unit]': f.unit,
  'filters[source]': f.source,
  'filters[status]': f.status || undefined,
  'filters[createdFrom]': f.createdFrom,
  'filters[createdTo]': f.createdTo,
});

/** What a person reads in the typed-as-you-go search box, sent a moment after the last key (not once per key). */
function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

function LeadFilters({ f, set, projects, units }: { f: Filters; set: (f: Filters) => void; projects: Project[]; units: Unit[] }) {
  const on =
    <K extends keyof Filters>(k: K) =>
    (v: Filters[K]) =>
      set({ ...f, [k]: v, ...(k === 'project' ? { unit: '' } : {}) });
  return (
    <fieldset class="filters">
      <legend>Find leads</legend>
      <Field label="Search name, e-mail or phone" type="search" value={f.q} onValue={on('q')} />
      <Select
        label="Project"
        value={f.project}
        options={[['', 'All projects'], ...projects.map((p) => [p._id, p.name] as [string, string])]}
        onValue={on('project')}
      />
      {f.project && (
        <Select label="Unit" value={f.unit} options={[['', 'Any unit'], ...units.map((u) => [u._id, u.name] as [string, string])]} onValue={on('unit')} />
      )}
      <Select label="Source" value={f.source} options={[['', 'Any source'], ...SOURCES.map((s) => [s, cap(s)] as [string, string])]} onValue={on('source')} />
      <Select
        label="Status"
        value={f.status}
        options={[['', 'Any status'], ...LEAD_STATUSES.map((s): [LeadStatus, string] => [s, cap(s)])]}
        onValue={on('status')}
      />
      <Field label="From" type="date" value={f.createdFrom} onValue={on('createdFrom')} />
      <Field label="To" type="date" value={f.createdTo} onValue={on('createdTo')} />
    </fieldset>
  );
}

export function LeadsInbox(_: { path: string }) {
  const [f, setF] = useState(NONE);
  const [sort, setSort] = useState<Sort>({ key: 'createdAt', down: true });
  const [error, setError] = useState<unknown>();
  const [news, setNews] = useState('');
  const [grouped, setGrouped] = useState(true);
  const q = useDebounced(f.q, 250);
  const sent = { ...f, q };
  const projects = useLoad(() => all('/projects'), []);
  const me = useLoad(() => api.get('/users/me'), []);
  const leads = useLoad(() => all('/leads', { query: leadsQuery(sent) }), [JSON.stringify(sent)]);
  // Unit names for the leads that name a unit (and the unit filter's menu): the units of those projects.
  const withUnits = [...new Set([f.project, ...(leads.data ?? []).filter((l) => l.unit).map((l) => l.project)].filter((x): x is string => !!x))].sort();
  const units = useLoad(() => Promise.all(withUnits.map((p) => all('/units', { query: { project: p } }))).then((l) => l.flat()), [withUnits.join()]);
  const names = useMemo(() => new Map((projects.data ?? []).map((p) => [p._id, p.name])), [projects.data]);
  const unitNames = useMemo(() => new Map((units.data ?? []).map((u) => [u._id, u.name])), [units.data]);
  const projectUnits = useMemo(() => (units.data ?? []).filter((u) => u.project === f.project), [units.data, f.project]);
  const rows = useMemo(() => sortLeads(leads.data ?? [], sort, names, unitNames), [leads.data, sort, names, unitNames]);
  const shown = useMemo(() => (grouped ? byPerson(rows) : rows.map((lead) => ({ lead, history: [] }))), [rows, grouped]);
  // The teams of the projects whose leads are listed, by name: the assignee menus and labels.
  const teamIds = [...new Set((leads.data ?? []).map((l) => l.project))].sort();
  const teams = useLoad(
    () => Promise.all(teamIds.map(async (id) => [id, await api.get(`/projects/${id}/team`)] as const)).then((l) => new Map<string, TeamMember[]>(l)),
    [teamIds.join()],
  );
  if (projects.loading && !projects.data) return <Loading what="Collecting leads" />;
  const exportAs = async (format: 'csv' | 'xlsx') => {
    setError(undefined);
    try {
      download(`leads.${format}`, await fetchFile('/leads', { query: leadsQuery(sent, format) }));
    } catch (err) {
      setError(err);
    }
  };
  const saved = (l: Lead) => {
    leads.set((leads.data ?? []).map((x) => (x._id === l._id ? l : x)));
    setNews(`${fullName(l) || 'Lead'} saved.`);
  };
  return (
    <section>
      <PageTitle>Leads</PageTitle>
      <LeadFilters f={f} set={setF} projects={projects.data ?? []} units={projectUnits} />
      <div class="row wrap">
        <p class="muted grow" role="status">
          <span>{leads.loading && !leads.data ? 'Searching…' : `${rows.length} lead${rows.length === 1 ? '' : 's'}`}</span>
          {grouped && rows.length > shown.length && <span> from {shown.length} people</span>}
        </p>
        <label class="check">
          <input type="checkbox" checked={grouped} onChange={(e) => setGrouped(e.currentTarget.checked)} /> One row per person
        </label>
        <button type="button" class="secondary" onClick={() => leads.reload()}>
          Refresh
        </button>
        <button type="button" class="secondary" onClick={() => exportAs('csv')} disabled={!rows.length}>
          Export CSV
        </button>
        <button type="button" class="secondary" onClick={() => exportAs('xlsx')} disabled={!rows.length}>
          Export Excel
        </button>
      </div>
      <ErrorNotice error={error || leads.error} />
      <Notice kind="ok">{news}</Notice>
      <LeadsTable
        rows={shown}
        teams={teams.data}
        sort={sort}
        onSort={setSort}
        names={names}
        unitNames={unitNames}
        me={me.data}
        onSaved={saved}
        onError={setError}
      />
    </section>
  );
}

function sortLeads(list: Lead[], sort: Sort, names: Map<string, string>, unitNames: Map<string, string>): Lead[] {
  const key = (l: Lead): string =>
    sort.key === 'name'
      ? `${l.lastName} ${l.firstName}`.toLowerCase()
      : sort.key === 'project'
        ? (names.get(l.project) ?? '')
        : sort.key === 'unit'
          ? (unitNames.get(l.unit ?? '') ?? l.unit ?? '')
          : l[sort.key];
  return list.slice().sort((a, b) => key(a).localeCompare(key(b)) * (sort.down ? -1 : 1));
}

const COLUMNS: [SortKey, string][] = [
  ['name', 'Name'],
  ['createdAt', 'Received'],
  ['project', 'Project'],
  ['unit', 'Unit'],
  ['source', 'Source'],
  ['status', 'Status'],
];

type TableProps = {
  rows: { lead: Lead; history: Lead[] }[];
  teams: Map<string, TeamMember[]> | undefined;
  sort: Sort;
  onSort: (s: Sort) => void;
  names: Map<string, string>;
  unitNames: Map<string, string>;
  me: User | undefined;
  onSaved: (l: Lead) => void;
  onError: (e: unknown) => void;
};

function LeadsTable({ rows, teams, sort, onSort, names, unitNames, me, onSaved, onError }: TableProps) {
  const unitName = (l: Lead) => unitNames.get(l.unit ?? '') ?? (l.unit ? 'a unit' : '');
  return (
    <div class="table-wrap">
      <table class="grid leads-table">
        <caption class="sr-only">Leads, sortable by each column heading</caption>
        <thead>
          <tr>
            {COLUMNS.map(([key, label]) => (
              <th
                scope="col"
                key={key}
                class={key === 'name' ? 'who' : undefined}
                aria-sort={sort.key === key ? (sort.down ? 'descending' : 'ascending') : undefined}
              >
                <button type="button" class="sort" onClick={() => onSort({ key, down: sort.key === key ? !sort.down : key === 'createdAt' })}>
                  {label} {sort.key === key ? (sort.down ? '↓' : '↑') : ''}
                </button>
              </th>
            ))}
            <th scope="col">Assignee</th>
            <th scope="col">Notes</th>
            <th scope="col">Message</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ lead: l, history }) => (
            <LeadRow
              key={`${l._id}-${l.__v}`}
              lead={l}
              history={history}
              team={teams?.get(l.project) ?? []}
              projectName={names.get(l.project) ?? ''}
              unitName={unitName}
              me={me}
              onSaved={onSaved}
              onError={onError}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}
