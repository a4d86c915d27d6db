import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { caller, createProject, createUnit, useOwnerApp, userWithToken, type Caller, type OwnerApp } from './helpers.ts';

/**
 * Fields that run code on a project's page or send its data somewhere are changed by the owner and administrators
 * only; an editor's real change is 403, the stored value sent back is not a change. Each field in a pair: the
 * administrator can, the editor cannot (and may send it back unchanged).
 */
let f: OwnerApp;
useOwnerApp({}, (fixture) => (f = fixture));

async function team() {
  const administrator = await userWithToken(f.t);
  const editor = await userWithToken(f.t);
  const p = await createProject(f.t.app, f.owner.auth, { body: { administrators: [administrator.id], editors: [editor.id] } });
  return { p, admin: caller(f.t.app, administrator.auth), editor: caller(f.t.app, editor.auth) };
}

const PROJECT_FIELDS: [field: string, value: unknown][] = [
  ['gtmEnabled', true],
  ['gtmHeadCode', '<script>fetch("/projects")</script>'],
  ['gtmBodyCode', '<noscript>x</noscript>'],
  ['formsSendTo', 'someone@example.com'],
  ['reportSendTo', 'someone@example.com'],
  ['eventsBlockList', '10.0.0.0/8'],
  ['excludeBlockedEvents', true],
  ['ftpUrl', 'sftp://93.184.215.14/feed'],
  ['ftpPath', '/inventory.csv'],
  ['ftpPort', 2222],
  ['ftpMapping', [{ header: 'Suite', property: 'name' }]],
  ['yiStatusMapping', { sold: 'Sold' }],
];

const expectForbidden = (res: { statusCode: number; headers: Record<string, unknown>; json(): any }, field: string) => {
  assert.equal(res.statusCode, 403);
  assert.match(String(res.headers['content-type']), /application\/problem\+json/);
  assert.match(res.json().detail, new RegExp(field));
};

describe('project fields that run code or send data', () => {
  for (const [field, value] of PROJECT_FIELDS) {
    test(`${field}: an administrator changes it; an editor's change is 403, the same value sent back is fine`, async () => {
      const { p, admin, editor } = await team();
      expectForbidden(await editor('PATCH', `/project/${p._id}`, { [field]: value }), field);
      const set = await admin('PATCH', `/project/${p._id}`, { [field]: value });
      assert.equal(set.statusCode, 200, set.body);
      // What the editor's form sends back: the stored value, with a content change beside it.
      const same = await editor('PATCH', `/project/${p._id}`, { [field]: set.json()[field], address: 'new words' });
      assert.equal(same.statusCode, 200, same.body);
      assert.equal(same.json().address, 'new words');
      const fetched = (await editor('GET', `/projects/${p._id}`)).json();
      assert.equal((await editor('PATCH', `/project/${p._id}`, fetched)).statusCode, 200);
    });
  }

  test('the owner changes them all at once', async () => {
    const { p } = await team();
    const res = await f.call('PATCH', `/project/${p._id}`, Object.fromEntries(PROJECT_FIELDS));
    assert.equal(res.statusCode, 200, res.body);
  });
});

describe('unit fields that run code', () => {
  for (const field of ['embedCode', 'customButtonSnippet']) {
    test(`${field}: administrator can, editor 403 on create, PATCH and bulk PATCH; unchanged is fine`, async () => {
      const { p, admin, editor } = await team();
      const code = '<iframe src="https://tour.example.com/1"></iframe>';
      const refused = await editor('POST', `/units?project=${p._id}&name=E1`, { [field]: code });
      expectForbidden(refused, field);
      // Created by an editor with the default: no change.
      assert.equal((await editor('POST', `/units?project=${p._id}&name=E2`, { [field]: '' })).statusCode, 201);
      const u = await createUnit(f.t.app, f.owner.auth, p._id, { name: 'U1' });
      expectForbidden(await editor('PATCH', `/units/${u._id}`, { [field]: code }), field);
      expectForbidden(await editor('PATCH', '/units', [{ _id: u._id, [field]: code }]), field);
      const set = await admin('PATCH', `/units/${u._id}`, { [field]: code });
      assert.equal(set.statusCode, 200, set.body);
      const same = await editor('PATCH', `/units/${u._id}`, { [field]: code, description: 'bright' });
      assert.equal(same.statusCode, 200, same.body);
      assert.equal((await editor('PATCH', '/units', [{ _id: u._id, [field]: code, bedrooms: '2' }])).statusCode, 200);
      assert.equal((await admin('POST', `/units?project=${p._id}&name=A1`, { [field]: code })).statusCode, 201);
    });
  }
});

describe('webhooks', () => {
  const hook = { url: 'https://93.184.215.14/hook', events: ['*'] };
  async function webhookPair(): Promise<{ p: { _id: string }; admin: Caller; editor: Caller; id: string }> {
    const { p, admin, editor } = await team();
    const made = await admin('POST', `/projects/${p._id}/webhooks`, hook);
    assert.equal(made.statusCode, 201, made.body);
    return { p, admin, editor, id: made.json()._id };
  }

  test('an administrator creates, changes and deletes them; an editor gets 403 for each', async () => {
    const { p, admin, editor, id } = await webhookPair();
    assert.equal((await editor('POST', `/projects/${p._id}/webhooks`, hook)).statusCode, 403);
    assert.equal((await editor('PATCH', `/projects/${p._id}/webhooks/${id}`, { events: ['unit.updated'] })).statusCode, 403);
    assert.equal((await editor('DELETE', `/projects/${p._id}/webhooks/${id}`)).statusCode, 403);
    assert.equal((await admin('PATCH', `/projects/${p._id}/webhooks/${id}`, { events: ['unit.updated'] })).statusCode, 200);
    assert.equal((await admin('DELETE', `/projects/${p._id}/webhooks/${id}`)).statusCode, 204);
  });
});
