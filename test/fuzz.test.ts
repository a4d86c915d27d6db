import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { newObjectId } from '../src/lib/object-id.ts';
import { startStripe, stripeEnv } from './support/stripe-server.ts';
import {
  HIGH_RATE_LIMITS,
  accessClaims,
  buildTestApp,
  createFloor,
  createGroup,
  createProject,
  createUnit,
  createUser,
  ENGINE,
  sessionToken,
  signTestJwt,
  slug,
  type TestApp,
  type TestUser,
} from './helpers.ts';

/**
 * Property-based fuzzing of every operation of the served OpenAPI document (read at test time, so a route added
 * later is fuzzed without touching this file). For each operation, requests are generated from its parameter and
 * body schemas — valid-ish values, boundary values, wrong types, huge strings, odd unicode, missing required and
 * extra fields, ids that exist and ids that don't, JSON, CSV and multipart bodies (well formed and malformed),
 * and bodies of a type the operation does not take — sent as the owner of a seeded project, as a stranger, with
 * a forged token and anonymously. Properties: no answer is 5xx, and every 4xx is problem+json carrying `type`,
 * `title`, `status` (the answer's), `detail` and a `code` from the document's closed list.
 *
 * FUZZ_SEED (an integer; printed at the start) replays a run; FUZZ_RUNS sets the requests per operation;
 * FUZZ_OP (e.g. `POST /media`) narrows the run to the operations whose `METHOD /path` contains it.
 */

const SEED = envInt('FUZZ_SEED', 20_261_126);
const RUNS = envInt('FUZZ_RUNS', 25);
const ONLY = process.env.FUZZ_OP;

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw)) throw new Error(`${name} must be an integer, got ${raw}`);
  return Number(raw);
}

type MultipartCase = 'well-formed' | 'malformed' | 'missing part' | 'empty file';

type Schema = {
  type?: string | string[];
  $ref?: string;
  anyOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: unknown;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
  contentMediaType?: string;
};
interface Parameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  schema?: Schema;
  $ref?: string;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema; example?: unknown }> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; parameters?: Record<string, Parameter> };
}
interface Op {
  method: string;
  path: string;
  op: Operation;
  params: Parameter[];
  /** The operation answers a stream (Server-Sent Events) on success: read its head, then let it go. */
  streams: boolean;
}

type Caller = 'owner' | 'stranger' | 'forged token' | 'anonymous';
/** One generated request, as printed when a property fails. */
interface Req {
  caller: Caller;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  multipart?: MultipartCase;
}

/** Records that exist for the operations to name: re-seeded before each operation (deletions take them away). */
interface Fixture {
  project: string;
  namespace: string;
  hostName: string;
  floor: string;
  unit: string;
  group: string;
  projectInvite: string;
  groupInvite: string;
  hook: string;
  mediaName: string;
}

