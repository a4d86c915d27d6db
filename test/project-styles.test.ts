import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STYLE_VALUES } from '../src/modules/projects/projects.schemas.ts';
import { type Caller, createProject, type LoggedIn, type TestApp, useOwnerApp } from './helpers.ts';

/** The style fields (docs/fields.md): each takes one of its documented values or ''; anything else is a 400 naming it. */
let t: TestApp;
let owner: LoggedIn;
let call: Caller;

useOwnerApp({}, (f) => ({ t, owner, call } = f));

const FIELDS = Object.keys(STYLE_VALUES) as (keyof typeof STYLE_VALUES)[];

test('every documented value of every style field is kept and returned; "" clears one', async () => {
  const p = await createProject(t.app, owner.auth);
  for (const field of FIELDS) {
    for (const value of [...STYLE_VALUES[field], '']) {
      const res = await call('PATCH', `/project/${p._id}`, { [field]: value });
      assert.equal(res.statusCode, 200, `${field}=${value}: ${res.body}`);
      assert.equal(res.json()[field], value);
    }
  }
  const listed = (await call('GET', `/projects?filters[name]=${encodeURIComponent(p.name)}`)).json();
  assert.equal(listed.find((x: { _id: string }) => x._id === p._id).styleFont, '');
});

test('any other value → 400 naming the field and listing its values; nothing is stored', async () => {
  const p = await createProject(t.app, owner.auth);
  assert.equal((await call('PATCH', `/project/${p._id}`, { styleShapes: 'square' })).statusCode, 200);
  for (const field of FIELDS) {
    for (const wrong of ['v-' + field, 'ROUNDED', 'Comic Sans MS', 7]) {
      const res = await call('PATCH', `/project/${p._id}`, { [field]: wrong });
      assert.equal(res.statusCode, 400, `${field}=${String(wrong)}`);
      const body = res.json();
      assert.equal(body.code, 'invalid_body');
      assert.deepEqual(
        body.errors.map((e: { path: string }) => e.path),
        [`/${field}`],
      );
      if (typeof wrong === 'string') {
        for (const value of STYLE_VALUES[field]) assert.ok(body.errors[0].message.includes(`"${value}"`), `${field}: ${body.errors[0].message} lists ${value}`);
        assert.match(body.detail, new RegExp(`^${field} must be one of: `));
      }
    }
  }
  assert.equal((await call('GET', `/project/${p._id}`)).json().styleShapes, 'square', 'the earlier value stays');
  // A create with a body is checked the same way.
  const created = await call('POST', '/projects?name=Styled', { styleNavigation: 'floating' });
  assert.equal(created.statusCode, 400);
  assert.equal(created.json().errors[0].path, '/styleNavigation');
});

test("the OpenAPI document lists each style field's values", async () => {
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  for (const field of FIELDS) {
    assert.deepEqual(doc.components.schemas.Project.properties[field].enum, [...STYLE_VALUES[field], ''], field);
  }
});
