import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import { AppError } from '../../http/errors.ts';
import { commonJs } from '../../lib/cjs.ts';
import type { ParsedTable } from './csv.ts';
import { fileTooLarge, maxCells, passesCellBound, tooManyCells, tooManyRows, type ReadLimits } from './import.bounds.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

/**
 * Excel workbooks (.xlsx) in and out, through exceljs, loaded on first use (the server starts without it; see
 * docs/decisions.md for exceljs over SheetJS). A workbook is a zip of XML files, so reading one is bounded twice: the
 * upload's bytes (as a CSV's), and the bytes it inflates to, counted by inflating every part here first with a cap
 * (a few kilobytes can inflate to gigabytes) before exceljs sees it.
 */

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * A workbook inflates to at most 20 times the file limit (real workbooks are 5–10 times their size), and never past
 * 64 MiB of XML whatever the file limit: a sheet at the row bound with thirty columns is about 25 MiB, and what
 * exceljs holds grows with it (bench/import-bounds.ts).
 */
const INFLATE_RATIO = 20;
const MAX_INFLATED = 64 * 1024 * 1024;
/** Rows a sheet may hold before parsing: twice the data rows allowed plus this many (headers, formatted empty rows). */
const SPARE_ROWS = 1000;
/** Parts a workbook may have: real ones have tens. */
const MAX_ENTRIES = 2000;

const notXlsx = (why: string) =>
  ERRORS.invalidBody(`The file is not a readable .xlsx workbook: ${why}`, { errors: [{ path: '/', message: 'is not a valid .xlsx workbook' }] });

const inflatesTooLarge = (max: number) =>
  ERRORS.payloadTooLarge(`The workbook inflates to more than ${Math.round(max / 1024 / 1024)} MiB of XML, the most one import may`, {
    errors: [{ path: '/', message: `inflates to more than ${max} bytes` }],
    extra: { maxBytes: max },
  });

/** A part of the zip as stored: its name and its whole local record (header, data and any data descriptor). */
interface ZipPart {
  name: string;
  record: Buffer;
}

/** What a workbook's sheets may hold before any parser sees them. */
export interface SheetBounds {
  /** `<row>` elements in one sheet, empty formatted rows included. */
  rows: number;
  /** Cells with a value (`<v>` or an inline string) in one sheet. */
  cells: number;
  /** The data rows allowed, for the 413's words. */
  dataRows: number;
}

/**
 * Inflates every part of the zip (central directory entries, stored or deflated) as a stream, keeping nothing: the
 * running total of the real sizes (not the sizes the directory claims) is capped at `maxInflated`, and the rows and
 * the cells with a value of every sheet are counted, so a bomb, a sheet of millions of rows or of a few rows a
 * thousand columns wide is refused before any parser holds it. Zip64, encryption and other methods are refused.
 * Answers the parts, for {@link readXlsx} to hand the parser only those it reads.
 */
export async function checkZipBounds(file: Buffer, maxInflated: number, bounds: SheetBounds): Promise<ZipPart[]> {
  const eocd = file.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0 || eocd + 22 > file.length) throw notXlsx('no zip directory');
  const entries = file.readUInt16LE(eocd + 10);
  const dirSize = file.readUInt32LE(eocd + 12);
  const dirStart = file.readUInt32LE(eocd + 16);
  if (entries === 0xffff || dirStart === 0xffffffff) throw notXlsx('zip64 is not supported');
  if (entries > MAX_ENTRIES) throw notXlsx(`more than ${MAX_ENTRIES} parts`);
  if (dirStart + dirSize > eocd) throw notXlsx('damaged zip directory');
  let at = dirStart;
  let total = 0;
  const parts: { name: string; local: number }[] = [];
  for (let i = 0; i < entries; i++) {
    if (at + 46 > file.length || file.readUInt32LE(at) !== 0x02014b50) throw notXlsx('damaged zip directory');
    const flags = file.readUInt16LE(at + 8);
    const method = file.readUInt16LE(at + 10);
    const compressed = file.readUInt32LE(at + 20);
    const nameLength = file.readUInt16LE(at + 28);
    const extraLength = file.readUInt16LE(at + 30);
    const commentLength = file.readUInt16LE(at + 32);
    const local = file.readUInt32LE(at + 42);
    const name = file.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (flags & 0x1) throw notXlsx('encrypted parts are not supported');
    if (local + 30 > file.length || local >= dirStart || file.readUInt32LE(local) !== 0x04034b50) throw notXlsx('damaged zip entry');
    const start = local + 30 + file.readUInt16LE(local + 26) + file.readUInt16LE(local + 28);
    if (start + compressed > dirStart) throw notXlsx('damaged zip entry');
    const data = file.subarray(start, start + compressed);
    const sheet = /^xl\/worksheets\/[^/]+\.xml$/i.test(name) ? new SheetCounter() : undefined;
    if (method === 0) {
      total += data.length;
      sheet?.add(data);
    } else if (method === 8) {
      total = await inflateCounting(data, total, maxInflated, sheet);
    } else {
      throw notXlsx(`compression method ${method} is not supported`);
    }
    if (total > maxInflated) throw inflatesTooLarge(maxInflated);
    if (sheet && sheet.rows > bounds.rows) throw tooManyRows(bounds.dataRows);
    if (sheet && sheet.cells > bounds.cells) throw tooManyCells(bounds.cells);
    parts.push({ name, local });
  }
  // Each record runs to the next one's header (so a data descriptor stays with its part), the last to the directory.
  const starts = [...new Set(parts.map((p) => p.local))].sort((a, b) => a - b);
  return parts.map(({ name, local }) => {
    const next = starts.find((s) => s > local) ?? dirStart;
    return { name, record: file.subarray(local, next) };
  });
}

