/**
 * The baseline: GET /units/:id, GET /projects and the public bundle on bare node:http + pg, doing the same work as the service
 * (verify the token, check the session, the same SQL, the same JSON) with no framework, schema or plugin, written as a
 * careful hand-made server would be: named (prepared) statements, HS256 checked with node:crypto, and the stored jsonb
 * of a unit or a listed project passed through as text (no JSON.parse / JSON.stringify of a document in Node).
 * What the service costs beyond this is the price of Fastify, validation, serialisation, helmet, CORS and Kysely.
 *
 *   DATABASE_URL=postgres://... JWT_SECRET=... PORT=4000 node --import tsx bench/bare-server.ts
 */
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import pg from 'pg';
import { isMain } from './harness.ts';
import { PROJECT_RECORD_SQL } from '../src/modules/projects/projects.record.ts';
import { UNIT_RECORD_KEYS } from '../src/modules/units/units.record.ts';
import { documentTextSql } from '../src/db/json-text.ts';
import { PUBLIC_EXPOSED_HEADERS } from '../src/http/cors.ts';
import { apiSecurityHeaders, requestIdOf } from '../src/http/security-headers.ts';
import { verifyAccess } from './jwt.ts';

export interface Principal {
  id: string;
  role: string;
}

// The keys the service's statements remove from a stored document (theirs, so the texts match); SQL text literals.
const OBJECT_ID = /^[0-9a-f]{24}$/;

/**
 * The headers every answer of the service carries, as one flat list computed once (the cheapest way to send them):
 * the security headers (COOKIE_SECURE=false, as the benchmark runs the service) and what CORS adds to a request
 * without Origin. The same response bytes as the service, headers included; only Date and the request id differ.
 */
const security = Object.entries(apiSecurityHeaders(false)).flat();
// A request without Origin is from no listed origin: CORS adds only `Vary: Origin`.
const PRIVATE_HEADERS = [...security, 'vary', 'Origin'];
const PUBLIC_HEADERS = [...security, 'access-control-allow-origin', '*', 'access-control-expose-headers', PUBLIC_EXPOSED_HEADERS.join(', ')];
const JSON_TYPE = 'application/json; charset=utf-8';
const SORT_COLUMNS: Record<string, string> = { name: 'p.name', createdAt: 'p.created_at', updatedAt: 'p.updated_at' };

export interface BareOptions {
  databaseUrl: string;
  jwtSecret: string;
  poolSize?: number;
  /** As the service: a checked session is trusted this long (SESSION_CACHE_SEC, default 30). */
  sessionCacheSec?: number;
}

