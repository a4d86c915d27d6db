import { Transform, type Readable } from 'node:stream';
import { parse, type Parser } from 'csv-parse';
import { detectDelimiter, type ParsedTable } from './csv.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

/**
 * The bounds on one import: rows counted while the file streams in (the whole file is never held before the count
 * says no), bytes likewise, and how many imports run at once on a node.
 */

export interface ReadLimits {
  maxRows: number;
  maxBytes: number;
}

const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

export const tooManyRows = (maxRows: number) =>
  ERRORS.tooManyRows(`The file has more than ${maxRows} rows, the most one import may have (INVENTORY_MAX_ROWS); split it`, {
    errors: [{ path: '/', message: `has more than ${maxRows} rows` }],
    extra: { maxRows },
  });

/**
 * Cells one import may keep per data row allowed: every column an import reads and an export writes (45), and a
 * few more. A full export at the row bound passes; 20,000 rows five hundred columns wide (a 20 MB CSV of `x,`) do
 * not, as they would hold half a gigabyte while the plan is made.
 */
export const CELLS_PER_ROW = 48;

/** The cells an import of at most `maxRows` rows may keep: the header row's and the rows'. */
export const maxCells = (maxRows: number) => (maxRows + 1) * CELLS_PER_ROW;

/** Whether one more row of `headers` cells, after `rowsKept` rows and the header row, goes past {@link maxCells}. */
export const passesCellBound = (rowsKept: number, headers: number, maxRows: number) => (rowsKept + 2) * headers > maxCells(maxRows);

export const tooManyCells = (max: number) =>
  ERRORS.payloadTooLarge(
    `The file holds more than ${max} cells (${CELLS_PER_ROW} for each row allowed), the most one import may keep; drop the columns it does not need`,
    { errors: [{ path: '/', message: `has more than ${max} cells` }], extra: { maxCells: max } },
  );

export const fileTooLarge = (maxBytes: number) =>
  ERRORS.payloadTooLarge(`The file is larger than ${mib(maxBytes)}, the most one import may be (INVENTORY_MAX_FILE_MB)`, {
    errors: [{ path: '/', message: `is larger than ${maxBytes} bytes` }],
    extra: { maxBytes },
  });

const emptyFile = () => ERRORS.invalidBody('The file is empty: the first line must name the columns', { errors: [{ path: '/', message: 'is empty' }] });

const unreadable = (err: unknown) => {
  const e = err as { message?: string; lines?: number };
  return ERRORS.invalidBody(`The file is not readable CSV${e.lines ? ` (line ${e.lines})` : ''}: ${String(e.message).replace(/^Invalid [^:]*: /, '')}`, {
    errors: [{ path: '/', message: 'is not valid CSV' }],
  });
};

/** Enough of the start of a file to see its header line and pick the delimiter. */
const HEAD_BYTES = 64 * 1024;

/**
 * Reads a CSV file (UTF-8 with or without BOM; comma, semicolon or tab, picked from the header line) as it streams
 * in: header → text rows, blank rows skipped. More than `maxRows` data rows, `maxBytes` bytes or
 * {@link maxCells} cells kept (each row keeps one per header) stops the reading at once with a 413 naming the limit; unreadable CSV is a 400; a file with no header line is a 400.
 */
