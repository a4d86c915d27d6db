import { useEffect, useMemo, useState } from 'preact/hooks';
import { all, api, ApiError, download, etagOf, fetchFile, type Query, type RequestBody } from '../api.ts';
import type { Lead, Project, Unit, User } from '../types.ts';
import { ErrorNotice, Field, Loading, Notice, PageTitle, Select, useLoad } from '../ui.tsx';

export const LEAD_STATUSES = ['new', 'contacted', 'qualified', 'lost'] as const;
const SOURCES = ['presentation', 'hold', 'waitlist'];
type LeadStatus = (typeof LEAD_STATUSES)[number];
type Filters = { q: string; project: string; unit: string; source: string; status: LeadStatus | ''; createdFrom: string; createdTo: string };
const NONE: Filters = { q: '', project: '', unit: '', source: '', status: '', createdFrom: '', createdTo: '' };
type SortKey = 'createdAt' | 'name' | 'project' | 'unit' | 'source' | 'status';
type Sort = { key: SortKey; down: boolean };

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const localTime = (iso: string | undefined) => (iso ? dateTime.format(new Date(iso)) : '—');
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const fullName = (l: Lead) => [l.firstName, l.lastName].filter(Boolean).join(' ');

/** The query of `GET /leads` with the inbox's filters: every project the caller may read leads of, unless one is chosen. */
const leadsQuery = (f: Filters, format?: 'csv' | 'xlsx'): Query<'/leads', 'get'> => ({
  project: f.project || undefined,
  format,
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
          {leads.loading && !leads.data ? 'Searching…' : `${rows.length} lead${rows.length === 1 ? '' : 's'}`}
        </p>
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
        rows={rows}
        sort={sort}
        onSort={setSort}
        projects={projects.data ?? []}
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
  rows: Lead[];
  sort: Sort;
  onSort: (s: Sort) => void;
  projects: Project[];
  names: Map<string, string>;
  unitNames: Map<string, string>;
  me: User | undefined;
  onSaved: (l: Lead) => void;
  onError: (e: unknown) => void;
};

function LeadsTable({ rows, sort, onSort, projects, names, unitNames, me, onSaved, onError }: TableProps) {
  const byId = new Map(projects.map((p) => [p._id, p]));
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
          {rows.map((l) => (
            <LeadRow
              key={`${l._id}-${l.__v}`}
              lead={l}
              project={byId.get(l.project)}
              projectName={names.get(l.project) ?? ''}
              unitName={unitNames.get(l.unit ?? '') ?? (l.unit ? 'a unit' : '')}
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

const teamOf = (p: Project | undefined, me: User | undefined): [string, string][] =>
  p ? [...new Set([p.user, ...p.administrators, ...p.editors])].map((id) => [id, id === me?._id ? `${me.username} (you)` : `User …${id.slice(-6)}`]) : [];

/** Each lead's save under way: the next change of the same lead waits for it and sends the version it answered. */
const saving = new Map<string, Promise<Lead | undefined>>();

/**
 * A change of one lead, after any change of it still on its way: notes saved on leaving the field and an assignee
 * picked at once are two saves, and the second must name the version the first made, not the one the row showed.
 */
function saveInTurn(lead: Lead, body: RequestBody<'/leads/{id}', 'patch'>): Promise<Lead> {
  const before = saving.get(lead._id) ?? Promise.resolve(undefined);
  const save = before.then((latest) => api.patch(`/leads/${lead._id}`, { body, ifMatch: etagOf(latest ?? lead) }));
  const turn = save.then(
    (saved) => saved,
    () => undefined,
  );
  saving.set(lead._id, turn);
  void turn.then(() => saving.get(lead._id) === turn && saving.delete(lead._id));
  return save;
}

type RowProps = {
  lead: Lead;
  project: Project | undefined;
  projectName: string;
  unitName: string;
  me: User | undefined;
  onSaved: (l: Lead) => void;
  onError: (e: unknown) => void;
};

function LeadRow({ lead: l, project, projectName, unitName, me, onSaved, onError }: RowProps) {
  const name = fullName(l) || '(no name)';
  const patch = async (body: RequestBody<'/leads/{id}', 'patch'>) => {
    onError(undefined);
    try {
      onSaved(await saveInTurn(l, body));
    } catch (err) {
      onError(err instanceof ApiError && err.status === 412 ? new Error(`${name} was changed by a colleague meanwhile; refresh to see their version.`) : err);
    }
  };
  const pick = (value: string) => {
    const status = LEAD_STATUSES.find((s) => s === value);
    if (status) void patch({ status });
  };
  return (
    <tr>
      <td class="who">
        <strong>{name}</strong>
        <div class="small">
          {l.email && <a href={`mailto:${l.email}`}>{l.email}</a>} {l.phone && <a href={`tel:${l.phone}`}>{l.phone}</a>}
        </div>
      </td>
      <td>{localTime(l.createdAt)}</td>
      <td>{projectName}</td>
      <td>{unitName}</td>
      <td>{l.source ? cap(l.source) : ''}</td>
      <td>
        <select aria-label={`Status of ${name}`} value={l.status} onChange={(e) => pick(e.currentTarget.value)}>
          {LEAD_STATUSES.map((s) => (
            <option key={s} value={s}>
              {cap(s)}
            </option>
          ))}
        </select>
      </td>
      <td>
        <select
          aria-label={`Assignee of ${name}`}
          value={l.assignee ?? ''}
          onChange={(e) => patch({ assignee: (e.target as HTMLSelectElement).value || null })}
        >
          <option value="">Nobody</option>
          {teamOf(project, me).map(([id, label]) => (
            <option key={id} value={id}>
              {label}
            </option>
          ))}
        </select>
      </td>
      <td>
        <textarea
          aria-label={`Notes on ${name}`}
          rows={2}
          defaultValue={l.notes ?? ''}
          onBlur={(e) => (e.target as HTMLTextAreaElement).value !== (l.notes ?? '') && patch({ notes: (e.target as HTMLTextAreaElement).value || null })}
        />
      </td>
      <td class="msg small">{l.message}</td>
    </tr>
  );
}
