import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Principal } from '../../src/http/auth.ts';
import { AppError } from '../../src/http/errors.ts';
import { authorize, can, levelOf, type Action, type Level } from '../../src/modules/shared/access.ts';

/** The permission table of docs/interface.md, written out by hand: who may do what to a project or group. */
const TABLE: Record<Action, Record<Level, boolean>> = {
  read: { owner: true, administrator: true, editor: true },
  edit: { owner: true, administrator: true, editor: true },
  manage: { owner: true, administrator: true, editor: false },
  'delete-child': { owner: true, administrator: true, editor: false },
  'read-leads': { owner: true, administrator: true, editor: false },
  own: { owner: true, administrator: false, editor: false },
};

const user = (id: string, role: Principal['role'] = 'user'): Principal => ({ id, username: `${id}@example.com`, role, sid: 's' });
const record = { user_id: 'owner', administrators: ['admin1'], editors: ['editor1'] };

test('levelOf: owner, administrator, editor by membership; a platform admin acts as owner; a stranger has none', () => {
  assert.equal(levelOf(user('owner'), record), 'owner');
  assert.equal(levelOf(user('admin1'), record), 'administrator');
  assert.equal(levelOf(user('editor1'), record), 'editor');
  assert.equal(levelOf(user('someone', 'admin'), record), 'owner');
  assert.equal(levelOf(user('stranger'), record), undefined);
  assert.equal(levelOf(user('stranger', 'integration'), record), undefined);
});

test('can: every action × level as the table says', () => {
  for (const [action, row] of Object.entries(TABLE) as [Action, Record<Level, boolean>][]) {
    for (const [level, allowed] of Object.entries(row) as [Level, boolean][]) {
      assert.equal(can(level, action), allowed, `${level} ${action}`);
    }
  }
});

test('authorize: allowed → the record and the level; visible but not allowed → 403 forbidden; unseen or absent → 404 naming the kind', () => {
  const who = { owner: user('owner'), administrator: user('admin1'), editor: user('editor1') };
  for (const [action, row] of Object.entries(TABLE) as [Action, Record<Level, boolean>][]) {
    for (const [level, allowed] of Object.entries(row) as [Level, boolean][]) {
      if (allowed) {
        const granted = authorize(who[level], record, action);
        assert.equal(granted.level, level, `${level} ${action}`);
        assert.equal(granted.row, record, `${level} ${action}: the record itself`);
      } else
        assert.throws(
          () => authorize(who[level], record, action),
          (e: unknown) => e instanceof AppError && e.status === 403 && e.code === 'forbidden',
          `${level} ${action}`,
        );
    }
  }
  for (const action of Object.keys(TABLE) as Action[]) {
    assert.throws(
      () => authorize(user('stranger'), record, action, 'Group'),
      (e: unknown) => e instanceof AppError && e.status === 404 && e.detail === 'Group not found',
    );
    assert.throws(
      () => authorize(user('owner'), undefined, action, 'Unit'),
      (e: unknown) => e instanceof AppError && e.status === 404 && e.detail === 'Unit not found',
    );
  }
});