export function readCsv(source: Readable, limits: ReadLimits): Promise<ParsedTable> {
  return new Promise((resolve, reject) => {
    let headers: string[] | undefined;
    const rows: ParsedTable['rows'] = [];
    let failed = false;
    let parser: Parser | undefined;
    let delimiter = ',';
    let head: Buffer[] = [];
    let headSize = 0;
    let bytes = 0;

    // The answer goes at once; the rest of the body is read and dropped so the connection stays usable.
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      parser?.destroy();
      source.resume();
      reject(err);
    };
    const onRecord = (record: string[]) => {
      if (failed) return;
      if (headers === undefined) {
        headers = record.map((h) => h.trim());
        return;
      }
      if (!record.some((c) => c.trim() !== '')) return;
      if (rows.length >= limits.maxRows) {
        fail(tooManyRows(limits.maxRows));
        return;
      }
      if (passesCellBound(rows.length, headers.length, limits.maxRows)) {
        fail(tooManyCells(maxCells(limits.maxRows)));
        return;
      }
      const cells: Record<string, unknown> = {};
      headers.forEach((h, j) => (cells[h] = record[j] ?? ''));
      rows.push({ row: rows.length + 1, cells });
    };
    const start = () => {
      const text = Buffer.concat(head)
        .toString('utf8')
        .replace(/^\uFEFF/, '');
      delimiter = detectDelimiter(text);
      const p = parse({ delimiter, relax_column_count: true, skip_empty_lines: true, bom: true });
      p.on('data', onRecord);
      p.on('error', (err) => {
        fail(unreadable(err));
      });
      p.on('end', () => {
        if (failed) return;
        if (headers === undefined || !headers.some((h) => h !== '')) fail(emptyFile());
        else resolve({ headers, rows, delimiter });
      });
      for (const chunk of head) p.write(chunk);
      head = [];
      parser = p;
    };

    source.on('data', (raw: Buffer | string) => {
      if (failed) return;
      const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
      bytes += chunk.length;
      if (bytes > limits.maxBytes) {
        fail(fileTooLarge(limits.maxBytes));
        return;
      }
      if (parser) {
        if (!parser.write(chunk)) {
          source.pause();
          parser.once('drain', () => source.resume());
        }
        return;
      }
      head.push(chunk);
      headSize += chunk.length;
      if (headSize >= HEAD_BYTES || chunk.includes(10) || chunk.includes(13)) start();
    });
    source.on('end', () => {
      if (failed) return;
      if (!parser) start();
      parser?.end();
    });
    source.on('error', fail);
  });
}

/**
 * Counts the rows of a JSON import (`{ "rows": [ {…}, … ] }`) as the bytes pass, without parsing them: each object
 * that opens directly inside the array under the top-level object is a row. More than `maxRows` stops the body.
 */
export function jsonRowCounter(maxRows: number): Transform {
  const stack: number[] = [];
  let inString = false;
  let escaped = false;
  let rows = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      for (const byte of chunk) {
        if (inString) {
          if (escaped) escaped = false;
          else if (byte === 0x5c) escaped = true;
          else if (byte === 0x22) inString = false;
        } else if (byte === 0x22) inString = true;
        else if (byte === 0x7b || byte === 0x5b) {
          // `{` inside `[` inside the top-level `{`: one row.
          if (byte === 0x7b && stack.length === 2 && stack[0] === 0x7b && stack[1] === 0x5b && ++rows > maxRows) {
            done(tooManyRows(maxRows));
            return;
          }
          stack.push(byte);
        } else if (byte === 0x7d || byte === 0x5d) stack.pop();
      }
      done(null, chunk);
    },
  });
}

/**
 * How many imports (uploads and feed pulls) run at once on this node. An upload or a pull asked for through the
 * API that finds every place taken is answered 429 at once; the schedule waits for a place.
 */
export class ImportGate {
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(private readonly places: number) {}

  /** Takes a place or throws 429 with Retry-After; the returned release may be called any number of times. */
  take(): () => void {
    if (this.#running >= this.places) {
      throw ERRORS.rateLimited(`${this.places} imports are running on this node, the most at once (INVENTORY_IMPORTS_AT_ONCE); try again shortly`, {
        headers: { 'Retry-After': '5' },
        extra: { limit: this.places },
      });
    }
    return this.#hold();
  }

  /** Waits for a place (the schedule's pulls). */
  async acquire(): Promise<() => void> {
    while (this.#running >= this.places) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    return this.#hold();
  }

  #hold(): () => void {
    this.#running += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running -= 1;
      this.#waiting.shift()?.();
    };
  }
}