/** Inflates `data` chunk by chunk, adding each chunk's size to `total` and dropping it; stops past `max`. */
function inflateCounting(data: Buffer, total: number, max: number, sheet: SheetCounter | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const inflater = createInflateRaw({ chunkSize: 64 * 1024 });
    let sum = total;
    let over = false;
    inflater.on('data', (chunk: Buffer) => {
      sum += chunk.length;
      sheet?.add(chunk);
      if (sum > max && !over) {
        over = true;
        inflater.destroy();
        resolve(sum);
      }
    });
    inflater.on('error', () => {
      if (!over) reject(notXlsx('a part does not inflate'));
    });
    inflater.on('end', () => {
      resolve(sum);
    });
    inflater.end(data);
  });
}

const TAG_END = new Set([' ', '>', '/', '\t', '\n', '\r']);

/**
 * Counts a sheet's `<row` elements and its cells with a value (`<v` and `<is`, the value and the inline string
 * elements, found only inside a cell) across chunks; a tag split between two chunks counts once.
 */
class SheetCounter {
  rows = 0;
  cells = 0;
  #tail = '';
  add(chunk: Buffer) {
    const text = this.#tail + chunk.toString('latin1');
    let from = 0;
    for (;;) {
      const i = text.indexOf('<', from);
      if (i < 0) {
        from = text.length;
        break;
      }
      if (text.length - i < 5) {
        from = i; // decided by the next chunk
        break;
      }
      const first = text[i + 1];
      if (first === 'r' && text[i + 2] === 'o' && text[i + 3] === 'w' && TAG_END.has(text[i + 4] ?? '')) this.rows++;
      else if (first === 'v' && TAG_END.has(text[i + 2] ?? '')) this.cells++;
      else if (first === 'i' && text[i + 2] === 's' && TAG_END.has(text[i + 3] ?? '')) this.cells++;
      from = i + 1;
    }
    this.#tail = text.slice(from);
  }
}

/** A cell's value as import text: numbers and booleans as they are, dates as ISO text, rich text and formulas by their text or result. */
function cellValue(value: unknown): unknown {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Date) return value.toISOString();
  const v = value as { richText?: { text: string }[]; text?: unknown; result?: unknown; error?: unknown; hyperlink?: unknown };
  if (Array.isArray(v.richText)) return v.richText.map((r) => r.text).join('');
  if ('result' in v) return cellValue(v.result);
  if (typeof v.text === 'string') return v.text;
  return '';
}

/** The parts the reader needs, in the order it needs them: relations and sheet names, styles, shared strings, sheets. */
const READ_ORDER = ['xl/_rels/workbook.xml.rels', 'xl/workbook.xml', 'xl/styles.xml', 'xl/sharedStrings.xml'];
const SHEET_PART = /^xl\/worksheets\/sheet\d+\.xml$/;

/**
 * The first sheet of a workbook as header → value rows, as `readCsv` gives a CSV's: the first non-empty row names
 * the columns, blank rows are skipped, more than `maxRows` data rows → 413. Numbers stay numbers (so `1250000` is
 * not read back through a locale), everything else is text.
 *
 * Read by exceljs's streaming reader, row by row, so what a workbook costs is the table it gives (as a CSV's), not
 * exceljs's model of every cell. The reader is handed only the parts it reads, shared strings before the sheets
 * (Excel stores them after), so it never parks a sheet in a temporary file.
 */
