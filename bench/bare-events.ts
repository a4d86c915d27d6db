/**
 * The ingest baseline: POST /public/events on bare node:http + pg, doing the same work as the service (read the
 * text/plain JSON body, check its fields, the project by namespace kept 10 s, bots, the day's salt from the database,
 * the HMAC of the visitor, then the very statement the service runs, `recordEventSql`, as a named prepared statement
 * per event type) with no framework, schema, rate limit or logging. What the service costs beyond this is Fastify,
 * validation, the rate limiter, CORS, security headers, request logging and Kysely.
 *
 *   DATABASE_URL=postgres://... PORT=4001 node --import tsx bench/bare-events.ts
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import pg from 'pg';
import { isMain } from './harness.ts';
import { isBot } from '../src/modules/insights/bots.ts';
import { recordEventSql, type StoredEvent } from '../src/modules/insights/ingest.repo.ts';
import { EVENT_TYPES, type EventType } from '../src/modules/insights/insights.schemas.ts';

const TYPES = new Set<string>(EVENT_TYPES);
const OBJECT_ID = /^[0-9a-f]{24}$/;
const LIMIT = 4096;

// Compiled once per event type: which parameter is which field (the rest are constants of the type).
const compiler = new Kysely<never>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
const FIELDS = ['projectId', 'day', 'at', 'visitor', 'unitId', 'path', 'referrer', 'utmSource', 'utmMedium', 'utmCampaign', 'source'] as const;
type Field = (typeof FIELDS)[number];
const statements = new Map<string, { text: string; slots: (Field | { value: unknown })[] }>();
function statementOf(type: EventType) {
  let s = statements.get(type);
  if (!s) {
    const marks = Object.fromEntries(FIELDS.map((f) => [f, `\u0000${f}`])) as unknown as StoredEvent;
    const compiled = recordEventSql({ ...marks, type }).compile(compiler);
    const slots = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith('\u0000') ? (p.slice(1) as Field) : { value: p }));
    s = { text: compiled.sql, slots };
    statements.set(type, s);
  }
  return s;
}

export function createBareEvents(databaseUrl: string) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  pool.on('error', () => {});
  const projects = new Map<string, { id: string; until: number }>();
  let salt: { day: string; value: Promise<Buffer> } | undefined;

  const saltOf = (day: string) => {
    if (salt?.day !== day) {
      const value = (async () => {
        await pool.query('insert into insight_salts (day, salt) values ($1::date, $2) on conflict do nothing', [day, randomBytes(32)]);
        const r = await pool.query<{ salt: Buffer }>('select salt from insight_salts where day = $1::date', [day]);
        return r.rows[0]!.salt;
      })();
      salt = { day, value };
    }
    return salt.value;
  };

  async function projectOf(namespace: string): Promise<string | undefined> {
    const now = Date.now();
    const hit = projects.get(namespace);
    if (hit && hit.until > now) return hit.id;
    const r = await pool.query<{ id: string }>({ name: 'ev_project', text: 'select id from projects where namespace = $1', values: [namespace] });
    const id = r.rows[0]?.id;
    if (id) projects.set(namespace, { id, until: now + 10_000 });
    return id;
  }

  const send = (res: ServerResponse, status: number, body?: string) => {
    if (body) res.writeHead(status, { 'content-type': 'application/problem+json' }).end(body);
    else res.writeHead(status).end();
  };

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string) {
    let b: Record<string, unknown>;
    try {
      b = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return send(res, 400, '{"detail":"bad json"}');
    }
    const type = b.type;
    if (typeof b.namespace !== 'string' || typeof type !== 'string' || !TYPES.has(type)) return send(res, 400, '{"detail":"bad body"}');
    const unit = b.unit === undefined ? null : b.unit;
    if (unit !== null && (typeof unit !== 'string' || !OBJECT_ID.test(unit))) return send(res, 400, '{"detail":"bad unit"}');
    const projectId = await projectOf(b.namespace);
    if (!projectId) return send(res, 404, '{"detail":"no such presentation"}');
    const ua = req.headers['user-agent'];
    if (isBot(ua)) return send(res, 202);
    const now = Date.now();
    const day = new Date(now).toISOString().slice(0, 10);
    const visitor = createHmac('sha256', await saltOf(day))
      .update(`${projectId}\n${req.socket.remoteAddress ?? ''}\n${ua ?? ''}`)
      .digest()
      .subarray(0, 16);
    const path = typeof b.path === 'string' ? b.path.replace(/[?#].*$/s, '') || '/' : null;
    const e: Record<Field, unknown> = {
      projectId,
      day,
      at: new Date(now),
      visitor,
      unitId: unit,
      path,
      referrer: null,
      utmSource: null,
      utmMedium: null,
      utmCampaign: null,
      source: 'direct',
    };
    const s = statementOf(type as EventType);
    const r = await pool.query<{ ok: boolean }>({
      name: `ev_${type}`,
      text: s.text,
      values: s.slots.map((slot) => (typeof slot === 'string' ? e[slot] : slot.value)),
    });
    if (r.rows[0]?.ok !== true) return send(res, 400, '{"detail":"unit is not of this project"}');
    return send(res, 202);
  }

  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/ready') return send(res, 200, '{}');
    if (req.method !== 'POST' || req.url !== '/public/events') return send(res, 404, '{}');
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > LIMIT) {
        send(res, 413, '{}');
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => {
      if (size > LIMIT) return;
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch(() => send(res, 500, '{}'));
    });
  });
  return { server, close: () => Promise.all([new Promise((r) => server.close(r)), pool.end()]) };
}

if (isMain(import.meta.url)) {
  const { DATABASE_URL, PORT, HOST } = process.env;
  if (!DATABASE_URL) {
    console.error('bare-events: set DATABASE_URL (and PORT)');
    process.exit(2);
  }
  const { server } = createBareEvents(DATABASE_URL);
  server.listen(Number(PORT ?? 4001), HOST ?? '127.0.0.1');
  process.on('SIGTERM', () => process.exit(0));
}
