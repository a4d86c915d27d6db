import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../src/lib/object-id.ts';
import { createProject, createUnit, slug, useOwnerApp, userWithToken, type OwnerApp } from './helpers.ts';

/** A reference list holds only the caller's own records: `commercialSpaces` only units of the same project. */
let f: OwnerApp;
useOwnerApp({}, (fixture) => (f = fixture));

test("commercialSpaces: the project's own units → 200 and in the bundle; another project's unit (another owner's too) or no unit → 400 naming each", async () => {
  const namespace = slug();
  const p = await createProject(f.t.app, f.owner.auth, { query: { namespace } });
  const shop = await createUnit(f.t.app, f.owner.auth, p._id, { name: 'Shop 1' });
  const mine = await createProject(f.t.app, f.owner.auth);
  const myOther = await createUnit(f.t.app, f.owner.auth, mine._id, { name: 'Elsewhere' });
  const stranger = await userWithToken(f.t);
  const theirs = await createProject(f.t.app, stranger.auth);
  const theirUnit = await createUnit(f.t.app, stranger.auth, theirs._id, { name: 'Not yours' });

  const refused = await f.call('PATCH', `/project/${p._id}`, { commercialSpaces: [shop._id, theirUnit._id, myOther._id, newObjectId()] });
  assert.equal(refused.statusCode, 400);
  assert.match(String(refused.headers['content-type']), /application\/problem\+json/);
  assert.deepEqual(
    refused.json().errors.map((e: { path: string }) => e.path),
    ['/commercialSpaces/1', '/commercialSpaces/2', '/commercialSpaces/3'],
  );
  assert.match(refused.json().detail, /commercialSpaces/);

  const ok = await f.call('PATCH', `/project/${p._id}`, { commercialSpaces: [shop._id] });
  assert.equal(ok.statusCode, 200, ok.body);
  const bundle = (await f.t.app.inject({ method: 'GET', url: `/public/projects/${namespace}` })).json();
  assert.deepEqual(bundle.project.commercialSpaces, [shop._id]);
  assert.ok(!JSON.stringify(bundle).includes(theirUnit._id));

  // On create there are no units yet: any id is someone else's.
  const created = await f.call('POST', `/projects?name=${slug()}`, { commercialSpaces: [theirUnit._id] });
  assert.equal(created.statusCode, 400);
  assert.equal(created.json().errors[0].path, '/commercialSpaces/0');
  // Sent back unchanged, and emptied: fine.
  assert.equal((await f.call('PATCH', `/project/${p._id}`, { commercialSpaces: [shop._id] })).statusCode, 200);
  assert.equal((await f.call('PATCH', `/project/${p._id}`, { commercialSpaces: [] })).statusCode, 200);
});
