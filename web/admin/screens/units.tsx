import { useMemo, useRef, useState } from 'preact/hooks';
import { all, api, ApiError, request, requestText, etagOf, type Answer, type RequestBody } from '../api.ts';
import { FEATURES } from '../features.ts';
import { AVAILABILITY, availabilityLabel, type Floor, type Project, type Unit, type User } from '../types.ts';
import { ErrorNotice, Field, Loading, Notice, PageTitle, Select, useLoad } from '../ui.tsx';
import { Import } from './import.tsx';
import { History } from './history.tsx';
import { canManage } from '../access.ts';
import { currencyOf } from '../../numbers.ts';
import { statusColour } from '../../status-colours.ts';
import { COLS, UnitGrid, type Col } from './grid.tsx';
import { Bulk, undoBulk, type LastBulk } from './bulk.tsx';
import { PasteImport } from './paste.tsx';
import { TypeMedia } from './type-media.tsx';
import { UnitSheet } from './unit-sheet.tsx';

type Filter = { name: string; floor: string; availability: string; priceMin: string; priceMax: string };
const NO_FILTER: Filter = { name: '', floor: '', availability: '', priceMin: '', priceMax: '' };

const matches = (f: Filter) => {
  const name = f.name.toLowerCase();
  const [min, max] = [f.priceMin ? Number(f.priceMin) : -Infinity, f.priceMax ? Number(f.priceMax) : Infinity];
  return (u: Unit) =>
    (!name || u.name.toLowerCase().includes(name)) &&
    (!f.floor || u.floor === f.floor) &&
    (!f.availability || u.availability === f.availability) &&
    (min === -Infinity || (u.price ?? -Infinity) >= min) &&
    (max === Infinity || (u.price ?? Infinity) <= max);
};

/** "A-101" → "A-102" (the next number not taken), else "A-101 copy". */
export function nextName(name: string, taken: Set<string>): string {
  const m = /^(.*?)(\d+)$/.exec(name);
  if (m) {
    for (let n = Number(m[2]) + 1; n < Number(m[2]) + 1000; n++) {
      const candidate = `${m[1]}${String(n).padStart(m[2].length, '0')}`;
      if (!taken.has(candidate)) return candidate;
    }
  }
  let candidate = `${name} copy`;
  for (let i = 2; taken.has(candidate); i++) candidate = `${name} copy ${i}`;
  return candidate;
}

/** A unit's fields a copy takes: everything but its identity, its outline on the plan and a live hold. */
const copyOf = (u: Unit, name: string) => {
  const { _id, __v, createdAt, updatedAt, path, onHoldExpiresAt, project, floor, position, ...rest } = u;
  return { ...rest, name, availability: u.availability === 'on_hold' ? 'available' : u.availability };
};

function Filters({ filter, floors, onFilter }: { filter: Filter; floors: Floor[]; onFilter: (f: Filter) => void }) {
  const set = (k: keyof Filter) => (v: string) => onFilter({ ...filter, [k]: v });
  return (
    <fieldset class="filters">
      <legend>Filter</legend>
      <Field label="Name contains" type="search" value={filter.name} onValue={set('name')} />
      <Select
        label="Floor"
        value={filter.floor}
        options={[['', 'All floors'], ...floors.map((f) => [f._id, f.name] as [string, string])]}
        onValue={set('floor')}
      />
      <Select
        label="Status"
        value={filter.availability}
        options={[['', 'Any status'], ...AVAILABILITY.map((a) => [a, availabilityLabel(a)] as [string, string])]}
        onValue={set('availability')}
      />
      <Field label="Price from" type="number" value={filter.priceMin} onValue={set('priceMin')} />
      <Field label="Price to" type="number" value={filter.priceMax} onValue={set('priceMax')} />
    </fieldset>
  );
}

/** Saves one cell: PATCH /units/{id} with that field and If-Match; a 412 shows the other person's version. */
async function saveCell(u: Unit, key: Col['key'], raw: string): Promise<Unit | undefined> {
  let value: string | number | null = raw;
  if (COLS.find((c) => c.key === key)?.kind === 'number') value = raw.trim() === '' ? null : Number(raw.replace(/[^\d.-]/g, ''));
  if (value === (u[key] ?? (raw === '' ? '' : undefined)) || (value === null && u[key] === undefined)) return undefined;
  if (typeof value === 'number' && Number.isNaN(value)) throw new Error(`${raw} is not a number.`);
  return api.patch(`/units/${u._id}`, { body: cellBody(key, value), ifMatch: etagOf(u) });
}