export function createBareServer(opts: BareOptions) {
  // Same pool size as the service's default (src/db/db.ts).
  const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 10 });
  pool.on('error', () => {});
  const sessions = new Map<string, { until: number; principal: (Principal & { username: string }) | undefined }>();
  const cacheMs = (opts.sessionCacheSec ?? 30) * 1000;

  async function principalOf(req: IncomingMessage): Promise<Principal | undefined> {
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const claims = m && verifyAccess(opts.jwtSecret, m[1]!);
    if (!claims) return undefined;
    const now = Date.now();
    let cached = sessions.get(claims.sid);
    if (!cached || cached.until <= now) {
      const r = await pool.query(
        `select u.id, u.username, u.role from sessions s join users u on u.id = s.user_id
         where s.id = $1 and s.revoked_at is null and s.expires_at > now()`,
        [claims.sid],
      );
      cached = { until: now + cacheMs, principal: r.rows[0] };
      sessions.set(claims.sid, cached);
    }
    const p = cached.principal;
    return p && p.id === claims.sub ? { id: p.id, role: p.role } : undefined;
  }

  // Named statements: parsed and planned once per connection, as a hand-written server would (the service's
  // Kysely/pg path sends unnamed statements). `data` comes back as jsonb text and is spliced, never parsed.
  const UNIT = {
    name: 'bare-unit',
    text: `select u.id, u.project_id, u.floor_id, u.name, u.position, u.availability, u.on_hold_expires_at, ${documentTextSql('u.data', UNIT_RECORD_KEYS)} as data, u.version,
                  u.created_at, u.updated_at, p.user_id, p.administrators, p.editors
           from units u join projects p on p.id = u.project_id where u.id = $1`,
  };

  async function getUnit(principal: Principal, id: string, res: Answer) {
    if (!OBJECT_ID.test(id)) return problem(res, 400, 'invalid_params', 'id must be a 24-character hex ObjectId');
    const r = await pool.query({ ...UNIT, values: [id] });
    const row = r.rows[0];
    if (!row || !canRead(principal, row)) return problem(res, 404, 'not_found', 'Unit not found');
    const now = Date.now();
    const expired = row.availability === 'on_hold' && row.on_hold_expires_at !== null && row.on_hold_expires_at.getTime() <= now;
    // The stored document's text with the column fields appended, in the service's key order.
    const data: string = row.data;
    let tail = `"_id":${JSON.stringify(row.id)},"__v":${row.version},"project":${JSON.stringify(row.project_id)},"name":${JSON.stringify(row.name)},"position":${JSON.stringify(row.position)}`;
    tail += `,"availability":${JSON.stringify(expired ? 'available' : row.availability)},"createdAt":"${row.created_at.toISOString()}","updatedAt":"${row.updated_at.toISOString()}"`;
    if (row.floor_id) tail += `,"floor":${JSON.stringify(row.floor_id)}`;
    if (!expired && row.on_hold_expires_at) tail += `,"onHoldExpiresAt":"${row.on_hold_expires_at.toISOString()}"`;
    const text = data.length > 2 ? `${data.slice(0, -1)},${tail}}` : `{${tail}}`;
    res.writeHead(200, [
      ...idOf(res),
      ...PRIVATE_HEADERS,
      'etag',
      `"${row.version}"`,
      'content-type',
      JSON_TYPE,
      'content-length',
      String(Buffer.byteLength(text)),
    ]);
    res.end(text);
  }

  const statementNames = new Map<string, string>();
  async function listProjects(principal: Principal, query: URLSearchParams, res: Answer) {
    let filters: Record<string, unknown>;
    let options: Record<string, unknown>;
    try {
      filters = JSON.parse(query.get('filters') || '{}');
      options = JSON.parse(query.get('options') || '{}');
    } catch {
      return problem(res, 400, 'invalid_query', 'filters and options must be JSON objects');
    }
    const limit = options.limit ?? 100;
    const skip = options.skip ?? 0;
    const sort = options.sort ?? '-createdAt';
    const column = typeof sort === 'string' ? SORT_COLUMNS[sort.replace(/^-/, '')] : undefined;
    if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > 500 || !Number.isInteger(skip) || (skip as number) < 0 || !column) {
      return problem(res, 400, 'invalid_query', 'options.limit 1-500, options.skip >= 0, options.sort one of name, createdAt, updatedAt');
    }
    const { text, values: params } = projectSearchStatement(principal, {
      name: typeof filters.name === 'string' ? filters.name : undefined,
      projectType: typeof filters.projectType === 'string' ? filters.projectType : undefined,
      column,
      descending: (sort as string).startsWith('-'),
      skip: skip as number,
      limit: limit as number,
    });
    // One named statement per query shape (the shapes are few: which filters, which sort).
    let name = statementNames.get(text);
    if (!name) statementNames.set(text, (name = `bare-projects-${statementNames.size}`));
    const r = await pool.query({ name, text, values: params });
    const items = r.rows.map((row) => row.item as string);
    // A page past the end has no window count; the service then counts separately. The benchmark never asks for one.
    const body = `[${items.join(',')}]`;
    res.writeHead(200, [
      ...idOf(res),
      ...PRIVATE_HEADERS,
      'x-total-count',
      String(Number(r.rows[0]?.total ?? 0)),
      'content-type',
      JSON_TYPE,
      'content-length',
      String(Buffer.byteLength(body)),
    ]);
    res.end(body);
  }

  // The public bundle, built the way the service builds it (same queries, same rules), with no cache.
  const PRIVATE = new Set(['formsSendTo', 'reportSendTo', 'allocations', 'invites', 'internalURL', 'plan', 'subscriptionItem', 'lastSync', 'eventsBlockList']);
  const INTEGRATION = /^(cal|payProvider|yi|pv|zh|sr|sf|so|bs|ftp)[A-Z]/;
  async function getBundle(namespace: string, req: IncomingMessage, res: Answer) {
    const now = new Date();
    const head = await pool.query(
      `select p.id, p.name, p.namespace, p.host_name, p.project_type, p.data, p.content_version,
              (select count(*)::int from units u where u.project_id = p.id and u.availability = 'on_hold' and u.on_hold_expires_at <= $2) as lapsed
       from projects p where p.namespace = $1`,
      [namespace, now],
    );
    const p = head.rows[0];
    if (!p) return problem(res, 404, 'not_found', 'Presentation not found');
    const etag = `"${p.id}-${p.content_version}-${p.lapsed}"`;
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, [...idOf(res), ...PUBLIC_HEADERS, 'etag', etag, 'cache-control', 'public, max-age=5']);
      return res.end();
    }
    const [floors, units] = await Promise.all([
      pool.query('select id, name, position, data from floors where project_id = $1 order by position, id', [p.id]),
      pool.query(
        `select id, project_id, floor_id, name, position, availability, on_hold_expires_at, data, version, created_at, updated_at
         from units where project_id = $1 order by position, id`,
        [p.id],
      ),
    ]);
    const settings = p.data as Record<string, unknown>;
    const project: Record<string, unknown> = { _id: p.id, name: p.name };
    if (p.namespace !== null) project.namespace = p.namespace;
    if (p.host_name !== null) project.hostName = p.host_name;
    if (p.project_type !== null) project.projectType = p.project_type;
    for (const [k, v] of Object.entries(settings)) {
      if (PRIVATE.has(k) || ((k === 'gtmHeadCode' || k === 'gtmBodyCode') && settings.gtmEnabled !== true)) continue;
      if (INTEGRATION.test(k) && k !== 'payProviderCurrency' && k !== 'payProviderDeposit') continue;
      project[k] = v;
    }
    const byFloor = new Map<string | null, Record<string, unknown>[]>();
    for (const u of units.rows) {
      const expired = u.availability === 'on_hold' && u.on_hold_expires_at !== null && u.on_hold_expires_at <= now;
      const unit: Record<string, unknown> = {
        ...u.data,
        _id: u.id,
        __v: u.version,
        project: u.project_id,
        ...(u.floor_id ? { floor: u.floor_id } : {}),
        name: u.name,
        position: u.position,
        availability: expired ? 'available' : u.availability,
        ...(!expired && u.on_hold_expires_at ? { onHoldExpiresAt: u.on_hold_expires_at.toISOString() } : {}),
        createdAt: u.created_at.toISOString(),
        updatedAt: u.updated_at.toISOString(),
      };
      if (settings.showPrices === false) delete unit.price;
      if (settings.hideSold === true && unit.availability === 'sold') continue;
      const list = byFloor.get(u.floor_id) ?? [];
      list.push(unit);
      byFloor.set(u.floor_id, list);
    }
    const body = {
      project,
      floors: floors.rows.map((f) => ({ ...f.data, _id: f.id, project: p.id, name: f.name, position: f.position, units: byFloor.get(f.id) ?? [] })),
      unassignedUnits: byFloor.get(null) ?? [],
    };
    const text = JSON.stringify(body);
    res.writeHead(200, [
      ...idOf(res),
      ...PUBLIC_HEADERS,
      'etag',
      etag,
      'cache-control',
      'public, max-age=5',
      'content-type',
      JSON_TYPE,
      'content-length',
      String(Buffer.byteLength(text)),
    ]);
    res.end(text);
  }

  async function route(req: IncomingMessage, res: Answer) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/ready') {
      await pool.query('select 1');
      return json(res, 200, { status: 'ready' });
    }
    const bundle = /^\/public\/projects\/([^/]+)$/.exec(url.pathname);
    if (bundle && req.method === 'GET') return getBundle(decodeURIComponent(bundle[1]!), req, res);
    const unit = /^\/units\/([^/]+)$/.exec(url.pathname);
    if (req.method !== 'GET' || (!unit && url.pathname !== '/projects')) {
      return problem(res, 404, 'not_found', `No route ${req.method} ${url.pathname}`);
    }
    const principal = await principalOf(req);
    if (!principal) return problem(res, 401, 'unauthorized', 'Send Authorization: Bearer <token>');
    if (unit) return getUnit(principal, unit[1]!, res);
    return listProjects(principal, url.searchParams, res);
  }

  const server = createServer<typeof IncomingMessage, typeof Answer>({ ServerResponse: Answer }, (req, res) => {
    // Every answer carries X-Request-Id (a valid incoming one echoed).
    res.requestId = requestIdOf(req.headers['x-request-id']);
    route(req, res).catch((err) => {
      console.error(err);
      if (!res.headersSent) problem(res, 500, 'internal', 'Internal error');
      else res.destroy();
    });
  });
  server.on('close', () => void pool.end());
  return server;
}

