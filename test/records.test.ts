import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { newObjectId } from '../src/lib/object-id.ts';
import { insertFloor } from '../src/modules/floors/floors.repo.ts';
import { PROJECT_RECORD_SQL, toProject } from '../src/modules/projects/projects.record.ts';
import { findProject, insertProject, type ProjectInsert } from '../src/modules/projects/projects.repo.ts';
import { PROJECT_SECRETS } from '../src/modules/projects/projects.schemas.ts';
import { insertUnit, type NewUnit } from '../src/modules/units/unit-writes.repo.ts';
import { toUnit, unitJson } from '../src/modules/units/units.record.ts';
import { holdExpired, holdLapsedSql, holdLive, holdLiveSql, stillHeld, stillHeldSql } from '../src/modules/holds/hold-rules.ts';
import { findUnit, findUnitDocument } from '../src/modules/units/units.repo.ts';
import { createUser, ENGINE, openTestDb, type TestDb } from './helpers.ts';

/**
 * Each record's two renderings (src/modules/<m>/<m>.record.ts): the object the service serialises and the JSON text
 * completed from PostgreSQL's own (the hot reads), for stored documents holding every kind of JSON value. They must
 * be the same JSON value with the keys in the same order, and rendering must leave the row it reads as it was.
 */

/** A stored document with every kind of JSON value, and keys jsonb reorders (by length, then bytes). */
const DOCUMENT: Record<string, unknown> = {
  plain: 'plain text',
  quotes: `say "hi" and 'bye'`,
  backslashes: 'C:\\path\\to\\file \\" \\n \\u0041',
  unicode: 'ümlaut 海 Ωmega ﬁ',
  emoji: '🏠 🔑 👨‍👩‍👧 🇨🇦',
  control: 'tab\there\nnew line\r\u0001\u001f\u007f \u2028 \u2029 </script>',
  zero: 0,
  integer: 42,
  negative: -17,
  decimal: 1234567.5,
  negativeDecimal: -0.125,
  inexact: 0.1 + 0.2,
  large: 9007199254740991,
  huge: 1e21,
  tiny: 1.5e-7,
  yes: true,
  no: false,
  nothing: null,
  nested: { a: { b: { c: [1, 'two', null, false, { d: 'deep "x"' }] } } },
  list: [1, 2.25, 'x', null, true, [], {}, [[]]],
  emptyObject: {},
  emptyArray: [],
  '10': 'an integer-like key (JSON.parse puts it first)',
  '2': 'another',
  'key with "quotes" and \\': 'v',
  ключ: 'a key in Cyrillic',
};

const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const HOUR = 3_600_000;

let t: TestDb;
let userId: string;

before(async () => {
  t = await openTestDb();
  userId = (await createUser(t.db)).id;
});
after(() => t.drop());

/** Freezes a value and everything in it, so a rendering that writes to its input throws. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** The same JSON value, keys in the same order: the object's serialisation against the text parsed and written again. */
function assertSameRecord(text: string, record: Record<string, unknown>, label: string) {
  assert.equal(JSON.stringify(JSON.parse(text)), JSON.stringify(record), label);
}

/** Renders a frozen copy of `row` and checks the copy is unchanged (and that rendering did not throw on it). */
function renderFrozen<R>(row: R, render: (row: R) => Record<string, unknown>): Record<string, unknown> {
  const before = JSON.stringify(row);
  const out = render(deepFreeze(row));
  assert.equal(JSON.stringify(row), before, 'the row is left as it was');
  assert.ok(!Object.isFrozen(out), 'the record is a new object');
  return out;
}

/** A project row with nothing optional set; the owner is made in `before`, after the fixtures are written, so each use gives it. */
const base = (over: Partial<ProjectInsert>): Omit<ProjectInsert, 'userId'> => ({
  id: newObjectId(),
  name: 'Tower',
  namespace: null,
  hostName: null,
  projectType: null,
  administrators: [],
  editors: [],
  data: {},
  secrets: {},
  ...over,
});

describe(`project records (${ENGINE})`, () => {
  const FIXTURES: [label: string, project: Omit<ProjectInsert, 'userId'>, floors: number][] = [
    ['an empty document, optional columns absent, no secrets, no floors', base({}), 0],
    [
      'every kind of value, optional columns present, secrets with allocation passwords, floors',
      base({
        name: 'Tower "A" \\ ü 🏠 \u0001',
        namespace: `ns-${newObjectId()}`,
        hostName: 'tower.example',
        projectType: 'condo',
        administrators: [newObjectId()],
        editors: [newObjectId(), newObjectId()],
        data: DOCUMENT,
        secrets: {
          ftpPassword: 'sealed',
          sfKey: 'sealed',
          'allocation:Broker "A"': 'sealed',
          'allocation:Broker \u{1D538}': 'sealed',
          'allocation:Broker \uFF21': 'sealed',
        },
      }),
      2,
    ],
    [
      "a document that carries the record's own keys and a secret: neither rendering shows them",
      base({
        data: { before: 1, name: 'stored name', floors: ['x'], configuredSecrets: ['x'], [PROJECT_SECRETS[0]]: 'plain', after: 2 },
        secrets: { calKey: 's' },
      }),
      1,
    ],
  ];

  for (const [label, project, floors] of FIXTURES) {
    test(`toProject and PROJECT_RECORD_SQL give the same record: ${label}`, async () => {
      await insertProject(t.db.kysely, { ...project, userId });
      if (floors) {
        const rows = Array.from({ length: floors }, (_, i) => ({ id: newObjectId(), projectId: project.id, name: `F${i}`, position: floors - i, data: {} }));
        await insertFloor(t.db.kysely, rows);
      }
      const row = await findProject(t.db.kysely, project.id);
      assert.ok(row);
      const { item } = await t.db.kysely
        .selectFrom('projects as p')
        .select(sql<string>`${sql.raw(PROJECT_RECORD_SQL)}`.as('item'))
        .where('p.id', '=', project.id)
        .executeTakeFirstOrThrow();
      const record = renderFrozen(row, toProject);
      assertSameRecord(item, record, label);
      assert.equal((record.floors as string[]).length, floors);
      for (const key of ['name', 'floors', 'configuredSecrets']) assert.notDeepEqual(record[key], ['x'], `${key} is the record's`);
      assert.ok(!(PROJECT_SECRETS[0] in record), 'a secret never shows');
    });
  }
});

