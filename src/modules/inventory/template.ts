import { shownAvailability } from '../holds/hold-rules.ts';
import { neutralise } from './csv.ts';
import { SHEET_COLUMNS } from './import.fields.ts';
import type { InventoryState } from './import.plan.ts';
import { byChildOrder } from '../../db/reorder.repo.ts';
import { stringify } from 'csv-stringify/sync';

/**
 * The import template: a project's units under the sales team's column names (SHEET_COLUMNS), one row per unit in
 * floor order, written so that importing it back changes nothing. Rows name units by name and floor (a floor whose
 * name an earlier floor has is named by its id); `Status` is the availability as a person writes it (`On hold`), a lapsed hold
 * as `Available`; empty cells leave a field as it is.
 */
export const TEMPLATE_HEADERS = SHEET_COLUMNS.map((c) => c.header);

const statusText = (availability: string) => availability.charAt(0).toUpperCase() + availability.slice(1).replace(/_/g, ' ');

export function templateRecords(state: InventoryState, now: number): Record<string, unknown>[] {
  const floors = new Map(state.floors.map((f, i) => [f.id, { ...f, order: i }]));
  // The import reads a floor name as the first floor (in floor order) of that name: later ones go by id.
  const firstOfName = new Map<string, string>();
  for (const f of state.floors) if (!firstOfName.has(f.name.toLowerCase())) firstOfName.set(f.name.toLowerCase(), f.id);
  const order = (floorId: string | null) => (floorId === null ? -1 : (floors.get(floorId)?.order ?? -1));
  const units = [...state.units].sort((a, b) => order(a.floor_id) - order(b.floor_id) || byChildOrder(a, b));
  return units.map((u) => {
    const floor = u.floor_id === null ? undefined : floors.get(u.floor_id);
    const row: Record<string, unknown> = {};
    for (const { header, field } of SHEET_COLUMNS) {
      row[header] =
        field === 'name'
          ? u.name
          : field === 'floor'
            ? floor && (firstOfName.get(floor.name.toLowerCase()) === floor.id ? floor.name : floor.id)
            : field === 'availability'
              ? statusText(shownAvailability(u, now))
              : u.data[field];
    }
    return row;
  });
}

/**
 * A number as CSV text the import reads back as the same number: `100.125` would be read as a thousands group
 * (100125), so such a value gets a trailing zero (`100.1250`).
 */
const numberText = (n: number) => {
  const text = String(n);
  return /^-?\d{1,3}\.\d{3}$/.test(text) ? `${text}0` : text;
};

function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'string') return neutralise(value);
  return typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/** The template as RFC 4180 CSV: every column, even where no unit has a value (it is a form to fill in). */
export function templateCsv(records: Record<string, unknown>[]): string {
  return stringify([TEMPLATE_HEADERS, ...records.map((r) => TEMPLATE_HEADERS.map((h) => csvCell(r[h])))], {
    record_delimiter: '\r\n',
    quoted_match: /[\r\n]|^\s|\s$/,
  });
}
