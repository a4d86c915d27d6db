import type { components } from '../../api-schema.d.ts';
import { useState } from 'preact/hooks';
import { all, api, ApiError, etagOf } from '../api.ts';
import type { Lead, Project, Unit } from '../types.ts';
import { ErrorNotice, Loading, Notice, PageTitle, useLoad, when } from '../ui.tsx';

/** One row of the allocations table: `password` '' keeps the one set, text replaces it, null clears it. */
interface Row {
  key: number;
  name: string;
  password: string | null;
  units: string[];
  /** The name it was saved under, to tell whether its password is set. */
  saved?: string;
}
type Worksheet = components['schemas']['Worksheet'];
type Entry = Lead & { rank?: number; offeredAt?: string | null };

let rowKey = 0;
const secretName = (name: string) => `allocations[${name}].password`;

/** `"A-101, 64f0…"` → unit ids, each token read as an id or a name. */
function unitsOf(list: string | undefined, units: Unit[]): string[] {
  const tokens = (list ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return units.filter((u) => tokens.includes(u._id) || tokens.includes(u.name)).map((u) => u._id);
}

const unitName = (units: Unit[], id: string | undefined) => units.find((u) => u._id === id)?.name ?? `Unit …${(id ?? '').slice(-6)}`;
const problem = (err: unknown) =>
  err instanceof ApiError && err.status === 409 ? new Error(`That could not be done now: ${err.message.replace(/\.?$/, '.')}`) : err;

/** Launch day: the realtors' allocations, their worksheets, and each unit's waiting list. */
export function Launch({ project, onProject }: { project: Project; onProject: (p: Project) => void }) {
  const units = useLoad(() => all('/units', { query: { project: project._id } }), [project._id]);
  if (units.loading && !units.data) return <Loading what="Loading the units" />;
  if (units.error) return <ErrorNotice error={units.error} />;
  if (!units.data) return <Loading what="Loading the units" />;
  const list = units.data;
  return (
    <section class="launch">
      <PageTitle>Launch</PageTitle>
      <Allocations project={project} units={list} onProject={onProject} />
      <Worksheets project={project} units={list} onUnits={units.reload} />
      <Waitlists project={project} units={list} />
    </section>
  );
}

/** A project's allocations as rows to edit (passwords are never read back). */
const rowsOf = (p: Project, units: Unit[]): Row[] =>
  (p.allocations ?? []).map((a) => ({
    key: ++rowKey,
    name: a.name ?? '',
    password: '',
    units: unitsOf(a.allocation, units),
    saved: a.name,
  }));

function Allocations({ project, units, onProject }: { project: Project; units: Unit[]; onProject: (p: Project) => void }) {
  const fromProject = (p: Project) => rowsOf(p, units);
  const [rows, setRows] = useState<Row[]>(() => fromProject(project));
  const [error, setError] = useState<unknown>();
  const [news, setNews] = useState('');
  const set = (key: number, patch: Partial<Row>) => setRows((rs) => rs.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const configured = (r: Row) => r.saved !== undefined && project.configuredSecrets.includes(secretName(r.saved));

  const save = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    setNews('');
    const allocations = rows.map((r) => ({
      name: r.name.trim(),
      allocation: r.units.join(', '),
      // Left empty: the password it has is kept (a renamed row sends it again, or it would be lost).
      ...(r.password === null ? { password: null } : r.password ? { password: r.password } : {}),
    }));
    try {
      const next = await api.patch(`/projects/${project._id}`, { body: { allocations }, ifMatch: etagOf(project) });
      onProject(next);
      setRows(fromProject(next));
      setNews('Allocations saved.');
    } catch (err) {
      setError(err instanceof ApiError && err.status === 412 ? new Error('The project changed meanwhile; reload and try again.') : err);
    }
  };

  return (
    <form class="card" onSubmit={save} aria-label="Allocations">
      <h2>Allocations</h2>
      <p class="muted small">
        Each realtor or brokerage opens their units with their password; those units read as unavailable to everyone else until sold, reserved or taken off the
        list. Passwords are never shown again: leave one empty to keep it.
      </p>
      <ErrorNotice error={error} />
      <Notice kind="ok">{news}</Notice>
      {rows.length ? (
        <div class="table-wrap">
          <table class="grid allocations">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Password</th>
                <th scope="col">Units</th>
                <th scope="col">
                  <span class="sr-only">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                <AllocationRow
                  key={r.key}
                  row={r}
                  label={r.name || `Allocation ${i + 1}`}
                  units={units}
                  configured={configured(r)}
                  set={(patch) => set(r.key, patch)}
                  remove={() => setRows((rs) => rs.filter((x) => x.key !== r.key))}
                />
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p class="muted">No allocations yet.</p>
      )}
      <div class="row wrap">
        <button type="button" class="secondary" onClick={() => setRows((rs) => [...rs, { key: ++rowKey, name: '', password: '', units: [] }])}>
          Add an allocation
        </button>
        <button type="submit">Save allocations</button>
      </div>
    </form>
  );
}

interface AllocationRowProps {
  row: Row;
  label: string;
  units: Unit[];
  /** Whether its saved password is set. */
  configured: boolean;
  set: (patch: Partial<Row>) => void;
  remove: () => void;
}

function AllocationRow({ row: r, label, units, configured, set, remove }: AllocationRowProps) {
  return (
    <tr>
      <td>
        <input aria-label={`Name of ${label}`} required maxLength={200} value={r.name} onInput={(e) => set({ name: (e.target as HTMLInputElement).value })} />
      </td>
      <td>
        <input
          type="password"
          autoComplete="new-password"
          aria-label={`Password of ${label}`}
          placeholder={r.password === null ? 'cleared on save' : configured ? 'set (type to replace)' : 'not set'}
          value={r.password ?? ''}
          onInput={(e) => set({ password: (e.target as HTMLInputElement).value })}
        />
        {configured && r.password === '' && (
          <small class="muted">
            set{' '}
            <button type="button" class="secondary small" aria-label={`Clear the password of ${label}`} onClick={() => set({ password: null })}>
              Clear
            </button>
          </small>
        )}
      </td>
      <td>
        <fieldset class="unit-picks">
          <legend class="sr-only">Units of {label}</legend>
          {units.map((u) => (
            <label key={u._id} class="unit-pick">
              <input
                type="checkbox"
                checked={r.units.includes(u._id)}
                onChange={(e) => set({ units: (e.target as HTMLInputElement).checked ? [...r.units, u._id] : r.units.filter((x) => x !== u._id) })}
              />{' '}
              {u.name}
            </label>
          ))}
        </fieldset>
      </td>
      <td>
        <button type="button" class="secondary small" aria-label={`Remove ${label}`} onClick={remove}>
          Remove
        </button>
      </td>
    </tr>
  );
}

function Worksheets({ project, units, onUnits }: { project: Project; units: Unit[]; onUnits: () => void }) {
  const sheets = useLoad(() => all(`/projects/${project._id}/worksheets`), [project._id]);
  const [picked, setPicked] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [news, setNews] = useState('');
  const decide = async (w: Worksheet, body: { status: 'accepted'; unit: string } | { status: 'declined' }) => {
    setError(undefined);
    setNews('');
    const who = `${w.buyer.firstName} ${w.buyer.lastName}`;
    try {
      await api.patch(`/worksheets/${w._id}`, { body });
      setNews(body.status === 'accepted' ? `${unitName(units, body.unit)} reserved for ${who}.` : `${who}'s worksheet declined.`);
      void sheets.reload();
      if (body.status === 'accepted') onUnits();
    } catch (err) {
      setError(problem(err));
    }
  };
  const list = sheets.data ?? [];
  return (
    <div class="card">
      <h2>Worksheets</h2>
      <ErrorNotice error={error ?? sheets.error} />
      <Notice kind="ok">{news}</Notice>
      {sheets.loading && !sheets.data ? (
        <Loading what="Loading the worksheets" />
      ) : list.length ? (
        <div class="table-wrap">
          <table class="grid worksheets">
            <thead>
              <tr>
                <th scope="col">Buyer</th>
                <th scope="col">Realtor</th>
                <th scope="col">Choices</th>
                <th scope="col">Received</th>
                <th scope="col">Decision</th>
              </tr>
            </thead>
            <tbody>
              {list.map((w) => (
                <WorksheetRow
                  key={w._id}
                  sheet={w}
                  units={units}
                  unit={picked[w._id] ?? w.choices[0]}
                  pick={(unit) => setPicked({ ...picked, [w._id]: unit })}
                  decide={decide}
                />
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p class="muted">No worksheets yet.</p>
      )}
    </div>
  );
}

interface WorksheetRowProps {
  sheet: Worksheet;
  units: Unit[];
  /** The unit chosen to accept it with (the first choice until another is picked). */
  unit: string;
  pick: (unit: string) => void;
  decide: (w: Worksheet, body: { status: 'accepted'; unit: string } | { status: 'declined' }) => Promise<void>;
}

function WorksheetRow({ sheet: w, units, unit, pick, decide }: WorksheetRowProps) {
  const who = `${w.buyer.firstName} ${w.buyer.lastName}`;
  return (
    <tr>
      <td>
        {who}
        <br />
        <small class="muted">
          {w.buyer.email} · {w.buyer.phone}
        </small>
        {w.notes && (
          <>
            <br />
            <small>{w.notes}</small>
          </>
        )}
      </td>
      <td>{w.allocation}</td>
      <td>{w.choices.map((c, i) => `${i + 1}. ${unitName(units, c)}`).join(' ')}</td>
      <td>{when(w.createdAt)}</td>
      <td>
        {w.status === 'submitted' ? (
          <div class="row wrap">
            <select aria-label={`Unit for ${who}`} value={unit} onChange={(e) => pick((e.target as HTMLSelectElement).value)}>
              {w.choices.map((c) => (
                <option key={c} value={c}>
                  {unitName(units, c)}
                </option>
              ))}
            </select>
            <button type="button" class="small" aria-label={`Accept ${who}'s worksheet`} onClick={() => decide(w, { status: 'accepted', unit })}>
              Accept
            </button>
            <button type="button" class="secondary small" aria-label={`Decline ${who}'s worksheet`} onClick={() => decide(w, { status: 'declined' })}>
              Decline
            </button>
          </div>
        ) : w.status === 'accepted' ? (
          `Accepted: ${unitName(units, w.unit)}`
        ) : (
          'Declined'
        )}
      </td>
    </tr>
  );
}

function Waitlists({ project, units }: { project: Project; units: Unit[] }) {
  const [unit, setUnit] = useState(units[0]?._id ?? '');
  const entries = useLoad(() => (unit ? api.get(`/units/${unit}/waitlist`) : Promise.resolve([])), [unit]);
  const [error, setError] = useState<unknown>();
  const [news, setNews] = useState('');
  const movable = project.specialRankEnabled === true;
  const move = async (e: Entry, rank: number) => {
    if (rank < 1) return;
    setError(undefined);
    setNews('');
    try {
      await api.patch(`/leads/${e._id}`, { body: { rank } });
      // Said once the list shows the new order.
      await entries.reload();
      setNews(`${e.firstName} ${e.lastName} is now number ${rank}.`);
    } catch (err) {
      setError(problem(err));
    }
  };
  const list = entries.data ?? [];
  const [dragged, setDragged] = useState<string>();
  /** Dropped on `target`: the dragged entry takes its place (drag and drop besides the buttons). */
  const drop = (target: Entry, i: number) => {
    const from = list.find((x) => x._id === dragged);
    setDragged(undefined);
    if (from && from._id !== target._id) void move(from, target.rank ?? i + 1);
  };
  return (
    <div class="card">
      <h2>Waiting lists</h2>
      <div class="field">
        <label for="waitlist-unit">Unit</label>
        <select id="waitlist-unit" value={unit} onChange={(e) => setUnit((e.target as HTMLSelectElement).value)}>
          {units.map((u) => (
            <option key={u._id} value={u._id}>
              {u.name} ({u.availability.replace('_', ' ')})
            </option>
          ))}
        </select>
      </div>
      {!movable && (
        <p class="muted small">
          Waiting lists are first come, first served. To reorder them, turn on{' '}
          <a href={`/admin/projects/${project._id}/settings#set-waitlist`}>“The team may reorder waiting lists” in Settings, under Waitlist</a>.
        </p>
      )}
      <ErrorNotice error={error ?? entries.error} />
      <Notice kind="ok">{news}</Notice>
      {entries.loading && !entries.data ? (
        <Loading what="Loading the waiting list" />
      ) : list.length ? (
        <ol class="waitlist" aria-label={`Waiting list of ${unitName(units, unit)}`}>
          {list.map((e, i) => (
            <WaitlistEntry
              key={e._id}
              entry={e}
              place={i}
              last={i === list.length - 1}
              movable={movable}
              dragging={dragged === e._id}
              onDragStart={() => setDragged(e._id)}
              onDrop={() => drop(e, i)}
              move={move}
            />
          ))}
        </ol>
      ) : (
        <p class="muted">Nobody is waiting for this unit.</p>
      )}
    </div>
  );
}

interface WaitlistEntryProps {
  entry: Entry;
  /** Its place in the list, from 0. */
  place: number;
  last: boolean;
  movable: boolean;
  dragging: boolean;
  onDragStart: () => void;
  onDrop: () => void;
  move: (e: Entry, rank: number) => Promise<void>;
}

function WaitlistEntry({ entry: e, place: i, last, movable, dragging, onDragStart, onDrop, move }: WaitlistEntryProps) {
  const who = `${e.firstName} ${e.lastName}`.trim() || e.email;
  const rank = e.rank ?? i + 1;
  return (
    <li
      class={`row wrap${dragging ? ' dragging' : ''}`}
      draggable={movable}
      onDragStart={(ev) => {
        ev.dataTransfer?.setData('text/plain', e._id);
        onDragStart();
      }}
      onDragOver={(ev) => movable && ev.preventDefault()}
      onDrop={(ev) => {
        ev.preventDefault();
        onDrop();
      }}
    >
      <span class="place" aria-hidden="true">
        {i + 1}.
      </span>
      <span class="grow">
        {who} <small class="muted">{e.email}</small>
        {e.offeredAt && <small class="badge">offered {when(e.offeredAt)}</small>}
      </span>
      {movable && (
        <span class="row">
          <button type="button" class="secondary small" aria-label={`Move ${who} up`} disabled={i === 0} onClick={() => move(e, rank - 1)}>
            ↑
          </button>
          <button type="button" class="secondary small" aria-label={`Move ${who} down`} disabled={last} onClick={() => move(e, rank + 1)}>
            ↓
          </button>
        </span>
      )}
    </li>
  );
}