/** A response that knows its request's id (set when the request arrives). */
class Answer extends ServerResponse {
  requestId = '';
}
const idOf = (res: Answer) => ['x-request-id', res.requestId];

/**
 * The project search's statement, as the bare server sends it: the same text as the service's for the same request
 * (each record written by PostgreSQL with the service's own expression, `PROJECT_RECORD_SQL`). Exported so the
 * benchmark can also run it with no HTTP server at all (bench/db-alone.ts), which measures the database's own ceiling.
 */
export function projectSearchStatement(
  principal: Principal,
  q: { name?: string | undefined; projectType?: string | undefined; column: string; descending: boolean; skip: number; limit: number },
): { text: string; values: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (principal.role !== 'admin') {
    params.push(principal.id);
    // The form the service uses: `@>` can use the GIN indexes on the arrays, `= any()` cannot.
    where.push(`(p.user_id = $1 or p.administrators @> array[$1]::char(24)[] or p.editors @> array[$1]::char(24)[])`);
  }
  if (q.name !== undefined && q.name !== '') {
    params.push(`%${q.name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`p.name ilike $${params.length}`);
  }
  if (q.projectType !== undefined) {
    params.push(q.projectType);
    where.push(`p.project_type = $${params.length}`);
  }
  params.push(q.skip, q.limit);
  const direction = q.descending ? 'desc' : 'asc';
  // Each record's JSON text written by PostgreSQL, as the service's statement does (the stored document less the
  // record's own keys and the secrets, then the record's fields; of the sealed secrets only their key names): nothing
  // parsed or serialised in Node. The expression is the service's own, so the two bodies are the same bytes.
  const text = `select ${PROJECT_RECORD_SQL} as item, count(*) over() as total
       from projects p ${where.length ? `where ${where.join(' and ')}` : ''}
       order by ${q.column} ${direction}, p.id ${direction} offset $${params.length - 1} limit $${params.length}`;
  return { text, values: params };
}

function canRead(p: Principal, row: { user_id: string; administrators: string[]; editors: string[] }) {
  return p.role === 'admin' || row.user_id === p.id || row.administrators.includes(p.id) || row.editors.includes(p.id);
}

function json(res: Answer, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, [...idOf(res), ...PRIVATE_HEADERS, 'content-type', JSON_TYPE, 'content-length', String(Buffer.byteLength(text))]);
  res.end(text);
}

function problem(res: Answer, status: number, code: string, detail: string) {
  const text = JSON.stringify({ type: 'about:blank', title: code, status, code, detail });
  res.writeHead(status, [...idOf(res), ...PRIVATE_HEADERS, 'content-type', 'application/problem+json', 'content-length', String(Buffer.byteLength(text))]);
  res.end(text);
}

if (isMain(import.meta.url)) {
  const { DATABASE_URL, JWT_SECRET, PORT, HOST, POOL_SIZE, SESSION_CACHE_SEC } = process.env;
  if (!DATABASE_URL || !JWT_SECRET) {
    console.error('bare-server: set DATABASE_URL and JWT_SECRET (and PORT)');
    process.exit(2);
  }
  const server = createBareServer({
    databaseUrl: DATABASE_URL,
    jwtSecret: JWT_SECRET,
    poolSize: Number(POOL_SIZE ?? 10),
    sessionCacheSec: Number(SESSION_CACHE_SEC ?? 30),
  });
  // The service's default (KEEP_ALIVE_TIMEOUT_SEC=5), so both say the same in Keep-Alive.
  server.keepAliveTimeout = 5_000;
  server.listen(Number(PORT ?? 4000), HOST ?? '127.0.0.1', () => {
    const a = server.address();
    console.log(`bare server listening on ${typeof a === 'object' && a ? `http://${a.address}:${a.port}` : a}`);
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