/**
 * One cell's PATCH body, each field as the document types it. A number the service keeps cannot be emptied (the
 * document takes a number, not null): that is said here rather than sent.
 */
function cellBody(key: Col['key'], value: string | number | null): RequestBody<'/units/{id}', 'patch'> {
  if (key === 'price' || key === 'bathrooms' || key === 'squareFeet') {
    if (typeof value !== 'number') throw new Error(`${COLS.find((c) => c.key === key)?.label ?? key} cannot be emptied; type a number.`);
    return key === 'price' ? { price: value } : key === 'bathrooms' ? { bathrooms: value } : { squareFeet: value };
  }
  const text = value === null ? '' : String(value);
  if (key === 'availability') {
    const availability = AVAILABILITY.find((a) => a === text);
    if (!availability) throw new Error(`${text} is not a status.`);
    return { availability };
  }
  if (key === 'floor') return { floor: text || null };
  return key === 'name' ? { name: text } : key === 'bedrooms' ? { bedrooms: text } : { type: text };
}

type Loaded<T> = ReturnType<typeof useLoad<T>>;
type Open = { kind: 'history' | 'details'; unit: Unit };
type Ctx = {
  project: Project;
  units: Pick<Loaded<Unit[]>, 'data' | 'set'>;
  floorList: Floor[];
  filter: Filter;
  setFilter: (f: Filter) => void;
  setNews: (m: string) => void;
  setError: (e: unknown) => void;
  setOpen: (o: Open) => void;
};

/** What a row can do: save a cell, be added, duplicated, deleted; each reported in the screen's status line. */
function useRowActions({ project, units, floorList, filter, setFilter, setNews, setError, setOpen }: Ctx) {
  const list = units.data ?? [];
  // The list as the last answer left it, updated at once (not on the next render), so answers landing together merge.
  const latest = useRef(list);
  latest.current = list;
  const replace = (saved: Unit[]) => {
    const byId = new Map(saved.map((u) => [u._id, u]));
    latest.current = latest.current.map((u) => byId.get(u._id) ?? u);
    units.set(latest.current);
  };
  // A cell's save (`keep`) leaves a standing alert alone: the next cell's save must not hide another row's conflict.
  const guard = async (work: () => Promise<void>, keep = false) => {
    if (!keep) setError(undefined);
    try {
      await work();
    } catch (err) {
      setError(err);
    }
  };
  // One queue per unit: a cell's save waits for the row's previous one and sends the version that one answered.
  const queues = useRef(new Map<string, Promise<void>>());
  const onSave = (u: Unit, key: Col['key'], raw: string) => {
    const run = (queues.current.get(u._id) ?? Promise.resolve()).then(() =>
      guard(async () => {
        const current = latest.current.find((x) => x._id === u._id) ?? u;
        try {
          const saved = await saveCell(current, key, raw);
          if (saved) {
            replace([saved]);
            setNews(`${saved.name}: ${COLS.find((c) => c.key === key)?.label ?? key} saved.`);
          }
        } catch (err) {
          if (!(err instanceof ApiError && err.status === 412)) throw err;
          replace([await api.get(`/units/${u._id}`)]);
          throw new Error(`${current.name} was changed by someone else meanwhile; its row now shows their version.`);
        }
      }, true),
    );
    queues.current.set(u._id, run);
    return run;
  };
  const addRow = (from?: Unit) =>
    guard(async () => {
      const name = nextName(from?.name ?? `Unit ${list.length}`, new Set(list.map((u) => u.name)));
      const floor = from?.floor ?? (filter.floor || floorList[0]?._id);
      const u = await api.post('/units', { query: { project: project._id, name, floor }, body: from ? copyOf(from, name) : undefined });
      units.set([u, ...list]);
      setFilter(NO_FILTER);
      setNews(from ? `${from.name} duplicated as ${u.name}.` : `${u.name} added at the top; type its details.`);
      requestAnimationFrame(() => document.querySelector<HTMLInputElement>('[data-row="0"][data-col="0"]')?.select());
    });
  const remove = (u: Unit) =>
    guard(async () => {
      if (!confirm(`Delete ${u.name}?`)) return;
      await api.del(`/units/${u._id}`, { ifMatch: etagOf(u) });
      units.set(list.filter((x) => x._id !== u._id));
      setNews(`${u.name} deleted.`);
    });
  const onAction = (action: 'details' | 'duplicate' | 'delete' | 'history', u: Unit) =>
    action === 'duplicate' ? addRow(u) : action === 'delete' ? remove(u) : setOpen({ kind: action, unit: u });
  return { list, replace, onSave, addRow, onAction };
}

