import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { MAX_DEPTH } from '../src/http/input-guard.ts';
import { newObjectId } from '../src/lib/object-id.ts';
import { startStripe, stripeEnv } from './support/stripe-server.ts';
import { buildTestApp, HIGH_RATE_LIMITS, createFloor, createProject, createUnit, createUser, ENGINE, sessionToken, slug, type TestApp } from './helpers.ts';

/**
 * Every operation of the live OpenAPI document, with every hostile input that has ever given a 500: U+0000 and
 * unpaired surrogates in path segments, query values and body strings, JSON bodies that are not objects,
 * non-finite and out-of-range numbers, deep nesting, `__proto__` / `constructor` keys. Routes added later are in
 * the document, so they are walked too. Nothing may answer 5xx, and every refusal is problem+json.
 */

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; $ref?: string; anyOf?: Schema[]; additionalProperties?: unknown };
interface Parameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  schema?: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
}
interface Op {
  method: string;
  path: string;
  op: Operation;
}

const DEEP = 10_000;
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
/** `%ED%A0%80` is U+D800 (a lone surrogate) in the only form a URL can carry it: not valid UTF-8. */
const LONE_SURROGATE_URL = 'a%ED%A0%80b';

const isProblem = (res: LightMyRequestResponse) => /^application\/problem\+json/.test(String(res.headers['content-type']));

