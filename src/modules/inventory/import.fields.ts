import { Ajv, type ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { AVAILABILITY, unitDataFields } from '../units/units.schemas.ts';
import { unneutralise } from './csv.ts';

/** How an import column is read. `_id` and `floor` name things; the rest are Unit fields. */
export type FieldKind = 'id' | 'floor' | 'name' | 'availability' | 'string' | 'number' | 'boolean' | 'json';

const DATA_KINDS: Record<string, FieldKind> = Object.fromEntries(
  Object.entries(unitDataFields).map(([k, s]) => {
    const type = (s as { type?: string }).type;
    return [k, type === 'number' ? 'number' : type === 'boolean' ? 'boolean' : type === 'string' ? 'string' : 'json'];
  }),
);

/** Every column an import reads, by Unit field name. */
export const IMPORT_FIELDS: Record<string, FieldKind> = {
  _id: 'id',
  name: 'name',
  floor: 'floor',
  position: 'number',
  availability: 'availability',
  ...DATA_KINDS,
};

/** Fields of an exported file that the server keeps: accepted so an export can be imported again, and ignored. */
export const SERVER_KEPT_COLUMNS = new Set(['project', 'createdAt', 'updatedAt', '__v', 'onHoldExpiresAt']);

/**
 * The sales team's words for the columns: the console grid's headers and the usual spreadsheet names,
 * matched in any case with spaces and dots ignored, beside the Unit field names. The first name of each is the one the
 * template (GET /projects/{id}/inventory/template) writes, in this order.
 */
export const SHEET_COLUMNS: readonly { header: string; field: string; also: readonly string[] }[] = [
  { header: 'Name', field: 'name', also: [] },
  { header: 'Floor', field: 'floor', also: [] },
  { header: 'Status', field: 'availability', also: [] },
  { header: 'Price', field: 'price', also: [] },
  { header: 'Bedrooms', field: 'bedrooms', also: ['Beds'] },
  { header: 'Bathrooms', field: 'bathrooms', also: ['Baths'] },
  { header: 'Area', field: 'squareFeet', also: ['Sq Ft', 'Square Feet'] },
  { header: 'Type', field: 'type', also: [] },
  { header: 'Parking', field: 'parking', also: [] },
  { header: 'Orientation', field: 'orientation', also: [] },
  { header: 'Description', field: 'description', also: [] },
];

/** A header as compared: lower case, without spaces, dots, hyphens and underscores (`Sq. Ft.` = `sqft`). */
const wordKey = (header: string) => header.toLowerCase().replace(/[\s._-]+/g, '');
const SHEET_WORDS = new Map(SHEET_COLUMNS.flatMap((c) => [c.header, ...c.also].map((w) => [wordKey(w), c.field] as const)));

const CANONICAL = new Map(Object.keys(IMPORT_FIELDS).map((k) => [k.toLowerCase(), k]));
const KEPT = new Map([...SERVER_KEPT_COLUMNS].map((k) => [k.toLowerCase(), k]));

export interface ColumnMap {
  /** File header → Unit field. */
  fields: Map<string, string>;
  unknownColumns: string[];
}

/**
 * Headers are Unit field names (any case), the sales team's words (SHEET_COLUMNS), or names the project's
 * `ftpMapping` maps to one. A mapping wins over a field of the same name, a field name over a word. A second column
 * for a field already read, and anything else, is an unknown column.
 */
export function mapColumns(headers: string[], ftpMapping: { header?: string; property?: string }[] = []): ColumnMap {
  const mapping = new Map<string, string>();
  for (const m of ftpMapping) {
    if (m.header && m.property) mapping.set(m.header.trim().toLowerCase(), m.property.trim().toLowerCase());
  }
  const fields = new Map<string, string>();
  const taken = new Set<string>();
  const unknownColumns: string[] = [];
  for (const header of headers) {
    const key = header.trim().toLowerCase();
    const mapped = mapping.get(key);
    const field = CANONICAL.get(mapped ?? key) ?? (mapped ? undefined : SHEET_WORDS.get(wordKey(key)));
    if (field && !taken.has(field)) {
      fields.set(header, field);
      taken.add(field);
    } else if (!mapped && KEPT.has(key)) {
      continue;
    } else if (header !== '') {
      unknownColumns.push(header);
    }
  }
  return { fields, unknownColumns };
}

/**
 * Reads a number the way people write them in spreadsheets: currency symbols or codes and units around it,
 * spaces (also non-breaking) and apostrophes as group separators, `,` or `.` as thousands or decimal separator.
 * With both, the last one is the decimal point. Several of one kind group thousands (`1.250.000`). A single one
 * followed by exactly three digits, after 1–3 digits that are not `0`, groups thousands (`$1,250` and `€ 95.000`
 * → 1250 and 95000); any other single one is the decimal point (`1,5`, `2.25`, `0.125`). With `decimalPoint`
 * (coordinates), a single `.` is always the decimal point. `(1,000)` is negative. Undefined: not a number.
 */
export function readNumber(text: string, opts: { decimalPoint?: boolean } = {}): number | undefined {
  const m = /^[\p{Sc}A-Za-z\s]{0,6}?([-+(]?)\s*([\d.,'’\s\u00a0\u202f]*\d[\d.,'’\s\u00a0\u202f]*?)\)?[\p{Sc}A-Za-z²³\s.]{0,8}$/u.exec(text.trim());
  if (!m) return undefined;
  const [, sign, digits = ''] = m;
  const negative = sign === '-' || sign === '(';
  const t = digits.replace(/[\s'’\u00a0\u202f]/g, '');
  const commas = t.split(',').length - 1;
  const dots = t.split('.').length - 1;
  let plain: string;
  if (commas && dots) {
    const decimal = t.lastIndexOf(',') > t.lastIndexOf('.') ? ',' : '.';
    const group = decimal === ',' ? '.' : ',';
    const [int = '', frac = '', ...rest] = t.split(decimal);
    if (rest.length || frac.includes(group) || !grouped(int, group)) return undefined;
    plain = `${int.split(group).join('')}.${frac}`;
  } else if (commas > 1 || dots > 1) {
    const group = commas ? ',' : '.';
    if (!grouped(t, group)) return undefined;
    plain = t.split(group).join('');
  } else if (commas === 1 || (dots === 1 && !opts.decimalPoint)) {
    const [int = '', frac = ''] = t.split(commas ? ',' : '.');
    plain = frac.length === 3 && /^[1-9]\d{0,2}$/.test(int) ? `${int}${frac}` : `${int}.${frac}`;
  } else {
    plain = t;
  }
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(plain)) return undefined;
  const n = Number(plain);
  return Number.isFinite(n) ? (negative ? -n : n) : undefined;
}

const grouped = (int: string, group: string) => new RegExp(`^\\d{1,3}(\\${group}\\d{3})*$`).test(int);

const TRUE = new Set(['true', 'yes', 'y', '1', 'x', 'sí', 'si', 'oui', 'ja', 'on']);
const FALSE = new Set(['false', 'no', 'n', '0', 'non', 'nein', 'off']);

export function readBoolean(text: string): boolean | undefined {
  const t = text.trim().toLowerCase();
  return TRUE.has(t) ? true : FALSE.has(t) ? false : undefined;
}

/**
 * An availability: first the project's `yiStatusMapping` read backwards (external string → status name; a value may
 * list several external strings separated by commas), then the status names themselves in any case, with spaces or
 * hyphens for the underscore (`On Hold`).
 */
export function availabilityReader(yiStatusMapping: Record<string, string | undefined> = {}) {
  const external = new Map<string, string>();
  for (const [status, value] of Object.entries(yiStatusMapping)) {
    if (typeof value !== 'string' || !(AVAILABILITY as readonly string[]).includes(status)) continue;
    for (const one of value.split(',')) if (one.trim()) external.set(one.trim().toLowerCase(), status);
  }
  return (text: string): string | undefined => {
    const t = text.trim().toLowerCase();
    const mapped = external.get(t);
    if (mapped) return mapped;
    const normal = t.replace(/[\s-]+/g, '_');
    return (AVAILABILITY as readonly string[]).includes(normal) ? normal : undefined;
  };
}

const ajv = new Ajv({ allErrors: false, strict: false });
const validators = new Map<string, ValidateFunction>();
function validatorFor(field: string): ValidateFunction | undefined {
  const schema = (unitDataFields as Record<string, TSchema>)[field] ?? (field === 'name' ? { type: 'string', minLength: 1, maxLength: 300 } : undefined);
  if (!schema) return undefined;
  let v = validators.get(field);
  if (!v) validators.set(field, (v = ajv.compile(schema)));
  return v;
}

export type CellResult = { value: unknown } | { error: string } | { empty: true };

/**
 * One cell as the field's type. Text comes from CSV; a JSON import may also send numbers, booleans, arrays and
 * objects as they are. An empty cell (or null) is no value: the field is left as it is.
 */
export function readCell(field: string, kind: FieldKind, raw: unknown, readAvailability: (t: string) => string | undefined): CellResult {
  if (raw === null || raw === undefined || (typeof raw === 'string' && raw.trim() === '')) return { empty: true };
  // A spreadsheet keeps `2` typed in a text column (bedrooms, a name) as a number: it is that text.
  if (typeof raw === 'number' && (kind === 'string' || kind === 'name' || kind === 'floor')) raw = String(raw);
  let value: unknown = raw;
  if (typeof raw === 'string') {
    const text = unneutralise(raw);
    switch (kind) {
      case 'number': {
        value = readNumber(text, { decimalPoint: field === 'lat' || field === 'lon' });
        if (value === undefined) return { error: `"${short(text)}" is not a number` };
        break;
      }
      case 'boolean':
        value = readBoolean(text);
        if (value === undefined) return { error: `"${short(text)}" is not true or false (also yes/no, 1/0)` };
        break;
      case 'availability':
        value = readAvailability(text);
        if (value === undefined) return { error: `"${short(text)}" is not an availability (${AVAILABILITY.join(', ')}, or a yiStatusMapping value)` };
        break;
      case 'json': {
        const t = text.trim();
        if (t.startsWith('[') || t.startsWith('{')) {
          try {
            value = JSON.parse(t);
          } catch {
            return { error: 'is not valid JSON' };
          }
        } else {
          // A single plain value in a list column is a list of one (an image URL, say).
          value = [t];
        }
        break;
      }
      case 'id':
      case 'floor':
      case 'name':
        value = text.trim();
        break;
      default:
        value = text;
    }
  } else if (kind === 'availability' || kind === 'id' || kind === 'floor') {
    return { error: 'must be text' };
  }
  if (kind === 'number' && typeof value !== 'number') return { error: 'must be a number' };
  const validate = validatorFor(field);
  if (validate && !validate(value)) {
    const e = validate.errors?.[0];
    return { error: `${e?.instancePath ? `${e.instancePath} ` : ''}${e?.message ?? 'is invalid'}` };
  }
  return { value };
}

const short = (t: string) => (t.length > 40 ? `${t.slice(0, 37)}...` : t);