/** Row selection with Shift+click ranges over the rows shown. */
function useSelection(rows: Unit[]) {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const lastClicked = useRef<number>();
  const onToggle = (i: number, shift: boolean) => {
    const next = new Set(selected);
    const on = !next.has(rows[i]._id);
    const [a, b] = shift && lastClicked.current !== undefined ? [Math.min(i, lastClicked.current), Math.max(i, lastClicked.current)] : [i, i];
    for (let j = a; j <= b; j++) {
      if (on) next.add(rows[j]._id);
      else next.delete(rows[j]._id);
    }
    lastClicked.current = i;
    setSelected(next);
  };
  const allShown = rows.length > 0 && rows.every((u) => selected.has(u._id));
  const onToggleAll = () => setSelected(allShown ? new Set() : new Set([...selected, ...rows.map((u) => u._id)]));
  return { selected, onToggle, onToggleAll };
}

/** The first page is small so the first rows come quickly; the rest come in the largest pages the API gives. */
const FIRST = 100;
const PAGE = 500;

/** The first 100 units of a project and its total, asked for ahead (see prefetchUnits); used once, when fresh. */
const firstPages = new Map<string, { at: number; answer: Promise<Answer<Unit[]>> }>();
const FRESH_MS = 10_000;
const unitsPage = (projectId: string, skip: number, limit: number) =>
  request('get', '/units', { query: { project: projectId, 'options[skip]': skip, 'options[limit]': limit } });

/** Starts loading a project's first units while the project itself loads, so the grid does not wait for it. */
export function prefetchUnits(projectId: string): Promise<Answer<Unit[]>> {
  const ahead = firstPages.get(projectId);
  if (ahead && Date.now() - ahead.at <= FRESH_MS) return ahead.answer;
  const answer = unitsPage(projectId, 0, FIRST);
  answer.catch(() => undefined); // a failure is reported where it is used; never as an unhandled rejection
  firstPages.set(projectId, { at: Date.now(), answer });
  return answer;
}

/**
 * Every unit of a project, with the first 100 drawn as soon as they arrive (`partial`) and the other pages asked for
 * together once `X-Total-Count` says how many there are: a 5,000-unit grid shows its first rows after one request.
 */
function useUnitsOf(projectId: string) {
  const [partial, setPartial] = useState<Unit[]>();
  const units = useLoad(async () => {
    const ahead = prefetchUnits(projectId);
    firstPages.delete(projectId);
    const first = await ahead;
    setPartial(first.data);
    const total = first.total ?? first.data.length;
    const skips = Array.from({ length: Math.max(0, Math.ceil((total - FIRST) / PAGE)) }, (_, i) => FIRST + i * PAGE);
    const rest = await Promise.all(skips.map((skip) => unitsPage(projectId, skip, PAGE).then((a) => a.data)));
    return [...first.data, ...rest.flat()];
  }, [projectId]);
  return { ...units, data: units.data ?? partial };
}