describe(`unit records (${ENGINE})`, () => {
  let projectId: string;
  let floorId: string;
  before(async () => {
    projectId = newObjectId();
    floorId = newObjectId();
    await insertProject(t.db.kysely, { ...base({ id: projectId, name: 'Units' }), userId });
    await insertFloor(t.db.kysely, { id: floorId, projectId, name: 'F', position: 0, data: {} });
  });

  const unit = (over: Partial<NewUnit>): Omit<NewUnit, 'id' | 'projectId'> => ({
    floorId: null,
    name: 'U',
    position: 0,
    availability: 'available',
    onHoldExpiresAt: null,
    data: DOCUMENT,
    ...over,
  });
  const iso = (ms: number) => new Date(ms).toISOString();

  const FIXTURES: [label: string, unit: Omit<NewUnit, 'id' | 'projectId'>, shows: { availability: string; onHoldExpiresAt?: string }][] = [
    ['no hold, no floor, an empty document', unit({ data: {} }), { availability: 'available' }],
    [
      'no hold, on a floor, every kind of value',
      unit({ name: 'Unit "A" \\ ü 🏠 \u0001', position: -2.5, floorId: 'floor', availability: 'sold' }),
      { availability: 'sold' },
    ],
    [
      'a live hold',
      unit({ availability: 'on_hold', onHoldExpiresAt: iso(NOW + HOUR), floorId: 'floor' }),
      { availability: 'on_hold', onHoldExpiresAt: iso(NOW + HOUR) },
    ],
    [
      'a lapsed hold (reads as available, no expiry)',
      unit({ availability: 'on_hold', onHoldExpiresAt: iso(NOW - HOUR), position: 1e9 }),
      { availability: 'available' },
    ],
    [
      "a document that carries the record's own keys: neither rendering shows them",
      unit({ data: { before: 1, name: 'stored', floor: 'stale', onHoldExpiresAt: iso(NOW), availability: 'sold', after: 2 } }),
      { availability: 'available' },
    ],
  ];

  for (const [label, fixture, shows] of FIXTURES) {
    test(`toUnit and unitJson give the same record: ${label}`, async () => {
      const id = newObjectId();
      await insertUnit(t.db.kysely, { ...fixture, id, projectId, floorId: fixture.floorId === 'floor' ? floorId : null });
      const row = await findUnit(t.db.kysely, id);
      const doc = await findUnitDocument(t.db.kysely, id);
      assert.ok(row && doc);
      const record = renderFrozen(row, (r) => toUnit(r, NOW));
      assertSameRecord(unitJson(deepFreeze(doc), NOW), record, label);
      assert.equal(record.availability, shows.availability);
      assert.equal(record.onHoldExpiresAt, shows.onHoldExpiresAt);
      assert.equal(record.name, fixture.name);
      assert.equal(record.floor, fixture.floorId === 'floor' ? floorId : undefined);
    });
  }
});

describe(`the hold rules, in TypeScript and in SQL (${ENGINE})`, () => {
  const HOLD = newObjectId();
  const EXPIRIES: [label: string, at: Date | null][] = [
    ['past', new Date(NOW - HOUR)],
    ['now', new Date(NOW)],
    ['future', new Date(NOW + HOUR)],
    ['none', null],
  ];
  const HOLDERS: [label: string, heldBy: string | null][] = [
    ['held by the hold', HOLD],
    ['held by another', newObjectId()],
    ['no holder', null],
  ];

  // Each twin pair gives one answer for every case; SQL's NULL (no expiry) counts as false, as a WHERE takes it.
  for (const availability of ['on_hold', 'available', 'reserved']) {
    for (const [expiryLabel, expiry] of EXPIRIES) {
      for (const [holderLabel, heldBy] of HOLDERS) {
        const label = `${availability}, expiry ${expiryLabel}, ${holderLabel}`;
        test(`holdLive, holdExpired and stillHeld answer as their SQL twins: ${label}`, async () => {
          const row = { availability, on_hold_expires_at: expiry, held_by: heldBy };
          const { rows } = await sql<{ live: boolean | null; lapsed: boolean | null; held: boolean | null }>`
            select ${holdLiveSql(NOW, 'u')} as live, ${holdLapsedSql(NOW, 'u')} as lapsed, ${stillHeldSql(HOLD, NOW, 'u')} as held
            from (select ${availability}::text as availability, ${expiry}::timestamptz as on_hold_expires_at, ${heldBy}::text as held_by) u`.execute(
            t.db.kysely,
          );
          const inSql = rows[0];
          assert.ok(inSql);
          assert.equal(holdLive(row, NOW), inSql.live === true, 'holdLive');
          assert.equal(holdExpired(row, NOW), inSql.lapsed === true, 'holdExpired');
          assert.equal(stillHeld(row, HOLD, NOW), inSql.held === true, 'stillHeld');
        });
      }
    }
  }
});
