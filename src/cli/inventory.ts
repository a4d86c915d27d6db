// npm run inventory -- export|import <file> --project <namespace> [--dry-run] [--skip-errors] [--leads]
// A spreadsheet user's way in: talks to a running service over its HTTP API with a token (see docs/inventory.md).
import { createWriteStream, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { extname } from 'node:path';

const USAGE = `Usage:
  npm run inventory -- export <file.csv> --project <namespace> [--leads]
  npm run inventory -- import <file.csv|file.json> --project <namespace> [--dry-run] [--skip-errors]

Environment:
  SHOWSUITE_URL        the service (default http://localhost:3000)
  SHOWSUITE_TOKEN      an access token (the access_token of POST /users/login), or
  SHOWSUITE_USERNAME and SHOWSUITE_PASSWORD to log in with
`;

interface Args {
  command: string;
  file: string;
  project: string;
  dryRun: boolean;
  skipErrors: boolean;
  leads: boolean;
}

export function parseArgs(argv: string[]): Args | string {
  const rest: string[] = [];
  const args = { dryRun: false, skipErrors: false, leads: false, project: '' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--dry-run') args.dryRun = true;
    else if (a === '--skip-errors') args.skipErrors = true;
    else if (a === '--leads') args.leads = true;
    else if (a === '--project') args.project = argv[++i] ?? '';
    else if (a.startsWith('--project=')) args.project = a.slice('--project='.length);
    else if (a === '--help' || a === '-h') return USAGE;
    else if (a.startsWith('--')) return `Unknown option ${a}\n\n${USAGE}`;
    else rest.push(a);
  }
  const [command, file] = rest;
  if ((command !== 'export' && command !== 'import') || !file || !args.project || rest.length > 2) return USAGE;
  return { command, file, ...args };
}

interface Response {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request; `progress` is told how many bytes of the body went out and came back. */
function request(url: URL, opts: { method: string; headers: Record<string, string>; body?: Buffer; progress?: Progress }): Promise<Response> {
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      url,
      { method: opts.method, headers: { ...opts.headers, ...(opts.body ? { 'content-length': String(opts.body.length) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        const total = Number(res.headers['content-length'] ?? 0);
        let got = 0;
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          got += c.length;
          if (opts.progress && total) opts.progress.update('downloading', got, total);
        });
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    const body = opts.body;
    if (!body) return void req.end();
    // Written in slices so the bar moves with the upload, not just at the end.
    const SLICE = 64 * 1024;
    let sent = 0;
    const pump = () => {
      while (sent < body.length) {
        const slice = body.subarray(sent, sent + SLICE);
        sent += slice.length;
        opts.progress?.update('uploading', sent, body.length);
        if (!req.write(slice)) return void req.once('drain', pump);
      }
      opts.progress?.update('waiting for the server', body.length, body.length);
      req.end();
    };
    pump();
  });
}

/** A one-line progress bar on stderr, for files long enough to wait for. */
class Progress {
  #last = '';
  constructor(private readonly enabled: boolean) {}
  update(what: string, done: number, total: number) {
    if (!this.enabled) return;
    const width = 30;
    const filled = Math.round((done / total) * width);
    const percent = String(Math.floor((done / total) * 100)).padStart(3);
    const line = `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percent}% ${what} ${kb(done)}/${kb(total)}`;
    if (line !== this.#last) process.stderr.write((this.#last = line));
  }
  done() {
    if (this.enabled && this.#last) process.stderr.write('\n');
    this.#last = '';
  }
}
const kb = (n: number) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(n / 1024)} kB`);

/** Progress shows for files of more than about a thousand rows (or 256 kB), or when asked (SHOWSUITE_PROGRESS=1). */
const longFile = (data: Buffer) => process.env.SHOWSUITE_PROGRESS === '1' || data.length > 256 * 1024 || data.filter((b) => b === 10).length > 1000;

class Api {
  constructor(
    readonly base: URL,
    private token: string | undefined,
  ) {}

  async login(username: string, password: string) {
    const res = await request(new URL('/users/login', this.base), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ username, password })),
    });
    if (res.status !== 200) throw new Error(`Login failed (${res.status}): ${problemText(res)}`);
    this.token = (JSON.parse(res.body.toString()) as { access_token: string }).access_token;
  }

  call(method: string, path: string, opts: { headers?: Record<string, string>; body?: Buffer; progress?: Progress } = {}) {
    return request(new URL(path, this.base), {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...opts.headers },
      ...(opts.body ? { body: opts.body } : {}),
      ...(opts.progress ? { progress: opts.progress } : {}),
    });
  }

  /** The project with this namespace among those the token's user can see. */
  async projectId(namespace: string): Promise<string> {
    for (let skip = 0; ; skip += 500) {
      const res = await this.call('GET', `/projects?options[limit]=500&options[skip]=${skip}`);
      if (res.status !== 200) throw new Error(`Listing projects failed (${res.status}): ${problemText(res)}`);
      const page = JSON.parse(res.body.toString()) as { _id: string; namespace?: string }[];
      const hit = page.find((p) => p.namespace === namespace);
      if (hit) return hit._id;
      if (page.length < 500) throw new Error(`No project with namespace "${namespace}" is visible to this user`);
    }
  }
}

function problemText(res: Response) {
  try {
    const p = JSON.parse(res.body.toString()) as { detail?: string; errors?: { path?: string; message: string; row?: unknown }[] };
    return [p.detail, ...(p.errors ?? []).filter((e) => e.path && !('row' in e)).map((e) => `${e.path ?? ''}: ${e.message}`)].filter(Boolean).join('; ');
  } catch {
    return res.body.toString().slice(0, 200);
  }
}

const show = (v: unknown) => (v === null || v === undefined ? '–' : typeof v === 'string' ? v : JSON.stringify(v));
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Rows as an aligned text table. */
export function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.min(60, Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length))));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => {
        const width = widths[i] ?? c.length;
        return clip(c, width).padEnd(width);
      })
      .join('  ')
      .trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

interface Answer {
  dryRun: boolean;
  summary: Record<string, number>;
  changes: { row: number; action: string; name: string; floor: string | null; fields: Record<string, [unknown, unknown]> }[];
  /** The server lists the first 1,000 rows of `changes`; the summary counts all. */
  truncated?: boolean;
  errors: { row: number | null; column: string | null; message: string }[];
  unknownColumns: string[];
  kept: { row: number; name: string }[];
}

export function describeAnswer(a: Answer): string {
  const out: string[] = [];
  const changed = a.changes.filter((c) => c.action !== 'unchanged');
  if (changed.length) {
    out.push(
      table(
        ['row', 'action', 'unit', 'floor', 'changes'],
        changed.map((c) => [
          String(c.row),
          c.action,
          c.name,
          c.floor ?? '–',
          Object.entries(c.fields)
            .map(([k, [b, v]]) => (c.action === 'create' ? `${k}=${show(v)}` : `${k}: ${show(b)} → ${show(v)}`))
            .join('; '),
        ]),
      ),
    );
  } else out.push('No unit changes.');
  if (a.truncated) out.push(`\n(Only the first ${a.changes.length} rows are listed; the summary below counts every row.)`);
  if (a.kept.length) out.push(`\nHeld right now, availability kept: ${a.kept.map((k) => `${k.name} (row ${k.row})`).join(', ')}`);
  if (a.errors.length)
    out.push(
      '\nRow errors:\n' +
        table(
          ['row', 'column', 'problem'],
          a.errors.map((e) => [String(e.row ?? '–'), e.column ?? '–', e.message]),
        ),
    );
  if (a.unknownColumns.length) out.push(`\nIgnored columns: ${a.unknownColumns.join(', ')}`);
  const s = a.summary;
  const [create, update] = a.dryRun ? ['to create', 'to update'] : ['created', 'updated'];
  out.push(
    `\n${s.created} ${create}, ${s.updated} ${update}, ${s.unchanged} unchanged, ${s.kept} kept (held), ` +
      `${s.errors} errors${s.skipped ? `, ${s.skipped} skipped` : ''}`,
  );
  return out.join('\n');
}

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (typeof args === 'string') {
    process.stderr.write(args);
    return 2;
  }
  const api = new Api(new URL(process.env.SHOWSUITE_URL ?? 'http://localhost:3000'), process.env.SHOWSUITE_TOKEN);
  if (!process.env.SHOWSUITE_TOKEN) {
    const { SHOWSUITE_USERNAME: u, SHOWSUITE_PASSWORD: p } = process.env;
    if (!u || !p) {
      process.stderr.write(`Set SHOWSUITE_TOKEN, or SHOWSUITE_USERNAME and SHOWSUITE_PASSWORD.\n\n${USAGE}`);
      return 2;
    }
    await api.login(u, p);
  }
  const projectId = await api.projectId(args.project);

  if (args.command === 'export') {
    const progress = new Progress(process.env.SHOWSUITE_PROGRESS === '1' || process.stderr.isTTY);
    const what = args.leads ? 'leads' : 'units';
    const res = await api.call('GET', `/${what}?project=${projectId}&format=csv`, { headers: { accept: 'text/csv' }, progress });
    progress.done();
    if (res.status !== 200) throw new Error(`Export failed (${res.status}): ${problemText(res)}`);
    await new Promise<void>((resolve, reject) => createWriteStream(args.file).on('error', reject).end(res.body, resolve));
    const rows = Math.max(0, res.body.toString().split('\r\n').filter(Boolean).length - 1);
    process.stdout.write(`Wrote ${rows} ${what} to ${args.file}\n`);
    return 0;
  }

  const data = readFileSync(args.file);
  const json = extname(args.file).toLowerCase() === '.json';
  const contentType = json ? 'application/json' : 'text/csv';
  // A .json file may be the rows alone (an array); the API takes them as { rows }.
  const parsed: unknown = json ? JSON.parse(data.toString()) : undefined;
  const body = Array.isArray(parsed) ? Buffer.from(JSON.stringify({ rows: parsed })) : data;
  const progress = new Progress(longFile(data));
  const path = `/projects/${projectId}/inventory/import`;
  const preview = await api.call('POST', `${path}?dryRun=true`, { headers: { 'content-type': contentType }, body, progress });
  progress.done();
  if (preview.status !== 200) throw new Error(`Preview failed (${preview.status}): ${problemText(preview)}`);
  const answer = JSON.parse(preview.body.toString()) as Answer;
  process.stdout.write(describeAnswer(answer) + '\n');
  if (args.dryRun) return 0;
  if (answer.errors.length && !args.skipErrors) {
    process.stdout.write('Nothing applied: fix the rows above, or run again with --skip-errors to apply the others.\n');
    return 1;
  }
  if (!answer.changes.some((c) => c.action !== 'unchanged')) return 0;
  // Applied only if the inventory is still exactly as previewed (412 otherwise).
  const applied = await api.call('POST', `${path}${args.skipErrors ? '?skipErrors=true' : ''}`, {
    headers: { 'content-type': contentType, 'if-match': String(preview.headers.etag) },
    body,
    progress,
  });
  progress.done();
  if (applied.status === 412) throw new Error('The inventory changed since the preview; nothing was applied. Run the import again to see the new differences.');
  if (applied.status !== 200) throw new Error(`Import failed (${applied.status}): ${problemText(applied)}`);
  const result = JSON.parse(applied.body.toString()) as Answer;
  process.stdout.write(
    `Applied: ${result.summary.created} created, ${result.summary.updated} updated, ${result.summary.unchanged} unchanged, ${result.summary.kept} kept.\n`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