export function Units({ project, user }: { project: Project; user: User; path: string }) {
  const floors = useLoad(() => all('/floors', { query: { project: project._id } }), [project._id]);
  const units = useUnitsOf(project._id);
  const [filter, setFilter] = useState(NO_FILTER);
  const [error, setError] = useState<unknown>();
  const [news, setNews] = useState('');
  const [open, setOpen] = useState<Open>();
  const [pasted, setPasted] = useState<string>();
  const manager = canManage(project, user);
  const floorList = useMemo(() => (floors.data ?? []).slice().sort((a, b) => a.position - b.position), [floors.data]);
  const rows = useMemo(() => (units.data ?? []).filter(matches(filter)), [units.data, filter]);
  const colours = useMemo(() => Object.fromEntries(AVAILABILITY.map((a) => [a, statusColour(project, a)])), [project]);
  const { selected, onToggle, onToggleAll } = useSelection(rows);
  const { list, replace, onSave, addRow, onAction } = useRowActions({ project, units, floorList, filter, setFilter, setNews, setError, setOpen });
  if ((units.loading && !units.data) || (floors.loading && !floors.data)) return <Loading what="Loading units" />;
  return (
    <section>
      <PageTitle>Units</PageTitle>
      <Filters filter={filter} floors={floorList} onFilter={setFilter} />
      <BulkBar list={list} selected={selected} replace={replace} onNews={setNews} onError={setError} currency={currencyOf(project)} />
      <ErrorNotice error={error || units.error} />
      <Notice kind="ok">{news}</Notice>
      <div class="row wrap between">
        <p class="muted small grow" id="grid-help">
          {rows.length} of {list.length} units shown, {selected.size} selected. Edit a cell and press Enter or leave it to save; arrow keys move between cells;
          Shift+click selects a range; paste rows copied from a spreadsheet to import them.
        </p>
        <button type="button" onClick={() => addRow()}>
          Add unit
        </button>
      </div>
      {pasted !== undefined && (
        <PasteImport
          project={project}
          text={pasted}
          manager={manager}
          onClose={() => setPasted(undefined)}
          onApplied={(msg) => {
            setPasted(undefined);
            setNews(msg);
            void units.reload();
          }}
        />
      )}
      <p class="muted small scroll-hint" aria-hidden="true">
        Swipe the table sideways for price, bedrooms, baths, area and type →
      </p>
      <UnitGrid
        rows={rows}
        floors={floorList}
        selected={selected}
        manager={manager}
        onToggle={onToggle}
        onToggleAll={onToggleAll}
        onSave={onSave}
        onAction={onAction}
        onPaste={setPasted}
        colours={colours}
        scrollKey={JSON.stringify(filter)}
      />
      <TypeMedia
        project={project}
        units={list}
        onApplied={(msg) => {
          setNews(msg);
          void units.reload();
        }}
      />
      {FEATURES.inventory && <Import project={project} manager={manager} onApplied={() => units.reload()} />}
      <UnitDialogs open={open} me={user._id} manager={manager} floorList={floorList} replace={replace} onNews={setNews} onClose={() => setOpen(undefined)} />
    </section>
  );
}

type BulkBarProps = {
  list: Unit[];
  selected: Set<string>;
  replace: (saved: Unit[]) => void;
  onNews: (news: string) => void;
  onError: (err: unknown) => void;
  currency: string;
};

/** The bulk changes of the selected units, and the undo of the last one. */
function BulkBar({ list, selected, replace, onNews, onError, currency }: BulkBarProps) {
  const [last, setLast] = useState<LastBulk>();
  const undo = async () => {
    if (!last) return;
    replace(await undoBulk(last, (id) => list.find((u) => u._id === id)));
    setLast(undefined);
    onNews(`Undone: ${last.what}`);
  };
  // Sticky only while it has something to apply or undo; the hint alone scrolls away with the page.
  return (
    <div class={selected.size || last ? 'bulk-bar' : ''}>
      <Bulk
        units={list.filter((u) => selected.has(u._id))}
        last={last}
        onDone={(saved, msg, l) => {
          replace(saved);
          onNews(msg);
          setLast(l);
        }}
        onUndo={undo}
        onError={onError}
        currency={currency}
      />
    </div>
  );
}

type UnitDialogsProps = {
  open: Open | undefined;
  me: string;
  manager: boolean;
  floorList: Floor[];
  replace: (saved: Unit[]) => void;
  onNews: (news: string) => void;
  onClose: () => void;
};

/** A unit's history or its details sheet, when one is open. */
function UnitDialogs({ open, me, manager, floorList, replace, onNews, onClose }: UnitDialogsProps) {
  return (
    <>
      {open?.kind === 'history' && <History unit={open.unit} me={me} floorName={new Map(floorList.map((f) => [f._id, f.name]))} onClose={onClose} />}
      {open?.kind === 'details' && (
        <UnitSheet
          unit={open.unit}
          manager={manager}
          onSaved={(u) => {
            replace([u]);
            onNews(`${u.name}'s details saved.`);
          }}
          onClose={onClose}
        />
      )}
    </>
  );
}

export const exportCsv = (projectId: string) => requestText('/units', { query: { project: projectId, format: 'csv' }, headers: { accept: 'text/csv' } });
