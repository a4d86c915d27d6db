import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createFloor, createGroup, createProject, createUnit, ENGINE, type LoggedIn, type TestApp, useOwnerApp } from './helpers.ts';

let t: TestApp;
let owner: LoggedIn;

useOwnerApp({ env: { HOLD_SWEEP_SEC: '0', ALLOW_PRIVATE_TARGETS: 'true', OUTBOX_POLL_MS: '0' } }, (f) => ({ t, owner } = f));

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers: { ...owner.auth, ...headers } });

describe(`conditional requests and empty JSON bodies (${ENGINE})`, () => {
  test('If-None-Match naming the current ETag → 304, no body, same ETag, on every single-record GET', async () => {
    const p = await createProject(t.app, owner.auth);
    const floor = await createFloor(t.app, owner.auth, p._id);
    const unit = await createUnit(t.app, owner.auth, p._id, { floor: floor._id });
    const group = await createGroup(t.app, owner.auth);
    const hook = await t.app.inject({
      method: 'POST',
      url: `/projects/${p._id}/webhooks`,
      headers: owner.auth,
      payload: { url: 'http://127.0.0.1:9/', events: ['*'] },
    });
    for (const url of [
      `/project/${p._id}`,
      `/floors/${floor._id}`,
      `/units/${unit._id}`,
      `/groups/${group._id}`,
      '/users/me',
      `/projects/${p._id}/webhooks/${hook.json()._id}`,
    ]) {
      const first = await get(url);
      assert.equal(first.statusCode, 200, `${url}: ${first.body}`);
      const etag = String(first.headers.etag);
      assert.match(etag, /^"\d+"$/, url);
      for (const sent of [etag, `W/${etag}`, `"999999", ${etag}`, '*']) {
        const again = await get(url, { 'if-none-match': sent });
        assert.equal(again.statusCode, 304, `${url} with ${sent}`);
        assert.equal(again.body, '', url);
        assert.equal(again.headers.etag, etag, url);
        assert.equal(again.headers['content-length'], undefined, url);
      }
      const other = await get(url, { 'if-none-match': '"999999"' });
      assert.equal(other.statusCode, 200, url);
      assert.deepEqual(other.json(), first.json(), url);
    }
    // After a change the old ETag no longer matches.
    const changed = await t.app.inject({ method: 'PATCH', url: `/units/${unit._id}`, headers: owner.auth, payload: { name: 'Renamed' } });
    const stale = await get(`/units/${unit._id}`, { 'if-none-match': '"1"' });
    assert.equal(stale.statusCode, 200);
    assert.equal(stale.headers.etag, changed.headers.etag);
  });

  test('an empty body with Content-Type: application/json is no body; a malformed one is still 400 invalid_json', async () => {
    const json = { ...owner.auth, 'content-type': 'application/json' };
    const project = await t.app.inject({ method: 'POST', url: '/projects?name=Empty%20body', headers: json, payload: '' });
    assert.equal(project.statusCode, 201, project.body);
    assert.equal(project.json().name, 'Empty body');
    const id = project.json()._id as string;
    const floor = await t.app.inject({ method: 'POST', url: `/floors?project=${id}&name=L1`, headers: json, payload: '' });
    assert.equal(floor.statusCode, 201, floor.body);
    const unit = await t.app.inject({ method: 'POST', url: `/units?project=${id}&name=U1&floor=${floor.json()._id}`, headers: json, payload: '' });
    assert.equal(unit.statusCode, 201, unit.body);
    const group = await t.app.inject({
      method: 'POST',
      url: '/groups?name=G',
      headers: { ...json, 'content-type': 'application/json; charset=utf-8' },
      payload: '',
    });
    assert.equal(group.statusCode, 201, group.body);
    const patched = await t.app.inject({ method: 'PATCH', url: `/units/${unit.json()._id}`, headers: json, payload: '' });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().__v, unit.json().__v, 'nothing changed');

    for (const payload of ['{', ' ', 'null x', '{"name":']) {
      const bad = await t.app.inject({ method: 'POST', url: '/projects?name=Bad', headers: json, payload });
      assert.equal(bad.statusCode, 400, JSON.stringify(payload));
      assert.equal(bad.json().code, 'invalid_json', JSON.stringify(payload));
    }
    const poisoned = await t.app.inject({ method: 'POST', url: '/projects?name=Bad', headers: json, payload: '{"__proto__":{"x":1}}' });
    assert.equal(poisoned.statusCode, 400);
    // A create whose body is required still names its missing fields.
    const hook = await t.app.inject({ method: 'POST', url: `/projects/${id}/webhooks`, headers: json, payload: '' });
    assert.equal(hook.statusCode, 400);
    assert.equal(hook.json().code, 'invalid_body');
  });

  test('the document: 304 and If-None-Match on single-record GETs, no If-Match header on the bulk PATCH /units, Idempotency-Key on webhook creates', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const names = (op: any) => (op.parameters ?? []).map((p: any) => (p.$ref ? String(p.$ref).split('/').pop() : p.name));
    for (const path of ['/project/{id}', '/floors/{id}', '/units/{id}', '/groups/{id}', '/users/me', '/projects/{id}/webhooks/{hookId}']) {
      const op = doc.paths[path].get;
      assert.ok(op.responses['304'], `${path} documents 304`);
      assert.ok(op.responses['304'].headers.ETag, `${path} 304 carries the ETag`);
      assert.ok(names(op).includes('IfNoneMatch'), `${path} takes If-None-Match`);
    }
    assert.ok(!names(doc.paths['/units'].patch).includes('IfMatch'), 'bulk PATCH: each item’s ifMatch, no header');
    for (const m of ['patch', 'delete']) assert.ok(names(doc.paths['/projects/{id}/webhooks/{hookId}'][m]).includes('IfMatch'), m);
    const create = doc.paths['/projects/{id}/webhooks'].post;
    assert.ok(names(create).includes('IdempotencyKey'));
    assert.ok(create.responses['201'].headers.ETag);
    assert.ok(doc.components.schemas.Webhook.properties.__v);
  });
});
