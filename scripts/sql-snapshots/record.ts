// How the SQL snapshots are made: every exported function of a *.repo.ts file is called with fixed dummy values
// against a Kysely instance that has PostgreSQL's dialect and no database. Its driver records each statement it is
// handed (PostgreSQL's text, values as $1, $2, …) and answers it with the rows the case gives (none by default), so
// a function of several statements shows them all, in order, inside `begin`/`commit` when it opens a transaction.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import type { Database } from '../../src/db/schema.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where the snapshots live: one file per repository file, named after it (units.repo.ts → units.sql). */
export const QUERIES_DIR = join(ROOT, 'src/db/queries');

type Row = Record<string, unknown>;
type Db = Kysely<Database>;

/** One call of a repository function and the rows each of its statements is answered with. */
export interface SqlCase {
  /** What sets this call apart from the function's other cases (a filter, a branch); none for a single case. */
  label?: string;
  /** The rows every statement of the call gets back (a function that reads a row before its next statement needs one). */
  rows?: readonly Row[];
  run: (db: Db) => unknown;
}

/** A function that builds no SQL of its own (a row mapper, a pager over a callback), and why it has no snapshot. */
export interface NoSql {
  noSql: string;
}

export type Entry = ((db: Db) => unknown) | SqlCase | readonly SqlCase[] | NoSql;

type Fn = (...args: never[]) => unknown;
/** One entry per exported function of the module (`import * as m`), checked against its exports by the unit test. */
export type Entries<M> = { [K in keyof M as M[K] extends Fn ? K : never]?: Entry };

export interface RepoCases {
  /** The repository file, from the repository's root (src/modules/units/units.repo.ts). */
  file: string;
  module: Record<string, unknown>;
  entries: Record<string, Entry | undefined>;
}

export function repo<M extends object>(file: string, module: M, entries: Entries<M>): RepoCases {
  return { file, module: module as Record<string, unknown>, entries: entries as Record<string, Entry | undefined> };
}

/** A statement as written in its template, without the template's own indentation and blank lines around it. */
export function dedent(text: string): string {
  const [first = '', ...rest] = text.trim().split('\n');
  const indent = Math.min(...rest.filter((l) => l.trim()).map((l) => /^ */.exec(l)![0].length));
  return [first, ...rest.map((l) => l.slice(Number.isFinite(indent) ? indent : 0).trimEnd())].join('\n');
}

class RecordingConnection implements DatabaseConnection {
  constructor(
    private readonly log: string[],
    private readonly rows: readonly Row[],
  ) {}
  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    this.log.push(`${dedent(query.sql)};`);
    return { rows: this.rows.map((r) => ({ ...r })) as R[] };
  }
  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the SQL snapshots do not stream');
  }
}

class RecordingDriver implements Driver {
  constructor(
    private readonly log: string[],
    private readonly rows: readonly Row[],
  ) {}
  async init() {}
  async acquireConnection() {
    return new RecordingConnection(this.log, this.rows);
  }
  async beginTransaction() {
    this.log.push('begin;');
  }
  async commitTransaction() {
    this.log.push('commit;');
  }
  async rollbackTransaction() {
    this.log.push('rollback;');
  }
  async releaseConnection() {}
  async destroy() {}
}

/** A Kysely instance that records the statements it is given, answering each with `rows`. */
export function recordingDb(log: string[], rows: readonly Row[] = []): Db {
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new RecordingDriver(log, rows),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
}

const isCompilable = (x: unknown): x is { compile(db: Db): CompiledQuery } | { compile(): CompiledQuery } =>
  typeof x === 'object' && x !== null && typeof (x as { compile?: unknown }).compile === 'function';

/**
 * The SQL one case produces: the statements it ran, or, for a function that builds a piece of SQL for others (a
 * fragment, a builder it does not run), that piece compiled on its own.
 */
export async function recordCase(c: SqlCase): Promise<string[]> {
  const log: string[] = [];
  const db = recordingDb(log, c.rows);
  const result = await c.run(db);
  if (log.length) return log;
  if (isCompilable(result)) return [`${dedent(result.compile(db).sql)} -- (a piece of SQL, compiled on its own)`];
  if (typeof result === 'string') return [`${result} -- (a piece of SQL text)`];
  throw new Error('the call ran no statement and built no SQL: give it rows, other values, or mark the function { noSql }');
}

export const casesOf = (entry: Entry): readonly SqlCase[] =>
  typeof entry === 'function' ? [{ run: entry }] : 'noSql' in entry ? [] : 'run' in entry ? [entry] : entry;

/** A snapshot file's name for a repository file: units.repo.ts → units.sql. */
export const snapshotName = (file: string) => `${file.replace(/^.*\//, '').replace(/\.repo\.ts$/, '')}.sql`;

/** Every *.repo.ts file under src/, from the repository's root, sorted. */
export function repoFiles(): string[] {
  return readdirSync(join(ROOT, 'src'), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.repo.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    .sort();
}

/** The exported functions of a module (a named statement is a function too), by name. */
export const exportedFunctions = (module: Record<string, unknown>) =>
  Object.keys(module)
    .filter((k) => typeof module[k] === 'function')
    .sort();

/** The text of one snapshot file: each function's case(s) in name order, a comment naming the call, then its SQL. */
export async function renderRepo(r: RepoCases): Promise<string> {
  const parts: string[] = [];
  for (const name of exportedFunctions(r.module)) {
    const entry = r.entries[name];
    if (!entry) continue;
    for (const c of casesOf(entry)) {
      let statements: string[];
      try {
        statements = await recordCase(c);
      } catch (err) {
        throw new Error(`${r.file} ${name}${c.label ? ` (${c.label})` : ''}: ${(err as Error).message}`, { cause: err });
      }
      parts.push(`-- ${name}${c.label ? `: ${c.label}` : ''}\n${statements.join('\n')}\n`);
    }
  }
  return `-- The SQL of ${r.file}, one call per function: generated by \`npm run gen:sql\`, do not edit.\n\n${parts.join('\n')}`;
}
