import type { FastifyReply, FastifyRequest } from 'fastify';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { ERRORS } from '../../http/errors.catalogue.ts';

/**
 * A cell a spreadsheet would run as a formula (=, +, -, @, or a leading tab or carriage return, as OWASP lists
 * them) gets a leading apostrophe, which spreadsheets show as text. Only text is neutralised: a JSON number such
 * as -73.98 is a number in every spreadsheet, never a formula.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
export const neutralise = (text: string) => (FORMULA_START.test(text) ? `'${text}` : text);
/** The reverse, on import: a cell we (or a careful spreadsheet user) neutralised reads back as its text. */
export const unneutralise = (text: string) => (/^'[=+\-@\t\r]/.test(text) ? text.slice(1) : text);

function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return neutralise(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * RFC 4180 text: CRLF line ends, fields quoted when they hold a quote, comma or line break, quotes doubled.
 * Columns are `order` (the record schema's field order) restricted to fields some record has, so a spreadsheet
 * gets no empty columns and the same order every time. Only declared fields can appear.
 */
export function toCsv(records: Record<string, unknown>[], order: string[]): string {
  const present = new Set<string>();
  for (const r of records) for (const k of Object.keys(r)) if (r[k] !== undefined) present.add(k);
  const columns = order.filter((k) => present.has(k));
  const rows = records.map((r) => columns.map((k) => cell(r[k])));
  return stringify([columns, ...rows], { record_delimiter: '\r\n', quoted_match: /[\r\n]|^\s|\s$/ });
}

/** `format=csv` wins; else `Accept` decides, by quality, between text/csv and JSON (JSON on a tie or no mention). */
export function wantsCsv(request: FastifyRequest, format: string | undefined): boolean {
  if (format) return format === 'csv';
  const accept = request.headers.accept;
  if (!accept) return false;
  let csv = -1;
  let json = -1;
  for (const part of accept.split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const q = Number(
      params
        .map((p) => p.trim())
        .find((p) => p.startsWith('q='))
        ?.slice(2) ?? 1,
    );
    if (type === 'text/csv') csv = Math.max(csv, q);
    else if (type === 'application/json' || type === 'application/*' || type === '*/*') json = Math.max(json, type === 'application/json' ? q : q - 0.001);
  }
  return csv > 0 && csv > json;
}

export function sendCsv(reply: FastifyReply, filename: string, text: string) {
  return reply
    .header('Content-Disposition', `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`)
    .type('text/csv; charset=utf-8; header=present')
    .send(text);
}

/** Comma, semicolon or tab: whichever the header line (outside quotes) has most of; comma when none. */
export function detectDelimiter(text: string): string {
  const counts: Record<string, number> = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && ch in counts) counts[ch] = (counts[ch] ?? 0) + 1;
  }
  // The first of the most frequent (ties go to the earlier in `counts`); comma when none occurs.
  let best = ',';
  let most = 0;
  for (const [delimiter, n] of Object.entries(counts)) {
    if (n > most) [best, most] = [delimiter, n];
  }
  return best;
}

export interface ParsedTable {
  headers: string[];
  /** Data rows as header → cell text; `row` 1 is the first data row. */
  rows: { row: number; cells: Record<string, unknown> }[];
  delimiter: string;
}

/** A CSV file (UTF-8, with or without BOM; comma, semicolon or tab) as header → text rows. Blank lines are skipped. */
export function parseCsv(input: Buffer | string): ParsedTable {
  let text = typeof input === 'string' ? input : input.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const delimiter = detectDelimiter(text);
  let records: string[][];
  try {
    records = parse(text, { delimiter, relax_column_count: true, skip_empty_lines: true, bom: true });
  } catch (err) {
    const e = err as { message?: string; lines?: number };
    throw ERRORS.invalidBody(`The file is not readable CSV${e.lines ? ` (line ${e.lines})` : ''}: ${String(e.message).replace(/^Invalid [^:]*: /, '')}`, {
      errors: [{ path: '/', message: 'is not valid CSV' }],
    });
  }
  const [head = [], ...data] = records;
  const headers = head.map((h) => h.trim());
  const rows = data
    .filter((r) => r.some((c) => c.trim() !== ''))
    .map((r, i) => ({ row: i + 1, cells: Object.fromEntries(headers.map((h, j) => [h, r[j] ?? ''])) }));
  return { headers, rows, delimiter };
}

/** A 200 response documented in both media types: the JSON schema, and the CSV rendering of the same records. */
export function csvOrJson<T extends object>(schema: T, what: string) {
  return {
    description: `The ${what} as JSON, or as CSV when asked for`,
    content: {
      'application/json': { schema },
      'text/csv': {
        schema: {
          type: 'string',
          description:
            `RFC 4180 CSV (UTF-8, CRLF): a header row of the ${what}' field names, one row per record; ` +
            'arrays and objects as JSON text; text starting with = + - @ prefixed with an apostrophe.',
        },
      },
    },
  };
}

/** JSON rows as a table: headers in order of first appearance; row 1 is the first object. */
export function jsonTable(rows: Record<string, unknown>[]): Pick<ParsedTable, 'headers' | 'rows'> {
  const headers = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r)) headers.add(k);
  return { headers: [...headers], rows: rows.map((cells, i) => ({ row: i + 1, cells })) };
}