export async function readXlsx(file: Buffer, limits: ReadLimits): Promise<ParsedTable> {
  if (file.length > limits.maxBytes) throw fileTooLarge(limits.maxBytes);
  const parts = await checkZipBounds(file, Math.min(MAX_INFLATED, limits.maxBytes * INFLATE_RATIO), {
    rows: limits.maxRows * 2 + SPARE_ROWS,
    cells: maxCells(limits.maxRows),
    dataRows: limits.maxRows,
  });
  const byName = new Map(parts.map((p) => [p.name, p.record]));
  const records = [...READ_ORDER.flatMap((name) => byName.get(name) ?? []), ...parts.filter((p) => SHEET_PART.test(p.name)).map((p) => p.record)];
  const ExcelJS = commonJs(await import('exceljs'));
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from(records), {
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    worksheets: 'emit',
    entries: 'ignore',
  });
  let headers: string[] | undefined;
  const rows: ParsedTable['rows'] = [];
  let sheets = 0;
  try {
    for await (const sheet of reader) {
      // The first tab in the workbook's order (its parts may be stored in another). A sheet the reader could not
      // name (relations it does not follow, such as absolute targets) is read where it stands.
      const tabs = (reader as unknown as { model?: { sheets?: { name: string }[] } }).model?.sheets ?? [];
      const name = (sheet as unknown as { name: string }).name;
      if (tabs.some((t) => t.name === name) && tabs[0]?.name !== name) continue;
      sheets++;
      for await (const row of sheet) {
        const values = (row.values as unknown[]).slice(1).map(cellValue);
        if (!values.some((v) => String(v).trim() !== '')) continue;
        if (headers === undefined) {
          headers = values.map((v) => String(v).trim());
          continue;
        }
        if (rows.length >= limits.maxRows) throw tooManyRows(limits.maxRows);
        if (passesCellBound(rows.length, headers.length, limits.maxRows)) throw tooManyCells(maxCells(limits.maxRows));
        const cells: Record<string, unknown> = {};
        headers.forEach((h, j) => (cells[h] = values[j] ?? ''));
        rows.push({ row: rows.length + 1, cells });
      }
      break;
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw notXlsx((err instanceof Error ? err.message : String(err)).slice(0, 200));
  }
  if (sheets === 0) throw notXlsx('it has no sheet');
  if (headers === undefined || !headers.some((h) => h !== '')) {
    throw ERRORS.invalidBody('The first sheet is empty: its first row must name the columns', { errors: [{ path: '/', message: 'is empty' }] });
  }
  return { headers, rows, delimiter: '' };
}

/** A value as one spreadsheet cell: text, numbers and booleans as they are, arrays and objects as JSON text. */
const toCell = (value: unknown) =>
  value === undefined || value === null ? null : typeof value === 'object' ? JSON.stringify(value) : (value as string | number | boolean);

/** One sheet: a bold header row of `columns`, then one row per record (cells are values, never formulas). */
export async function toXlsx(sheetName: string, columns: string[], records: Record<string, unknown>[]): Promise<Buffer> {
  const { Workbook } = commonJs(await import('exceljs'));
  const workbook = new Workbook();
  const sheet = workbook.addWorksheet(sheetName.slice(0, 31) || 'Sheet1');
  sheet.addRow(columns).font = { bold: true };
  for (const r of records) sheet.addRow(columns.map((c) => toCell(r[c])));
  sheet.views = [{ state: 'frozen', ySplit: 1 }];
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** `format` wins; else `Accept` names the XLSX type. */
export function wantsXlsx(request: FastifyRequest, format: string | undefined): boolean {
  if (format) return format === 'xlsx';
  return (request.headers.accept ?? '').toLowerCase().includes(XLSX_TYPE);
}

export function sendXlsx(reply: FastifyReply, filename: string, body: Buffer) {
  return reply
    .header('Content-Disposition', `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`)
    .type(XLSX_TYPE)
    .send(body);
}

/** The XLSX answer of a route, for its OpenAPI 200 content. */
export const XLSX_CONTENT = { [XLSX_TYPE]: { schema: { type: 'string', format: 'binary', description: 'An Excel workbook (.xlsx), one sheet' } } };