describe(`hostile input on every operation of the OpenAPI document (${ENGINE})`, () => {
  let t: TestApp;
  let adminId: string;
  let doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
  const ids: Record<string, string> = {};
  let namespace: string;
  let sent = 0;

  // Payments on, against the local Stripe server: onboarding and Stripe's webhook answer as in production (without a
  // key they answer 503 payments_off by design, which is no crash).
  let stripe: Awaited<ReturnType<typeof startStripe>> | undefined;

  before(async () => {
    stripe = await startStripe();
    t = await buildTestApp({
      env: {
        ...HIGH_RATE_LIMITS,
        ...stripeEnv(stripe),
      },
    });
    const admin = await createUser(t.db, { role: 'admin' });
    adminId = admin.id;
    const auth = { authorization: `Bearer ${(await sessionToken(t.db, adminId)).token}` };
    namespace = slug();
    const project = await createProject(t.app, auth, { query: { namespace } });
    const floor = await createFloor(t.app, auth, project._id);
    const unit = await createUnit(t.app, auth, project._id, { floor: floor._id });
    Object.assign(ids, { project: project._id, projects: project._id, floors: floor._id, units: unit._id, users: adminId });
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  });
  after(async () => {
    await t.close();
    await stripe?.stop();
  });

  function operations(): Op[] {
    const ops: Op[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) ops.push({ method: method.toUpperCase(), path, op });
    }
    // Deletions last, so the records every other operation names still exist.
    return ops.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
  }

  const resolve = (s: Schema | undefined): Schema | undefined =>
    s?.$ref ? resolve(doc.components.schemas[s.$ref.split('/').pop()!]) : s?.anyOf ? resolve(s.anyOf.find((x) => x.type !== 'null')) : s;
  const typeOf = (s: Schema | undefined) => {
    const r = resolve(s);
    return Array.isArray(r?.type) ? r.type.find((x) => x !== 'null') : r?.type;
  };

  /** A well-formed value for each path parameter: a record that exists where one of that kind does. */
  function pathWith(o: Op, hostile?: { name: string; raw: string }): string {
    return o.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (hostile?.name === name) return hostile.raw;
      if (name === 'namespace') return namespace;
      if (name === 'id') return ids[o.path.split('/').find((seg) => seg && seg !== 'public')!] ?? newObjectId();
      // hookId, deliveryId, inviteId, unitId…: well formed, so the parameter under test is the one refused.
      if (/Id$/.test(name)) return newObjectId();
      if (name === 'token') return 'x'.repeat(32); // an invitation or reset token's shape
      return 'example';
    });
  }

  let token: string | undefined;
  async function send(o: Op, url: string, body?: string): Promise<LightMyRequestResponse> {
    const inject = async () => {
      token ??= (await sessionToken(t.db, adminId)).token;
      return t.app.inject({
        method: o.method as 'GET',
        url,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { payload: body } : {}),
      });
    };
    let res = await inject();
    // An operation such as logout ends the session it was sent with: the next request gets a new one.
    if (res.statusCode === 401) {
      token = undefined;
      res = await inject();
    }
    sent++;
    const what = `${o.method} ${url.slice(0, 120)}${body !== undefined ? ` body ${body.slice(0, 80)}` : ''}`;
    assert.ok(res.statusCode < 500, `${what} → ${res.statusCode} ${res.body.slice(0, 300)}`);
    if (res.statusCode >= 400) {
      assert.ok(isProblem(res), `${what} → ${res.statusCode} is problem+json (${res.headers['content-type']}): ${res.body.slice(0, 200)}`);
      const p = res.json();
      assert.equal(p.status, res.statusCode, what);
      assert.equal(typeof p.code, 'string', what);
    }
    return res;
  }

  /** A 400 whose `errors` name the field (a JSON pointer under `prefix`). */
  function assertNamed(res: LightMyRequestResponse, prefix: string, what: string) {
    assert.equal(res.statusCode, 400, `${what} → ${res.statusCode} ${res.body.slice(0, 300)}`);
    const paths: string[] = (res.json().errors ?? []).map((e: { path: string }) => e.path);
    assert.ok(
      paths.some((p) => p === prefix || p.startsWith(`${prefix}/`)),
      `${what}: errors name ${prefix} (got ${JSON.stringify(paths)})`,
    );
  }

  test('path segments: U+0000, lone surrogates, over-long segments', async () => {
    for (const o of operations()) {
      for (const p of o.op.parameters?.filter((x) => x.in === 'path') ?? []) {
        assertNamed(await send(o, pathWith(o, { name: p.name, raw: 'a%00b' })), `/${p.name}`, `${o.method} ${o.path} ${p.name}=a%00b`);
        assert.equal((await send(o, pathWith(o, { name: p.name, raw: LONE_SURROGATE_URL }))).statusCode, 400);
        assert.equal((await send(o, pathWith(o, { name: p.name, raw: 'x'.repeat(300) }))).statusCode >= 400, true);
      }
    }
  });

  test('query values: U+0000, lone surrogates, non-finite and huge numbers, bracket keys, deep JSON', async () => {
    for (const o of operations()) {
      const base = pathWith(o);
      const query = o.op.parameters?.filter((x) => x.in === 'query') ?? [];
      for (const p of query) {
        const q = (value: string) => `${base}?${p.name}=${value}`;
        const type = typeOf(p.schema);
        // The document names an object's fields in bracket form (`filters[priceMin]`); errors name them as pointers.
        const field = `/${p.name.replace(/\[([^\]]*)\]/g, '/$1')}`;
        assertNamed(await send(o, q('a%00b')), field, `${o.method} ${o.path} ?${p.name}=a%00b`);
        // Undecodable text is named by the query name as sent.
        assertNamed(await send(o, q(LONE_SURROGATE_URL)), `/${p.name}`, `${o.method} ${o.path} ?${p.name}=${LONE_SURROGATE_URL}`);
        // A stream's 200 never ends: a number in one of its text parameters is a well-formed request that would open it.
        const opensStream = o.op.responses?.['200']?.content?.['text/event-stream'] !== undefined && type === 'string';
        for (const n of opensStream ? [] : ['Infinity', '-Infinity', 'NaN', '1e400', '9223372036854775808', '-9223372036854775809']) {
          const res = await send(o, q(n));
          // A double holds 2^63; an integer parameter does not take it exactly, and nothing takes Infinity.
          if (type === 'integer' || (type === 'number' && !/^-?9/.test(n))) assertNamed(res, field, `${o.method} ${o.path} ?${p.name}=${n}`);
        }
      }
      // Each object-valued query (its fields declared as `name[field]`), as bracket keys and as JSON text.
      const objects = new Set(query.map((x) => /^([A-Za-z]+)\[/.exec(x.name)?.[1]).filter((x) => x !== undefined));
      for (const name of objects) {
        for (const key of ['__proto__', 'constructor', 'prototype']) {
          assertNamed(await send(o, `${base}?${name}[${key}]=x`), `/${name}/${key}`, `${o.method} ${o.path} ?${name}[${key}]=x`);
          assertNamed(await send(o, `${base}?${name}=${encodeURIComponent(`{"${key}":{"x":1}}`)}`), `/${name}`, `${o.method} ${o.path} ?${name}={"${key}":…}`);
        }
        assertNamed(await send(o, `${base}?${name}[skip]=a%00b`), `/${name}/skip`, `${o.method} ${o.path} ?${name}[skip]=a%00b`);
        assertNamed(
          await send(o, `${base}?${name}=${encodeURIComponent('{"name":"a\\u0000b"}')}`),
          `/${name}/name`,
          `${o.method} ${o.path} ?${name}={"name":"a\\u0000b"}`,
        );
        assertNamed(
          await send(o, `${base}?${name}=${encodeURIComponent('{"name":"a\\ud800b"}')}`),
          `/${name}/name`,
          `${o.method} ${o.path} ?${name}={"name":"a\\ud800b"}`,
        );
        assertNamed(await send(o, `${base}?${name}=${encodeURIComponent(deepObject(200))}`), `/${name}`, `${o.method} ${o.path} ?${name}=<deep>`);
        for (const n of ['1e400', '9223372036854775808']) {
          for (const field of ['skip', 'limit']) {
            const res = await send(o, `${base}?${name}[${field}]=${n}`);
            if (typeOf(query.find((x) => x.name === `${name}[${field}]`)?.schema) === 'integer')
              assertNamed(res, `/${name}/${field}`, `${o.method} ${o.path} ?${name}[${field}]=${n}`);
          }
        }
      }
      // A name the operation does not declare is ignored or refused, never a fault.
      await send(o, `${base}?zzz=a%00b&${LONE_SURROGATE_URL}=1&x[__proto__]=1`);
    }
  });

  test('bodies: not an object, U+0000 and lone surrogates in every field, non-finite numbers, deep nesting, __proto__ and constructor', async () => {
    let withBody = 0;
    for (const o of operations()) {
      const url = pathWith(o);
      const schema = resolve(o.op.requestBody?.content?.['application/json']?.schema);
      if (!schema) {
        // Operations without a body still survive being sent one.
        for (const body of ['null', '[]', '"x"', deepArray(DEEP)]) await send(o, url, body);
        continue;
      }
      withBody++;
      const what = `${o.method} ${o.path}`;
      for (const body of ['null', '[]', '"text"', '42', 'true', deepArray(DEEP), deepObject(DEEP)]) {
        const res = await send(o, url, body);
        // A route with a small body limit (the page's beacons take 4 KiB) refuses the deep ones by their size first.
        const refused = res.statusCode === 400 || (res.statusCode === 413 && body.length > 4096);
        if (typeOf(schema) === 'object') assert.ok(refused, `${what} body ${body.slice(0, 20)} → ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
      for (const body of ['{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}']) {
        assert.equal((await send(o, url, body)).statusCode, 400, `${what} ${body}`);
      }
      assertNamed(await send(o, url, '{"constructor":1}'), '/constructor', `${what} {"constructor":1}`);
      assertNamed(await send(o, url, '{"prototype":1}'), '/prototype', `${what} {"prototype":1}`);
      assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched');
      for (const [name, prop] of Object.entries(schema.properties ?? {})) {
        const field = `/${name}`;
        assertNamed(await send(o, url, JSON.stringify({ [name]: 'a\u0000b' })), field, `${what} ${name}: U+0000`);
        assertNamed(await send(o, url, `{"${name}":"a\\ud800b"}`), field, `${what} ${name}: lone surrogate`);
        assertNamed(await send(o, url, `{"${name}":"\\udc00"}`), field, `${what} ${name}: lone low surrogate`);
        assertNamed(await send(o, url, `{"${name}":1e400}`), field, `${what} ${name}: 1e400`);
        assertNamed(await send(o, url, `{"${name}":-1e400}`), field, `${what} ${name}: -1e400`);
        const type = typeOf(prop);
        if (type === 'integer') assertNamed(await send(o, url, `{"${name}":9223372036854775808}`), field, `${what} ${name}: 2^63`);
        if (type === 'number') await send(o, url, `{"${name}":1e308}`);
        if (type === 'object' || type === 'array' || type === undefined) {
          const deep = await send(o, url, `{"${name}":${deepArray(DEEP)}}`);
          // 20 kB of brackets: a route with a small body limit refuses it by its size (413), which is bound enough.
          if (deep.statusCode !== 413) assertNamed(deep, field, `${what} ${name}: ${DEEP} deep`);
          assertNamed(await send(o, url, `{"${name}":${deepObject(MAX_DEPTH + 1)}}`), field, `${what} ${name}: ${MAX_DEPTH + 1} deep`);
          assertNamed(await send(o, url, `{"${name}":{"a\\u0000":1}}`), field, `${what} ${name}: key with U+0000`);
          assertNamed(await send(o, url, `{"${name}":{"constructor":{"x":1}}}`), `${field}/constructor`, `${what} ${name}.constructor`);
        }
      }
    }
    assert.ok(withBody >= 10, `walked ${withBody} operations with a body`);
  });

  test('the walk reached every operation', () => {
    assert.ok(operations().length >= 30, `${operations().length} operations`);
    assert.ok(sent > 1000, `${sent} requests sent`);
  });
});