/** A closed loopback port: webhook deliveries fail at once and nothing leaves the machine. */
const HOOK_URL = 'http://127.0.0.1:9/hook';
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><rect width="1" height="1" onclick="alert(1)"/><script>alert(1)</script></svg>';
const NASTY = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  'a\ud800b',
  '\udc00',
  '\uffff',
  '\ufeff',
  '\u202egnp.exe',
  '🏠🏢',
  'e\u0301\u0301\u0301',
  'a\r\nb',
  '\u2028',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "' or 1=1 --",
  '%',
  '%zz',
  'null',
  'true',
  '-1',
  '1e400',
  'NaN',
  'Infinity',
  '__proto__',
  'constructor',
  '{}',
  '[]',
  '{"$gt":""}',
  '0'.repeat(24),
  'f'.repeat(25),
];
const oddString = fc.oneof(fc.constantFrom(...NASTY), fc.string({ unit: 'binary', maxLength: 24 }), fc.string({ unit: 'grapheme', maxLength: 12 }));
const hugeString = fc.tuple(fc.constantFrom(1_000, 20_000, 300_000), fc.constantFrom('x', 'é', '🏠', '\u0000', '9')).map(([n, c]) => c.repeat(n));
const wrongType = fc.oneof(fc.constantFrom(null, true, false, 0, -1, 1.5, '', 'x', [], {}, [null], { '': '' }, [[[]]]), fc.jsonValue({ maxDepth: 2 }));
const extraKey = fc.oneof(
  fc.constantFrom('extra', '_id', 'id', 'owner', 'role', 'admin', 'createdAt', 'constructor', 'toString', '$where'),
  fc.string({ maxLength: 8 }),
);
const objectIdLike = fc.stringMatching(/^[0-9a-f]{24}$/);
/** RFC 3339 times across the years 0001–9999, in UTC or with an offset, with or without fractions. */
const dateTime = fc
  .tuple(
    fc.date({ noInvalidDate: true, min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z') }),
    fc.oneof(fc.constant(0), fc.integer({ min: -1439, max: 1439 })),
    fc.boolean(),
  )
  .map(([d, offset, frac]) => {
    if (offset === 0) return frac ? d.toISOString() : d.toISOString().replace(/\.\d+Z$/, 'Z');
    const local = new Date(d.getTime() + offset * 60_000).toISOString().slice(0, frac ? 23 : 19);
    const abs = Math.abs(offset);
    return `${local}${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  });

/** Percent-encodes any string, lone surrogates included (as the UTF-8 bytes of U+FFFD, which encodeURIComponent refuses). */
function enc(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
}

/** A header value an HTTP client can send: printable ASCII only. */
const headerSafe = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? '')).replace(/[^\x20-\x7e]/g, '').slice(0, 4000);

test(`fuzz: every operation of the OpenAPI document (${ENGINE})`, async (t) => {
  let app: TestApp | undefined;
  // Payments on, against the local Stripe server: onboarding and Stripe's webhook answer as they do in production.
  const stripe = await startStripe();
  try {
    app = await buildTestApp({
      env: {
        ...HIGH_RATE_LIMITS,
        HOLDS_PER_CLIENT: '1000',
        // The seeded webhook points at HOOK_URL, on loopback.
        WEBHOOK_ALLOW_PRIVATE: 'true',
        ...stripeEnv(stripe),
      },
    });
    await fuzzAll(t, app);
  } finally {
    await app?.close();
    await stripe.stop();
  }
});

async function fuzzAll(t: import('node:test').TestContext, ta: TestApp) {
  const doc = (await ta.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Doc;
  const codes = new Set((doc.components.schemas.Problem?.properties?.code?.anyOf ?? []).flatMap((s) => s.enum ?? []));
  assert.ok(codes.size > 10, 'the document lists the closed set of problem codes');

  const users: Record<'owner' | 'stranger', TestUser> = { owner: await createUser(ta.db), stranger: await createUser(ta.db) };
  const tokens: Partial<Record<Caller, string>> = {};
  const tokenOf = async (who: 'owner' | 'stranger') => (tokens[who] ??= (await sessionToken(ta.db, users[who].id)).token);
  // The owner's claims signed with another key.
  const forged = signTestJwt(accessClaims(users.owner.id, newObjectId()), { secret: 'not-the-service-secret-0123456789abcdef' });
  const ownerAuth = async () => ({ authorization: `Bearer ${await tokenOf('owner')}` });
  const mediaName = await upload(ta, await ownerAuth());

  const ref = <T>(x: T & { $ref?: string }): T => (x.$ref ? (x.$ref.split('/').slice(1) as string[]).reduce<any>((a, k) => a[k], doc) : x);
  const resolve = (s: Schema | undefined): Schema | undefined => (s?.$ref ? resolve(ref(s)) : s);

  const ops: Op[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      // OPTIONS and HEAD are no operations of their own: the first is the framework's answer for any path, the second mirrors GET.
      if (method === 'options' || method === 'head' || method === 'parameters') continue;
      const streams = Object.values(op.responses ?? {}).some((r) => Object.keys(r.content ?? {}).includes('text/event-stream'));
      ops.push({ method: method.toUpperCase(), path, op, params: (op.parameters ?? []).map((p) => ref(p)), streams });
    }
  }
  // Deletions last, so that what a stray deletion removes is at least seeded again before the next operation.
  ops.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
  const selected = ops.filter((o) => !ONLY || `${o.method} ${o.path}`.includes(ONLY));
  t.diagnostic(
    `fuzz seed ${SEED} (FUZZ_SEED=${SEED} replays it), ${RUNS} runs per operation (FUZZ_RUNS), ${selected.length} of ${ops.length} operations${ONLY ? ` matching FUZZ_OP=${ONLY}` : ''}`,
  );
  assert.ok(ops.length >= 30, `${ops.length} operations in the document`);
  assert.ok(
    ops.some((o) => Object.keys(o.op.requestBody?.content ?? {}).some((c) => c.startsWith('multipart/'))),
    'a multipart operation is fuzzed',
  );

  let fixture: Fixture;
  async function seed(): Promise<Fixture> {
    const auth = await ownerAuth();
    const namespace = slug('fz');
    const hostName = `${namespace}.example.com`;
    // Forms, holds and the waitlist open, so the public operations can succeed too.
    const body = { enableForms: true, waitlistEnabled: true, onHoldExperienceEnabled: true, onHoldMinsDuration: 10 };
    const project = await createProject(ta.app, auth, { query: { namespace, hostName }, body });
    const floor = await createFloor(ta.app, auth, project._id);
    const unit = await createUnit(ta.app, auth, project._id, { floor: floor._id });
    const group = await createGroup(ta.app, auth);
    const post = async (url: string, payload: object) => {
      const res = await ta.app.inject({ method: 'POST', url, headers: auth, payload });
      assert.equal(res.statusCode, 201, `seed ${url}: ${res.body}`);
      return (res.json() as { _id: string })._id;
    };
    const invite = { email: `fz-${randomBytes(4).toString('hex')}@example.com`, level: 'editor' };
    return {
      project: project._id,
      namespace,
      hostName,
      floor: floor._id,
      unit: unit._id,
      group: group._id,
      projectInvite: await post(`/projects/${project._id}/invites`, invite),
      groupInvite: await post(`/groups/${group._id}/invites`, invite),
      hook: await post(`/projects/${project._id}/webhooks`, { url: HOOK_URL, events: ['*'] }),
      mediaName,
    };
  }

  /** The record of that kind the fixture holds, for a path or query parameter of an operation. */
  function known(o: Op | undefined, name: string): string | undefined {
    const segs = o?.path.split('/').filter(Boolean) ?? [];
    const resource = segs[0] === 'public' ? segs[1] : segs[0];
    const f = fixture;
    switch (name) {
      case 'id':
        if (!o) return undefined;
        return { project: f.project, projects: f.project, floors: f.floor, units: f.unit, groups: f.group }[resource ?? ''];
      case 'inviteId':
        return resource === 'groups' ? f.groupInvite : f.projectInvite;
      case 'hookId':
        return f.hook;
      case 'namespace':
        return f.namespace;
      case 'hostName':
        return f.hostName;
      case 'name':
        return o?.path.startsWith('/media') ? f.mediaName : undefined;
      case 'project':
        return f.project;
      case 'floor':
        return f.floor;
      case 'unit':
        return f.unit;
      case 'username':
        return users.owner.username;
      case 'password':
        return users.owner.password;
      case 'url':
        return HOOK_URL;
      default:
        return undefined;
    }
  }
  const knownIds = () => [fixture.project, fixture.floor, fixture.unit, fixture.group, fixture.hook];

  // ---- values from schemas ----

  function validOf(s0: Schema | undefined, depth: number): fc.Arbitrary<unknown> {
    const s = resolve(s0);
    if (!s) return fc.jsonValue({ maxDepth: 1 });
    if (s.anyOf) {
      // Members that only add constraints (`required`) narrow the schema they sit in; others are alternatives.
      const { anyOf, ...base } = s;
      const narrow = (x: Schema): Schema => (x.type || x.$ref || x.enum ? x : { ...base, ...x, required: [...(base.required ?? []), ...(x.required ?? [])] });
      return fc.oneof(...anyOf.map((x) => validOf(narrow(x), depth)));
    }
    if (s.enum) return fc.constantFrom(...s.enum);
    if (s.const !== undefined) return fc.constant(s.const);
    const type = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
    switch (type) {
      case 'string':
        return stringOf(s);
      case 'integer': {
        const min = s.minimum ?? (s.maximum !== undefined ? s.maximum - 1000 : -1000);
        return fc.integer({ min, max: s.maximum ?? min + 1000 });
      }
      case 'number': {
        const min = s.minimum ?? (s.maximum !== undefined ? s.maximum - 1e6 : -1e6);
        return fc.double({ min, max: s.maximum ?? min + 2e6, noNaN: true, noDefaultInfinity: true });
      }
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        if (depth > 3) return fc.constant([]);
        return fc.array(valueOf(s.items, depth + 1), {
          minLength: Math.min(s.minItems ?? 0, 3),
          maxLength: Math.max(Math.min(s.maxItems ?? 4, 4), s.minItems ?? 0),
        });
      case 'object':
        return depth > 3 ? fc.constant({}) : objectOf(s, depth);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  }

  function stringOf(s: Schema): fc.Arbitrary<string> {
    if (s.format === 'email') return fc.emailAddress();
    if (s.format === 'email-list') return fc.array(fc.emailAddress(), { minLength: 1, maxLength: 3 }).map((a) => a.join(','));
    if (s.format === 'time-zone') return fc.constantFrom('UTC', 'America/Toronto', 'Europe/Paris', 'Asia/Kolkata');
    if (s.format === 'date-time') return dateTime;
    if (s.pattern === '^[0-9a-f]{24}$') return fc.oneof(fc.constantFrom(...knownIds()), objectIdLike);
    if (s.pattern) {
      try {
        return fc.stringMatching(new RegExp(s.pattern), { maxLength: s.maxLength ?? 40 }).filter((x) => x.length <= (s.maxLength ?? Infinity));
      } catch {
        // A pattern fast-check cannot generate from (lookaheads): plain text, which the pattern may refuse.
      }
    }
    const min = s.minLength ?? 0;
    return fc.string({ minLength: min, maxLength: Math.max(min, Math.min(s.maxLength ?? 30, 30)) });
  }

  function boundaryOf(s0: Schema | undefined): fc.Arbitrary<unknown> {
    const s = resolve(s0);
    const out: unknown[] = [null];
    const type = Array.isArray(s?.type) ? s.type.find((x) => x !== 'null') : s?.type;
    if (type === 'string' || s?.pattern || s?.format) {
      out.push('', 'x'.repeat(Math.max(0, (s?.minLength ?? 1) - 1)));
      if (s?.maxLength !== undefined) out.push('y'.repeat(s.maxLength), 'z'.repeat(s.maxLength + 1));
      if (s?.format === 'date-time')
        out.push(
          '2026-02-30T00:00:00Z',
          '2026-06-30T23:59:60Z',
          '9999-12-31T23:59:59.999Z',
          '9999-12-31T23:59:59-23:59',
          '0000-01-01T00:00:00Z',
          '0001-01-01T00:00:00+01:00',
          '2026-01-01',
          '2026-01-01T00:00:00+25:00',
        );
      if (s?.format === 'email') out.push('a@b', '@', 'a@@b.c', `${'a'.repeat(64)}@${'b'.repeat(250)}.com`);
    }
    if (type === 'integer' || type === 'number') {
      for (const b of [s?.minimum, s?.maximum]) if (b !== undefined) out.push(b, b - 1, b + 1);
      out.push(0, -1, 0.5, 2 ** 31, -(2 ** 31) - 1, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, -Number.MAX_SAFE_INTEGER - 2, 1e308, -1e308, 5e-324);
    }
    if (type === 'array') {
      out.push([]);
      const n = (s?.maxItems ?? 50) + 1;
      if (n <= 2001) out.push(Array.from({ length: n }, () => (resolve(s?.items)?.type === 'string' ? 'x' : {})));
    }
    if (type === 'object') out.push({}, { '': null });
    return fc.constantFrom(...out);
  }

  /** Mostly what the schema allows; sometimes a boundary, a wrong type, odd unicode or a huge string. */
  function valueOf(s: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
    return fc.oneof(
      { weight: 8, arbitrary: validOf(s, depth) },
      { weight: 2, arbitrary: boundaryOf(s) },
      { weight: 1, arbitrary: wrongType },
      { weight: 1, arbitrary: oddString },
      { weight: 1, arbitrary: hugeString },
    );
  }

  /** A field named like a seeded record or the owner's credentials often carries that value. */
  function fieldOf(name: string, s: Schema | undefined, depth: number): fc.Arbitrary<unknown> {
    const k = known(undefined, name);
    return k === undefined ? valueOf(s, depth) : fc.oneof({ weight: 1, arbitrary: fc.constant(k) }, { weight: 1, arbitrary: valueOf(s, depth) });
  }

  /** The documented example as it is, or with one field changed to a generated value; else a generated value. */
  function exampleOr(example: unknown, s: Schema | undefined): fc.Arbitrary<unknown> {
    if (example === undefined) return valueOf(s);
    const r = resolve(s);
    const tweak =
      example && typeof example === 'object' && !Array.isArray(example) && r?.properties
        ? fc.constantFrom(...Object.keys(r.properties)).chain((k) => fieldOf(k, r.properties?.[k], 1).map((v) => ({ ...(example as object), [k]: v })))
        : valueOf(s);
    return fc.oneof({ weight: 2, arbitrary: fc.constant(example) }, { weight: 2, arbitrary: tweak }, { weight: 3, arbitrary: valueOf(s) });
  }

  /** Required fields (sometimes dropped), a few optional ones, and sometimes fields the schema does not know. */
  function objectOf(s: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
    const props = s.properties ?? {};
    const required = (s.required ?? []).filter((k) => k in props);
    const optional = Object.keys(props).filter((k) => !required.includes(k));
    return fc
      .record({
        present: fc.subarray(optional, { maxLength: Math.min(4, optional.length) }),
        dropped: required.length
          ? fc.oneof({ weight: 6, arbitrary: fc.constant<string[]>([]) }, { weight: 1, arbitrary: fc.subarray(required, { minLength: 1 }) })
          : fc.constant<string[]>([]),
        extra: fc.oneof(
          { weight: 6, arbitrary: fc.constant({}) },
          { weight: 1, arbitrary: fc.dictionary(extraKey, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }) },
        ),
      })
      .chain(({ present, dropped, extra }) => {
        const chosen = [...required.filter((k) => !dropped.includes(k)), ...present];
        return fc.record(Object.fromEntries(chosen.map((k) => [k, fieldOf(k, props[k], depth + 1)]))).map((v) => Object.assign({}, extra, v));
      });
  }

  // ---- requests ----

  /** A path parameter: the fixture's record, an id that does not exist, or anything at all (already encoded). */
  function pathParam(o: Op, p: Parameter): fc.Arbitrary<string> {
    const k = known(o, p.name);
    return fc.oneof(
      { weight: 6, arbitrary: fc.constant(enc(k ?? 'example')) },
      { weight: 2, arbitrary: objectIdLike },
      { weight: 2, arbitrary: valueOf(p.schema).map((v) => enc(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))) },
      { weight: 1, arbitrary: fc.constantFrom('%', '%zz', 'a%00b', 'a%ED%A0%80b', '..', '%2e%2e', 'a%2Fb', 'x'.repeat(300)) },
    );
  }

  /** `name=value` pairs for one query parameter: scalars, repeated values, deep-object brackets, or JSON text. */
  function queryPairs(name: string, v: unknown, asJson: boolean): string[] {
    if (v === undefined) return [];
    if (v === null) return [enc(name)];
    if (Array.isArray(v)) return v.flatMap((x) => queryPairs(name, x, asJson));
    if (typeof v === 'object') {
      if (asJson) return [`${enc(name)}=${enc(JSON.stringify(v))}`];
      const pairs = Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => queryPairs(`${name}[${k}]`, x, asJson));
      return pairs.length ? pairs : [`${enc(name)}=`];
    }
    return [`${enc(name)}=${enc(String(v))}`];
  }

  function queryOf(o: Op, params: Parameter[]): fc.Arbitrary<string[]> {
    const one = (p: Parameter) => {
      const k = known(o, p.name);
      const value = k ? fc.oneof({ weight: 4, arbitrary: fc.constant<unknown>(k) }, { weight: 3, arbitrary: valueOf(p.schema) }) : valueOf(p.schema);
      // Required ones are sometimes missing, optional ones often.
      const absent = p.required ? 8 : 2;
      return fc.tuple(fc.option(value, { freq: absent, nil: undefined }), fc.boolean()).map(([v, asJson]) => queryPairs(p.name, v, asJson));
    };
    const extras = fc
      .array(fc.tuple(extraKey, fc.oneof(oddString, fc.string({ maxLength: 8 }))), { maxLength: 2 })
      .map((xs) => xs.map(([k, v]) => `${enc(k)}=${enc(v)}`));
    return fc
      .tuple(fc.tuple(...params.map(one)), fc.oneof({ weight: 5, arbitrary: fc.constant<string[]>([]) }, { weight: 1, arbitrary: extras }))
      .map(([ps, ex]) => [...ps.flat(), ...ex]);
  }

  function headersOf(params: Parameter[]): fc.Arbitrary<Record<string, string>> {
    const one = (p: Parameter) =>
      fc
        .option(fc.oneof(fc.constantFrom('*', '"0"', '"1"', '"2"', 'W/"1"', '"', '""', '"0123456789abcdef"'), valueOf(p.schema)), {
          freq: 2,
          nil: undefined,
        })
        .map((v) => (v === undefined ? [] : [[p.name.toLowerCase(), headerSafe(v)]]));
    return fc.tuple(...params.map(one), otherHeaders).map(([...xs]) => Object.fromEntries(xs.flat() as [string, string][]));
  }

  /** Headers no operation declares but every request may carry: negotiation, encodings, cookies, CSRF signals, proxies. */
  const otherHeaders = fc
    .record(
      {
        accept: fc.constantFrom(
          'text/csv',
          'application/json',
          'application/xml',
          'text/event-stream',
          '*/*',
          'text/html;q=0',
          '',
          ';;;',
          'application/problem+json',
        ),
        'accept-encoding': fc.constantFrom('gzip', 'br', 'deflate', 'identity;q=0', '*;q=0', 'x'),
        'content-encoding': fc.constantFrom('gzip', 'br', 'deflate', 'identity', 'x-unknown'),
        cookie: fc.constantFrom(
          'service=garbage',
          'serviceRefresh=garbage',
          '=;;=',
          'service="unterminated',
          `service=${'a'.repeat(5000)}`,
          'csrf=x; service=x',
        ),
        origin: fc.constantFrom('null', 'https://evil.example', 'http://localhost', 'garbage', ''),
        'sec-fetch-site': fc.constantFrom('cross-site', 'same-site', 'same-origin', 'none', 'garbage'),
        referer: fc.constantFrom('https://evil.example/', 'not a url', ''),
        'x-forwarded-for': fc.constantFrom('1.2.3.4', 'garbage', '::1, 10.0.0.1', ''),
        'x-request-id': fc.oneof(fc.constantFrom('', 'x'.repeat(500)), fc.string({ maxLength: 40 }).map(headerSafe)),
      },
      { requiredKeys: [] },
    )
    .chain((h) => fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.constant(h) }))
    .map((h) => Object.entries(h) as [string, string][]);

  const csvBody = fc
    .tuple(
      fc.constantFrom(',', ';', '\t'),
      fc.subarray(['name', 'floor', 'position', 'availability', 'price', 'area', 'bedrooms', '_id', 'status', 'unknown column', ''], { minLength: 1 }),
      fc.array(fc.array(fc.oneof(fc.string({ maxLength: 8 }), oddString, fc.integer().map(String), fc.constant('"unclosed')), { maxLength: 6 }), {
        maxLength: 5,
      }),
      fc.boolean(),
    )
    .map(([sep, head, rows, bom]) => (bom ? '\ufeff' : '') + [head, ...rows].map((r) => r.join(sep)).join('\r\n'));

  /** A multipart body for a schema whose binary properties are files: well formed, or one of the ways it goes wrong. */
  function multipartOf(s0: Schema | undefined): fc.Arbitrary<{ ct: string; body: Buffer; kind: MultipartCase }> {
    const s = resolve(s0);
    const props = s?.properties ?? {};
    const files = Object.keys(props).filter((k) => props[k]?.contentMediaType || props[k]?.format === 'binary');
    const fields = Object.keys(props).filter((k) => !files.includes(k));
    const content = fc.oneof(
      fc.constantFrom(PNG, Buffer.from(SVG), Buffer.from('%PDF-1.4\n%%EOF\n'), Buffer.from(''), Buffer.from('name,floor\nA,1\n'), Buffer.from('<svg')),
      fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
    );
    const part = fc.record({
      name: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...(files.length ? files : ['file']), ...fields) }, { weight: 1, arbitrary: oddString }),
      filename: fc.option(fc.oneof(fc.constantFrom('a.png', 'plan.svg', 'x.pdf', 'rows.csv'), oddString), { freq: 4, nil: undefined }),
      type: fc.option(fc.constantFrom('image/png', 'application/octet-stream', 'text/csv', 'text/plain', 'image/svg+xml', '\u0000'), {
        freq: 3,
        nil: undefined,
      }),
      content,
    });
    const mutation = fc.oneof(
      { weight: 6, arbitrary: fc.constant('none') },
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          'truncate',
          'no closing boundary',
          'wrong boundary',
          'no boundary parameter',
          'garbage',
          'no blank line',
          'no disposition',
          'LF only',
        ),
      },
    );
    const boundary = fc.constantFrom('----fuzz0123', 'X', 'a'.repeat(70), 'with space');
    return fc.tuple(fc.array(part, { maxLength: 3 }), mutation, boundary, fc.nat()).map(([parts, m, b, cut]) => {
      const nl = m === 'LF only' ? '\n' : '\r\n';
      const chunks: Buffer[] = [];
      for (const p of parts) {
        const disposition =
          m === 'no disposition' ? '' : `Content-Disposition: form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}${nl}`;
        const head = `--${b}${nl}${disposition}${p.type ? `Content-Type: ${p.type}${nl}` : ''}${m === 'no blank line' ? '' : nl}`;
        chunks.push(Buffer.from(head), p.content, Buffer.from(nl));
      }
      if (m !== 'no closing boundary') chunks.push(Buffer.from(`--${b}--${nl}`));
      let body = Buffer.concat(chunks);
      if (m === 'truncate') body = body.subarray(0, cut % Math.max(1, body.length));
      if (m === 'garbage') body = Buffer.concat([Buffer.from('garbage before the first boundary\r\n--nope\r\n'), body.subarray(0, body.length >> 1)]);
      const quoted = b.includes(' ') ? `"${b}"` : b;
      const ct =
        m === 'no boundary parameter'
          ? 'multipart/form-data'
          : m === 'wrong boundary'
            ? 'multipart/form-data; boundary=other'
            : `multipart/form-data; boundary=${quoted}`;
      const hasFile = parts.some((p) => (files.length ? files : ['file']).includes(p.name) && p.filename !== undefined);
      const kind: MultipartCase =
        m !== 'none'
          ? 'malformed'
          : !hasFile
            ? 'missing part'
            : parts.some((p) => p.filename !== undefined && p.content.length === 0)
              ? 'empty file'
              : 'well-formed';
      return { ct, body, kind };
    });
  }

  type Body = { ct?: string; body?: string | Buffer; kind?: MultipartCase };
  function bodyOf(o: Op): fc.Arbitrary<Body> {
    const content = o.op.requestBody?.content ?? {};
    const declared: fc.WeightedArbitrary<Body>[] = Object.entries(content).map(([ct, media]) => {
      if (ct.startsWith('multipart/')) return { weight: 8, arbitrary: multipartOf(media.schema) };
      if (ct === 'text/csv') return { weight: 4, arbitrary: csvBody.map((body) => ({ ct, body })) };
      const json = exampleOr(media.example, media.schema).map((v) => JSON.stringify(v) ?? 'null');
      const broken = fc.oneof(
        fc.constantFrom('{', '{"a":}', '{"a":1,}', "{'a':1}", '\u0000', '{"a":1e400}', '[', '"unterminated', '{"__proto__":{"x":1}}', ''),
        fc.tuple(json, fc.nat()).map(([j, n]) => j.slice(0, n % Math.max(1, j.length))),
      );
      return { weight: 8, arbitrary: fc.oneof({ weight: 6, arbitrary: json }, { weight: 1, arbitrary: broken }).map((body) => ({ ct, body })) };
    });
    const wrongCt: fc.WeightedArbitrary<Body> = {
      weight: 1,
      arbitrary: fc
        .record({
          ct: fc.constantFrom(
            'text/plain',
            'application/xml',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=b',
            'application/json; charset=utf-16',
            'text/csv',
            'application/json',
            '*/*',
            'garbage',
          ),
          body: fc.oneof(fc.constantFrom('a=1&b=2', '<a/>', '--b--\r\n', '{}', 'x'), oddString),
        })
        // A multipart type over text that is not multipart is a malformed multipart body.
        .map((b): Body => (b.ct.startsWith('multipart/') ? { ...b, kind: 'malformed' } : b)),
    };
    const none: fc.WeightedArbitrary<Body> = { weight: declared.length ? 1 : 6, arbitrary: fc.constant({}) };
    return fc.oneof(...declared, wrongCt, none);
  }

  function requestOf(o: Op): fc.Arbitrary<Req> {
    const pathParams = o.params.filter((p) => p.in === 'path');
    return fc
      .record({
        caller: fc.constantFrom<Caller>('owner', 'owner', 'stranger', 'forged token', 'anonymous'),
        path: fc.tuple(...pathParams.map((p) => pathParam(o, p))),
        query: queryOf(
          o,
          o.params.filter((p) => p.in === 'query'),
        ),
        headers: headersOf(o.params.filter((p) => p.in === 'header')),
        body: bodyOf(o),
      })
      .map(({ caller, path, query, headers, body }) => {
        let i = 0;
        const url = o.path.replace(/\{[^}]+\}/g, () => path[i++] ?? '') + (query.length ? `?${query.join('&')}` : '');
        return {
          caller,
          method: o.method,
          url,
          headers: { ...headers, ...(body.ct !== undefined ? { 'content-type': body.ct } : {}) },
          ...(body.body !== undefined ? { body: body.body } : {}),
          ...(body.kind ? { multipart: body.kind } : {}),
        };
      });
  }

  // ---- sending and judging ----

  async function send(o: Op, r: Req): Promise<{ status: number; type: string; body: string }> {
    const auth: Record<string, string> = {};
    if (r.caller === 'owner' || r.caller === 'stranger') auth.authorization = `Bearer ${await tokenOf(r.caller)}`;
    if (r.caller === 'forged token') auth.authorization = `Bearer ${forged}`;
    const options = {
      method: r.method as 'GET',
      url: r.url,
      headers: { ...r.headers, ...auth },
      ...(r.body !== undefined ? { payload: r.body } : {}),
    };
    let res: LightMyRequestResponse;
    let body: string;
    if (o.streams) {
      res = await ta.app.inject({ ...options, payloadAsStream: true });
      const stream = res.stream();
      if (String(res.headers['content-type']).startsWith('text/event-stream')) {
        stream.destroy();
        body = '';
      } else {
        const chunks: Buffer[] = [];
        for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
        body = Buffer.concat(chunks).toString('utf8');
      }
    } else {
      res = await ta.app.inject(options);
      body = res.body;
    }
    // Logout, a password change and the like end the session: the next request as that caller gets a new one.
    if (res.statusCode === 401 && (r.caller === 'owner' || r.caller === 'stranger')) delete tokens[r.caller];
    if (o.method === 'DELETE' && res.statusCode < 300) stale = true;
    return { status: res.statusCode, type: String(res.headers['content-type'] ?? ''), body };
  }

  /** Why the answer breaks a property, or undefined when it holds. */
  function judge(res: { status: number; type: string; body: string }): string | undefined {
    if (res.status >= 500) return `answered ${res.status}`;
    if (res.status < 400) return undefined;
    if (!/^application\/problem\+json\b/.test(res.type)) return `a ${res.status} refusal is ${res.type || 'untyped'}, not application/problem+json`;
    let p: Record<string, unknown>;
    try {
      p = JSON.parse(res.body) as Record<string, unknown>;
    } catch {
      return `a ${res.status} refusal's body is not JSON`;
    }
    if (p.status !== res.status) return `problem status ${String(p.status)} ≠ ${res.status}`;
    if (typeof p.code !== 'string' || !codes.has(p.code)) return `problem code ${JSON.stringify(p.code)} is not in the closed list`;
    if (p.type !== `urn:showsuite:problem:${p.code}`) return `problem type ${JSON.stringify(p.type)} does not name its code`;
    if (typeof p.title !== 'string' || !p.title) return 'problem has no title';
    if (typeof p.detail !== 'string') return 'problem has no detail';
    return undefined;
  }

  const describeReq = (r: Req) => {
    const body = r.body === undefined ? '' : Buffer.isBuffer(r.body) ? r.body.toString('latin1') : r.body;
    return JSON.stringify({
      ...r,
      body: body.length > 600 ? `${body.slice(0, 600)}… (${body.length} chars)` : body,
      url: r.url.length > 600 ? `${r.url.slice(0, 600)}…` : r.url,
    });
  };

  let stale = true;
  let sent = 0;
  const failures: string[] = [];
  const succeeded = new Set<string>();
  for (const o of selected) {
    const name = `${o.method} ${o.path}`;
    await t.test(name, async () => {
      if (stale) {
        fixture = await seed();
        stale = false;
      }
      const details = await fc.check(
        fc.asyncProperty(requestOf(o), async (r) => {
          sent++;
          const res = await send(o, r);
          if (res.status < 400) succeeded.add(name);
          const why = judge(res);
          if (why) throw new Error(why);
          return true;
        }),
        // Each operation its own stream, all from the one seed: FUZZ_OP narrows a run without changing what is sent.
        { seed: SEED + ops.indexOf(o) * 7919, numRuns: RUNS, endOnFailure: false },
      );
      if (details.failed) {
        const req = details.counterexample?.[0];
        const message =
          `${name}: ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}\n` +
          `  shrunk request: ${req ? describeReq(req) : '?'}\n` +
          `  replay: FUZZ_SEED=${SEED} FUZZ_OP='${name}' (after ${details.numRuns} runs, ${details.numShrinks} shrinks; fast-check path ${details.counterexamplePath})`;
        failures.push(message);
        // A failing request can leave the fixture half-changed; start the next operation on a fresh one.
        stale = true;
        assert.fail(message);
      }
    });
  }
  t.diagnostic(`fuzz seed ${SEED}: ${sent} requests, ${failures.length} operations failing`);
  // Where the generated requests never got past validation or access, the fuzzer reaches only the refusals: worth knowing.
  const refusedOnly = selected.map((o) => `${o.method} ${o.path}`).filter((n) => !succeeded.has(n));
  if (refusedOnly.length) t.diagnostic(`fuzz: no request succeeded on ${refusedOnly.join(', ')}`);
  assert.deepEqual(failures, [], `fuzz seed ${SEED}`);
}

/** Stores one small picture so the file route has a name that exists. */
async function upload(ta: TestApp, auth: Record<string, string>): Promise<string> {
  const b = '----seed';
  const body = Buffer.concat([
    Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="file"; filename="p.png"\r\nContent-Type: image/png\r\n\r\n`),
    PNG,
    Buffer.from(`\r\n--${b}--\r\n`),
  ]);
  const res = await ta.app.inject({ method: 'POST', url: '/media', headers: { ...auth, 'content-type': `multipart/form-data; boundary=${b}` }, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return (res.json() as { url: string }).url.split('/').pop()!;
}
