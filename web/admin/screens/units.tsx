import { useMemo, useRef, useState } from 'preact/hooks';
import { all, api, ApiError, query, request, etagOf } from '../api.ts';
import { FEATURES } from '../features.ts';
import { AVAILABILITY, availabilityLabel, type Floor, type Project, type Unit, type User } from '../types.ts';
import { ErrorNotice, Field, Loading, money, Notice, PageTitle, Select, useLoad } from '../ui.tsx';
import { Import } from './import.tsx';
import { History } from './history.tsx';
import { canManage } from './project.tsx';

type Col = { key: keyof Unit & string; label: string; kind: 'text' | 'number' | 'availability' | 'floor' };
const COLS: Col[] = [
  { key: 'name', label: 'Name', kind: 'text' },
  { key: 'floor', label: 'Floor', kind: 'floor' },
  { key: 'availability', label: 'Status', kind: 'availability' },
  { key: 'price', label: 'Price', kind: 'number' },
  { key: 'bedrooms', label: 'Bedrooms', kind: 'text' },
  { key: 'bathrooms', label: 'Baths', kind: 'number' },
  { key: 'squareFeet', label: 'Area', kind: 'number' },
  { key: 'type', label: 'Type', kind: 'text' },
];

export function Units({ project, user }: { project: Project; user: User; path: string }) {
  const floors = useLoad(() => all<Floor>(`/floors${query({ project: project._id })}`), [project._id]);
  const units = useLoad(() => all<Unit>(`/units${query({ project: project._id })}`), [project._id]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [filter, setFilter] = useState({ name: '', floor: '', availability: '', priceMin: '', priceMax: '' });
  const [error, setError] = useState<unknown>();
  const [news, setNews] = useState('');
  const [historyOf, setHistoryOf] = useState<Unit>();
  const lastClicked = useRef<number>();

  const floorName = useMemo(() => new Map((floors.data ?? []).map((f) => [f._id, f.name])), [floors.data]);
  const rows = useMemo(
    () =>
      (units.data ?? []).filter(
        (u) =>
          (!filter.name || u.name.toLowerCase().includes(filter.name.toLowerCase())) &&
          (!filter.floor || u.floor === filter.floor) &&
          (!filter.availability || u.availability === filter.availability) &&
          (!filter.priceMin || (u.price ?? -Infinity) >= Number(filter.priceMin)) &&
          (!filter.priceMax || (u.price ?? Infinity) <= Number(filter.priceMax)),
      ),
    [units.data, filter],
  );
  if ((units.loading && !units.data) || (floors.loading && !floors.data)) return <Loading what="Loading units" />;

  const replace = (saved: Unit[]) => {
    const byId = new Map(saved.map((u) => [u._id, u]));
    units.set((units.data ?? []).map((u) => byId.get(u._id) ?? u));
  };

  const saveCell = async (u: Unit, key: Col['key'], raw: string) => {
    let value: unknown = raw;
    if (COLS.find((c) => c.key === key)?.kind === 'number') value = raw.trim() === '' ? null : Number(raw.replace(/[^\d.-]/g, ''));
    if (value === (u[key] ?? (raw === '' ? '' : undefined)) || (value === null && u[key] === undefined)) return;
    if (typeof value === 'number' && Number.isNaN(value)) return setError(new Error(`${raw} is not a number.`));
    setError(undefined);
    try {
      const saved = await api.patch<Unit>(`/units/${u._id}`, { [key]: value }, { ifMatch: etagOf(u) });
      replace([saved]);
      setNews(`${saved.name}: ${COLS.find((c) => c.key === key)?.label ?? key} saved.`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 412) {
        setError(new Error(`${u.name} was changed by someone else meanwhile; its row now shows their version.`));
        replace([await api.get<Unit>(`/units/${u._id}`)]);
      } else setError(err);
    }
  };

  const toggle = (i: number, shift: boolean) => {
    const next = new Set(selected);
    const id = rows[i]!._id;
    const on = !next.has(id);
    if (shift && lastClicked.current !== undefined) {
      const [a, b] = [Math.min(i, lastClicked.current), Math.max(i, lastClicked.current)];
      for (let j = a; j <= b; j++) on ? next.add(rows[j]!._id) : next.delete(rows[j]!._id);
    } else on ? next.add(id) : next.delete(id);
    lastClicked.current = i;
    setSelected(next);
  };
  const allShown = rows.length > 0 && rows.every((u) => selected.has(u._id));
  const chosen = (units.data ?? []).filter((u) => selected.has(u._id));

  /** Moves focus between cells like a spreadsheet: arrows, Enter goes down. */
  const onCellKey = (e: KeyboardEvent) => {
    const el = e.target as HTMLInputElement | HTMLSelectElement;
    const r = Number(el.dataset.row);
    const c = Number(el.dataset.col);
    let to: [number, number] | undefined;
    const isText = el instanceof HTMLInputElement;
    const atStart = isText && el.selectionStart === 0 && el.selectionEnd === 0;
    const atEnd = isText && el.selectionStart === el.value.length;
    if (e.key === 'Enter' || (e.key === 'ArrowDown' && isText)) to = [r + 1, c];
    else if (e.key === 'ArrowUp' && isText) to = [r - 1, c];
    else if (e.key === 'ArrowLeft' && (atStart || !isText)) to = [r, c - 1];
    else if (e.key === 'ArrowRight' && (atEnd || !isText)) to = [r, c + 1];
    else if (e.key === 'Escape' && isText) {
      const u = rows[r]!;
      el.value = String(u[COLS[c]!.key] ?? '');
      return;
    }
    if (!to) return;
    const target = document.querySelector<HTMLElement>(`[data-row="${to[0]}"][data-col="${to[1]}"]`);
    if (!target) return;
    e.preventDefault();
    if (e.key === 'Enter') el.blur();
    target.focus();
    if (target instanceof HTMLInputElement) target.select();
  };

  return (
    <section>
      <PageTitle>Units</PageTitle>
      <fieldset class="filters">
        <legend>Filter</legend>
        <Field label="Name contains" value={filter.name} onValue={(v) => setFilter({ ...filter, name: v })} />
        <Select label="Floor" value={filter.floor} options={[['', 'All floors'], ...(floors.data ?? []).sort((a, b) => a.position - b.position).map((f) => [f._id, f.name] as [string, string])]} onValue={(v) => setFilter({ ...filter, floor: v })} />
        <Select label="Status" value={filter.availability} options={[['', 'Any status'], ...AVAILABILITY.map((a) => [a, availabilityLabel(a)] as [string, string])]} onValue={(v) => setFilter({ ...filter, availability: v })} />
        <Field label="Price from" type="number" value={filter.priceMin} onValue={(v) => setFilter({ ...filter, priceMin: v })} />
        <Field label="Price to" type="number" value={filter.priceMax} onValue={(v) => setFilter({ ...filter, priceMax: v })} />
      </fieldset>
      <Bulk units={chosen} onDone={(saved, msg) => (replace(saved), setNews(msg))} onError={setError} />
      <ErrorNotice error={error || units.error} />
      <Notice kind="ok">{news}</Notice>
      <p class="muted small" id="grid-help">
        {rows.length} of {units.data?.length ?? 0} units shown, {selected.size} selected. Edit a cell and press Enter or leave it to save; arrow keys move between cells; Shift+click selects a range.
      </p>
      <p class="muted small scroll-hint" aria-hidden="true">
        Swipe the table sideways for price, bedrooms, baths, area and type →
      </p>
      <div class="table-wrap">
        <table class="grid" aria-describedby="grid-help">
          <thead>
            <tr>
              <th scope="col">
                <input
                  type="checkbox"
                  aria-label="Select all shown units"
                  checked={allShown}
                  onChange={() => setSelected(allShown ? new Set() : new Set([...selected, ...rows.map((u) => u._id)]))}
                />
              </th>
              {COLS.map((c) => (
                <th scope="col" key={c.key}>
                  {c.label}
                </th>
              ))}
              {FEATURES.history && <th scope="col">History</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((u, r) => (
              <tr key={u._id} aria-selected={selected.has(u._id)} class={selected.has(u._id) ? 'selected' : ''}>
                <td>
                  <input type="checkbox" aria-label={`Select ${u.name}`} checked={selected.has(u._id)} onClick={(e) => toggle(r, (e as MouseEvent).shiftKey)} />
                </td>
                {COLS.map((c, ci) => (
                  <td key={c.key}>
                    <Cell unit={u} col={c} row={r} ci={ci} floors={floors.data ?? []} floorName={floorName} onSave={saveCell} onKey={onCellKey} />
                  </td>
                ))}
                {FEATURES.history && (
                  <td>
                    <button type="button" class="secondary small" onClick={() => setHistoryOf(u)} aria-label={`History of ${u.name}`}>
                      History
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {FEATURES.inventory && <Import project={project} manager={canManage(project, user)} onApplied={() => units.reload()} />}
      {historyOf && <History unit={historyOf} me={user._id} floorName={floorName} onClose={() => setHistoryOf(undefined)} />}
    </section>
  );
}

function Cell({ unit, col, row, ci, floors, floorName, onSave, onKey }: { unit: Unit; col: Col; row: number; ci: number; floors: Floor[]; floorName: Map<string, string>; onSave: (u: Unit, key: Col['key'], v: string) => void; onKey: (e: KeyboardEvent) => void }) {
  const label = `${col.label} of ${unit.name}`;
  const common = { 'data-row': row, 'data-col': ci, 'aria-label': label, onKeyDown: onKey };
  if (col.kind === 'availability') {
    return (
      <select {...common} class={`status s-${unit.availability}`} value={unit.availability} onChange={(e) => onSave(unit, col.key, (e.target as HTMLSelectElement).value)}>
        {AVAILABILITY.map((a) => (
          <option key={a} value={a} disabled={a === 'on_hold'}>
            {availabilityLabel(a)}
          </option>
        ))}
      </select>
    );
  }
  if (col.kind === 'floor') {
    return (
      <select {...common} value={unit.floor ?? ''} onChange={(e) => onSave(unit, 'floor', (e.target as HTMLSelectElement).value)} title={floorName.get(unit.floor ?? '')}>
        {!unit.floor && <option value="">—</option>}
        {floors.map((f) => (
          <option key={f._id} value={f._id}>
            {f.name}
          </option>
        ))}
      </select>
    );
  }
  const v = unit[col.key];
  return (
    <input
      {...common}
      key={`${unit._id}-${unit.__v}`}
      class={col.kind === 'number' ? 'num' : ''}
      inputMode={col.kind === 'number' ? 'decimal' : undefined}
      defaultValue={v === undefined || v === null ? '' : String(v)}
      onBlur={(e) => onSave(unit, col.key, (e.target as HTMLInputElement).value)}
    />
  );
}

/** Status or price for every selected unit: one all-or-nothing PATCH /units when the service has it. */
function Bulk({ units, onDone, onError }: { units: Unit[]; onDone: (saved: Unit[], msg: string) => void; onError: (e: unknown) => void }) {
  const [status, setStatus] = useState('');
  const [mode, setMode] = useState<'amount' | 'percent'>('percent');
  const [by, setBy] = useState('');
  const [busy, setBusy] = useState(false);
  if (!units.length) return <p class="muted small">Select units to change their status or prices together.</p>;
  const priced = units.filter((u) => typeof u.price === 'number');
  const n = Number(by);
  const newPrice = (p: number) => Math.max(0, Math.round(mode === 'amount' ? p + n : p * (1 + n / 100)));
  const apply = async (changes: { _id: string; ifMatch: string | null; [k: string]: unknown }[], msg: string) => {
    setBusy(true);
    onError(undefined);
    try {
      let saved: Unit[];
      if (FEATURES.inventory) saved = await api.patch<Unit[]>('/units', changes.map(({ ifMatch, ...c }) => (ifMatch ? { ...c, ifMatch } : c)));
      else {
        saved = [];
        for (const { _id, ifMatch, ...fields } of changes) saved.push(await api.patch<Unit>(`/units/${_id}`, fields, { ifMatch }));
      }
      onDone(saved, msg);
    } catch (err) {
      onError(err instanceof ApiError && err.status === 412 ? new Error('Some of these units were changed by someone else meanwhile; nothing was saved. Reload and try again.') : err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="bulk card" aria-label="Change the selected units" onSubmit={(e) => e.preventDefault()}>
      <strong>{units.length} selected</strong>
      <div class="row wrap">
        <Select label="Set status" value={status} options={[['', 'Choose…'], ...AVAILABILITY.filter((a) => a !== 'on_hold').map((a) => [a, availabilityLabel(a)] as [string, string])]} onValue={setStatus} />
        <button type="button" class="align-end" disabled={!status || busy} onClick={() => apply(units.map((u) => ({ _id: u._id, ifMatch: etagOf(u), availability: status })), `${units.length} units set to ${availabilityLabel(status)}.`)}>
          Set status
        </button>
      </div>
      <div class="row wrap">
        <Select label="Change prices by" value={mode} options={[['percent', 'Percent'], ['amount', 'Amount']]} onValue={(v) => setMode(v as 'amount' | 'percent')} />
        <Field label={mode === 'percent' ? 'Percent (e.g. 5 or -3)' : 'Amount (e.g. 10000 or -5000)'} type="number" step="any" value={by} onValue={setBy} />
        <button
          type="button"
          class="align-end"
          disabled={!by || Number.isNaN(n) || !priced.length || busy}
          onClick={() => apply(priced.map((u) => ({ _id: u._id, ifMatch: etagOf(u), price: newPrice(u.price!) })), `${priced.length} prices changed.`)}
        >
          Change {priced.length} price{priced.length === 1 ? '' : 's'}
        </button>
      </div>
      {by && !Number.isNaN(n) && priced.length > 0 && (
        <p class="muted small" aria-live="polite">
          e.g. {priced[0]!.name}: {money(priced[0]!.price)} → {money(newPrice(priced[0]!.price!))}
          {priced.length < units.length ? ` (${units.length - priced.length} without a price are left alone)` : ''}
        </p>
      )}
    </form>
  );
}

export const exportCsv = (projectId: string) => request<string>('GET', `/units${query({ project: projectId, format: 'csv' })}`, { headers: { accept: 'text/csv' } });
