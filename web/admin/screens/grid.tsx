import { useEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import type { RefObject } from 'preact';
import { elementScroll, observeElementOffset, observeElementRect, Virtualizer } from '@tanstack/virtual-core';
import { fieldText } from '../csv.ts';
import { FEATURES } from '../features.ts';
import { AVAILABILITY, availabilityLabel, type Floor, type Unit } from '../types.ts';
import { grouped } from '../ui.tsx';

/** The unit fields the grid shows and edits. */
type GridKey = 'name' | 'floor' | 'availability' | 'price' | 'bedrooms' | 'bathrooms' | 'squareFeet' | 'type';
export type Col = { key: GridKey; label: string; kind: 'text' | 'number' | 'availability' | 'floor' };
export const COLS: Col[] = [
  { key: 'name', label: 'Name', kind: 'text' },
  { key: 'floor', label: 'Floor', kind: 'floor' },
  { key: 'availability', label: 'Status', kind: 'availability' },
  { key: 'price', label: 'Price', kind: 'number' },
  { key: 'bedrooms', label: 'Bedrooms', kind: 'text' },
  { key: 'bathrooms', label: 'Baths', kind: 'number' },
  { key: 'squareFeet', label: 'Area', kind: 'number' },
  { key: 'type', label: 'Type', kind: 'text' },
];
/** A cell's text: prices with thousands separators ("1,250,000"; the save reads the digits back), others as they are. */
export const cellText = (u: Unit, key: GridKey) => (key === 'price' && typeof u.price === 'number' ? grouped(u.price) : fieldText(u[key]));

/** Every row is this tall (CSS `table.grid tbody tr` says the same), so the grid never measures a row. */
export const ROW_HEIGHT = 44;

/**
 * Only the rows in view (and a few either side) are in the document: 5,000 units draw as fast as 30. The scroll
 * box is the grid's own, so its header and first column can stick while it scrolls both ways.
 */
function useRows(count: number, box: RefObject<HTMLDivElement>) {
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const v = useMemo(
    () =>
      new Virtualizer<HTMLDivElement, HTMLTableRowElement>({
        count,
        getScrollElement: () => box.current,
        estimateSize: () => ROW_HEIGHT,
        scrollToFn: elementScroll,
        observeElementRect,
        observeElementOffset,
        overscan: 10,
        // Rows before the box has been measured: a screenful, so the first rows are drawn on the first render.
        initialRect: { width: 1200, height: 900 },
        onChange: () => redraw(0),
      }),
    [],
  );
  v.setOptions({ ...v.options, count });
  useEffect(() => v._didMount(), []);
  useEffect(() => v._willUpdate());
  return v;
}

export interface GridProps {
  rows: Unit[];
  floors: Floor[];
  selected: Set<string>;
  manager: boolean;
  onToggle: (index: number, shift: boolean) => void;
  onToggleAll: () => void;
  /** Resolves once the save has landed (or failed and been said). */
  onSave: (u: Unit, key: Col['key'], v: string) => Promise<void>;
  onAction: (action: 'details' | 'duplicate' | 'delete' | 'history', u: Unit) => void;
  onPaste: (text: string) => void;
  /** Each status's colour, the buyer's page's (web/status-colours.ts, with the project's own). */
  colours: Record<string, string>;
  /** When this changes (a new filter), the grid goes back to its first row. */
  scrollKey: string;
}

/** The units as a spreadsheet: a row per unit, a cell per field, arrows and Enter to move, paste rows to import. */
export function UnitGrid({ rows, floors, selected, manager, onToggle, onToggleAll, onSave, onAction, onPaste, colours, scrollKey }: GridProps) {
  const box = useRef<HTMLDivElement>(null);
  const v = useRows(rows.length, box);
  useEffect(() => box.current?.scrollTo({ top: 0 }), [scrollKey]);
  // For bench/console-grid.ts: when the first rows of this grid are in the document.
  useEffect(() => {
    if (rows.length) performance.mark('units-grid:first-rows');
  }, [rows.length > 0]);
  const items = v.getVirtualItems();
  const top = items[0]?.start ?? 0;
  const bottom = v.getTotalSize() - (items[items.length - 1]?.end ?? 0);
  const allShown = rows.length > 0 && rows.every((u) => selected.has(u._id));
  const focusCell = (r: number, c: number) => {
    if (r < 0 || r >= rows.length) return;
    const find = () => box.current?.querySelector<HTMLElement>(`[data-row="${r}"][data-col="${c}"]`);
    const go = (el: HTMLElement | null | undefined) => {
      el?.focus();
      if (el instanceof HTMLInputElement) el.select();
    };
    const el = find();
    if (el) {
      go(el);
      return;
    }
    v.scrollToIndex(r, { align: 'auto' });
    requestAnimationFrame(() => requestAnimationFrame(() => go(find())));
  };
  const onKey = (e: KeyboardEvent) => cellKey(e, rows, focusCell);
  // The floor column is as wide as its longest name, so "Level 1" … "Level 5" never all read "Level".
  const floorWidth = `calc(${Math.min(28, Math.max(4, ...floors.map((f) => f.name.length)))}ch + 2.75rem)`;
  const look = { floorWidth, colours };
  // Rows copied from a spreadsheet arrive as tab-separated lines: they go to the import's dry run, not into one cell.
  const paste = (e: ClipboardEvent) => {
    const text = e.clipboardData?.getData('text/plain') ?? '';
    if (!/[\t\n]/.test(text.trim())) return;
    e.preventDefault();
    onPaste(text);
  };
  return (
    <div class="table-wrap grid-scroll" ref={box} onPaste={paste} data-testid="units-grid">
      <table class="grid" aria-describedby="grid-help" aria-rowcount={rows.length + 1}>
        <thead>
          <tr aria-rowindex={1}>
            <th scope="col" class="pick">
              <input type="checkbox" aria-label="Select all shown units" checked={allShown} onChange={onToggleAll} />
            </th>
            {COLS.map((c) => (
              <th scope="col" key={c.key} class={c.key === 'name' ? 'sticky-name' : ''}>
                {c.label}
              </th>
            ))}
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {top > 0 && <tr class="spacer" style={{ height: `${top}px` }} aria-hidden="true" />}
          {/* Keyed by unit: a save that lands never rebuilds the row being typed in, nor moves a cell to another unit. */}
          {items.map((it) => (
            <Row
              key={rows[it.index]._id}
              unit={rows[it.index]}
              r={it.index}
              floors={floors}
              on={selected.has(rows[it.index]._id)}
              manager={manager}
              onToggle={onToggle}
              onSave={onSave}
              onAction={onAction}
              onKey={onKey}
              look={look}
            />
          ))}
          {bottom > 0 && <tr class="spacer" style={{ height: `${bottom}px` }} aria-hidden="true" />}
        </tbody>
      </table>
    </div>
  );
}

/** Moves focus between cells like a spreadsheet: arrows, Enter goes down; Escape puts the saved value back. */
function cellKey(e: KeyboardEvent, rows: Unit[], focusCell: (r: number, c: number) => void) {
  const el = e.target as HTMLInputElement | HTMLSelectElement;
  const r = Number(el.dataset.row);
  const c = Number(el.dataset.col);
  const isText = el instanceof HTMLInputElement;
  const atStart = isText && el.selectionStart === 0 && el.selectionEnd === 0;
  const atEnd = isText && el.selectionStart === el.value.length;
  let to: [number, number] | undefined;
  if (e.key === 'Enter' || (e.key === 'ArrowDown' && isText)) to = [r + 1, c];
  else if (e.key === 'ArrowUp' && isText) to = [r - 1, c];
  else if (e.key === 'ArrowLeft' && (atStart || !isText)) to = [r, c - 1];
  else if (e.key === 'ArrowRight' && (atEnd || !isText)) to = [r, c + 1];
  else if (e.key === 'Escape' && isText) {
    el.value = cellText(rows[r], COLS[c].key);
    return;
  }
  if (!to || to[1] < 0 || to[1] >= COLS.length || to[0] < 0 || to[0] >= rows.length) return;
  e.preventDefault();
  if (e.key === 'Enter') el.blur();
  focusCell(to[0], to[1]);
}

/** How cells look: the floor column's width, the statuses' colours. */
type Look = { floorWidth: string; colours: Record<string, string> };
type RowProps = { unit: Unit; r: number; floors: Floor[]; on: boolean; manager: boolean; onKey: (e: KeyboardEvent) => void; look: Look } & Pick<
  GridProps,
  'onToggle' | 'onSave' | 'onAction'
>;

function Row({ unit: u, r, floors, on, manager, onToggle, onSave, onAction, onKey, look }: RowProps) {
  return (
    <tr aria-rowindex={r + 2} aria-selected={on} class={on ? 'selected' : ''}>
      <td class="pick">
        <input type="checkbox" aria-label={`Select ${u.name}`} checked={on} onClick={(e) => onToggle(r, (e as MouseEvent).shiftKey)} />
      </td>
      {COLS.map((c, ci) => (
        <td key={c.key} class={c.key === 'name' ? 'sticky-name' : `col-${c.key}`}>
          <Cell unit={u} col={c} row={r} ci={ci} floors={floors} onSave={onSave} onKey={onKey} look={look} />
        </td>
      ))}
      <td class="actions">
        <button type="button" class="secondary small" onClick={() => onAction('details', u)} aria-label={`Details of ${u.name}`}>
          Details
        </button>
        <button type="button" class="secondary small" onClick={() => onAction('duplicate', u)} aria-label={`Duplicate ${u.name}`}>
          Duplicate
        </button>
        {manager && (
          <button type="button" class="secondary small danger" onClick={() => onAction('delete', u)} aria-label={`Delete ${u.name}`}>
            Delete
          </button>
        )}
        {FEATURES.history && (
          <button type="button" class="secondary small" onClick={() => onAction('history', u)} aria-label={`History of ${u.name}`}>
            History
          </button>
        )}
      </td>
    </tr>
  );
}

type CellProps = {
  unit: Unit;
  col: Col;
  row: number;
  ci: number;
  floors: Floor[];
  onSave: GridProps['onSave'];
  onKey: (e: KeyboardEvent) => void;
  look: Look;
};

function Cell({ unit, col, row, ci, floors, onSave, onKey, look }: CellProps) {
  const common = { 'data-row': row, 'data-col': ci, 'aria-label': `${col.label} of ${unit.name}`, onKeyDown: onKey };
  if (col.kind === 'availability') {
    return (
      <select
        {...common}
        class={`status s-${unit.availability}`}
        style={{ '--status': look.colours[unit.availability] ?? look.colours.unavailable }}
        value={unit.availability}
        onChange={(e) => onSave(unit, col.key, (e.target as HTMLSelectElement).value)}
      >
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
      <select
        {...common}
        style={{ minWidth: look.floorWidth }}
        value={unit.floor ?? ''}
        onChange={(e) => onSave(unit, 'floor', (e.target as HTMLSelectElement).value)}
      >
        {!unit.floor && <option value="">—</option>}
        {floors.map((f) => (
          <option key={f._id} value={f._id}>
            {f.name}
          </option>
        ))}
      </select>
    );
  }
  return <TextCell unit={unit} col={col} common={common} onSave={onSave} />;
}

type TextCellProps = Pick<CellProps, 'unit' | 'col' | 'onSave'> & {
  common: { 'data-row': number; 'data-col': number; 'aria-label': string; onKeyDown: (e: KeyboardEvent) => void };
};

/**
 * A typed cell keeps what was typed (`typed`) from the first key until its own save has landed and it is no longer
 * focused; only then does it show the unit's saved value again. Answers to other cells' saves re-render the row
 * without touching this text, and the input is never rebuilt, so focus and the caret stay where the person is.
 */
function TextCell({ unit, col, common, onSave }: TextCellProps) {
  const [typed, setTyped] = useState<string | null>(null);
  const el = useRef<HTMLInputElement>(null);
  const keyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') setTyped(null);
    common.onKeyDown(e);
  };
  const blur = (e: FocusEvent) => {
    void onSave(unit, col.key, (e.target as HTMLInputElement).value).finally(() => {
      if (document.activeElement !== el.current) setTyped(null);
    });
  };
  return (
    <input
      {...common}
      ref={el}
      onKeyDown={keyDown}
      class={col.kind === 'number' ? 'num' : ''}
      inputMode={col.kind === 'number' ? 'decimal' : undefined}
      value={typed ?? cellText(unit, col.key)}
      onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
      onBlur={blur}
    />
  );
}
