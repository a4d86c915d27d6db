import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../src/lib/object-id.ts';
import { FloorPatchSchema, FloorSchema } from '../src/modules/floors/floors.schemas.ts';
import { UnitPatchSchema, UnitSchema } from '../src/modules/units/units.schemas.ts';
import {
  type Caller,
  createFloor,
  createProject,
  createUnit,
  type FieldSchema,
  type LoggedIn,
  schemaType,
  type TestApp,
  TestClock,
  useOwnerApp,
  wrongValueFor,
} from './helpers.ts';

/**
 * Floors and units: every spec field with its type, the operations at the spec's paths, the reference arrays the
 * server keeps (`project.floors`, `floor.units`) and their ETags, availability and lapsed holds, deletes.
 */
let t: TestApp;
let owner: LoggedIn;
let call: Caller;
const clock = new TestClock();

useOwnerApp({ clock }, (f) => ({ t, owner, call } = f));

const paths = (res: { json(): any }) => (res.json().errors ?? []).map((e: { path: string }) => e.path).sort();
const ids = (res: { json(): any }) => res.json().map((x: { _id: string }) => x._id);
const etagOf = async (url: string) => String((await call('GET', url)).headers.etag);

type JsonType = 'string' | 'number' | 'boolean' | 'array' | 'object';
/** The interface's Floor and Unit tables, by hand. */
const SPEC_FLOOR: Record<string, JsonType> = {
  _id: 'string',
  project: 'string',
  units: 'array',
  name: 'string',
  position: 'number',
  floorplanUrl: 'string',
  path: 'string',
  alternativePaths: 'array',
};
const SPEC_UNIT: Record<string, JsonType> = {
  _id: 'string',
  floor: 'string',
  name: 'string',
  bedrooms: 'string',
  squareFeet: 'number',
  isFeatured: 'boolean',
  price: 'number',
  unitPriceTBD: 'boolean',
  type: 'string',
  specificType: 'string',
  availability: 'string',
  path: 'string',
  lotPath: 'string',
  unitImageUrl: 'string',
  onHoldExpiresAt: 'string',
  layoutUrl: 'string',
  layoutGallery: 'array',
  downloadableAsset: 'string',
  brochurePDF: 'string',
  additionalInfo: 'array',
  embedCode: 'string',
  customButtonUrl: 'string',
  customButtonSnippet: 'string',
  payableAmount: 'number',
  images: 'array',
  clonedImages: 'array',
  customFinishes: 'object',
  finishes: 'array',
  clonedFinishes: 'array',
  parking: 'number',
  bathrooms: 'number',
  orientation: 'string',
  inclusions: 'string',
  deliveryDate: 'string',
  description: 'string',
  unitmodels: 'array',
  lon: 'number',
  lat: 'number',
  perimeter: 'string',
  svgLotId: 'string',
  // Units also carry their project and position.
  project: 'string',
  position: 'number',
};

type S = FieldSchema;
const jsonType = schemaType;
const wrongFor = wrongValueFor;

function checkSpec(spec: Record<string, JsonType>, out: Record<string, S>, input: Record<string, S>, what: string) {
  for (const [name, type] of Object.entries(spec)) {
    assert.ok(out[name], `${what} response schema has ${name}`);
    assert.equal(jsonType(out[name]!), type, `${what}.${name} is ${type}`);
    assert.ok(input[name], `${what} PATCH schema has ${name}`);
    assert.equal(jsonType(input[name]!), type, `${what}.${name} is ${type} in a PATCH`);
  }
}

describe('fields', () => {
  test("every Floor and Unit field of the interface is in the schemas with the spec's type", () => {
    checkSpec(SPEC_FLOOR, FloorSchema.properties as Record<string, S>, FloorPatchSchema.properties as Record<string, S>, 'Floor');
    checkSpec(SPEC_UNIT, UnitSchema.properties as Record<string, S>, UnitPatchSchema.properties as Record<string, S>, 'Unit');
  });

  test('a unit PATCH with a value for every field reads back with every value', async () => {
    const p = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id);
    const u = await createUnit(t.app, owner.auth, p._id);
    const body = {
      floor: f._id,
      name: 'Penthouse',
      position: 4.5,
      bedrooms: '3+den',
      squareFeet: 1234.5,
      isFeatured: true,
      price: 999000,
      unitPriceTBD: true,
      type: 'Apartment',
      specificType: 'parking',
      availability: 'reserved',
      path: 'M0 0L1 1',
      lotPath: 'M1 1',
      unitImageUrl: 'https://x.example/u.png',
      layoutUrl: 'https://x.example/l.png',
      layoutGallery: ['g1.png', 'g2.png'],
      downloadableAsset: 'https://x.example/a.zip',
      brochurePDF: 'https://x.example/b.pdf',
      additionalInfo: [{ label: 'View', value: 'Sea' }],
      embedCode: '<iframe></iframe>',
      customButtonUrl: 'https://x.example/c',
      customButtonSnippet: '<b>c</b>',
      payableAmount: 5000,
      images: ['i1.png'],
      clonedImages: ['c1.png', 'c2.png'],
      customFinishes: {
        type: {
          name: 'Finishes',
          options: { kitchen: { tabs: [{ label: 'Oak', cover: 'c.jpg', thumbnail: 't.jpg' }] }, bathroom: { tabs: [] }, general: { tabs: [] } },
        },
        default: { kitchen: 'Oak' },
      },
      finishes: ['oak'],
      clonedFinishes: ['marble'],
      parking: 2,
      bathrooms: 2.5,
      orientation: 'South',
      inclusions: 'Fridge',
      deliveryDate: '2027-Q3',
      description: 'Top floor',
      unitmodels: ['m1'],
      lon: -73.5,
      lat: 45.5,
      perimeter: '0,0 1,1 0,1',
      svgLotId: 'lot-9',
    };
    for (const name of Object.keys(SPEC_UNIT)) {
      if (!['_id', 'project', 'onHoldExpiresAt'].includes(name)) assert.ok(name in body, `body has ${name}`);
    }
    // Everything the schema accepts is in the body too (so a field added to the schema gets a round trip).
    const kept = new Set(['_id', '__v', 'createdAt', 'updatedAt', 'project', 'onHoldExpiresAt']);
    for (const k of Object.keys(UnitPatchSchema.properties)) if (!kept.has(k)) assert.ok(k in body, `round trip covers ${k}`);
    const res = await call('PATCH', `/units/${u._id}`, body);
    assert.equal(res.statusCode, 200, res.body);
    const got = (await call('GET', `/units/${u._id}`)).json();
    for (const [k, v] of Object.entries(body)) {
      assert.deepEqual(res.json()[k], v, `PATCH result ${k}`);
      assert.deepEqual(got[k], v, `GET ${k}`);
    }
    assert.equal(got.project, p._id);
    for (const k of Object.keys(got)) assert.ok(k in UnitSchema.properties, `response key ${k} is declared`);
  });

  test('a floor PATCH with a value for every field reads back with every value', async () => {
    const p = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id);
    const body = { name: 'Mezzanine', position: 1.5, floorplanUrl: 'https://x.example/f.png', path: 'M0 0H10V10Z', alternativePaths: ['M1 1', 'M2 2'] };
    const kept = new Set(['_id', '__v', 'createdAt', 'updatedAt', 'project', 'units']);
    for (const k of Object.keys(FloorPatchSchema.properties)) if (!kept.has(k)) assert.ok(k in body, `round trip covers ${k}`);
    const res = await call('PATCH', `/floors/${f._id}`, body);
    assert.equal(res.statusCode, 200, res.body);
    const got = (await call('GET', `/floors/${f._id}`)).json();
    for (const [k, v] of Object.entries(body)) {
      assert.deepEqual(res.json()[k], v, `PATCH result ${k}`);
      assert.deepEqual(got[k], v, `GET ${k}`);
    }
    assert.equal(got.project, p._id);
    assert.deepEqual(got.units, []);
  });

  test('a value of the wrong type → 400 naming each field (unit and floor); unknown fields → 400 naming them', async () => {
    const p = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id);
    const u = await createUnit(t.app, owner.auth, p._id);
    for (const [url, schema] of [
      [`/units/${u._id}`, UnitPatchSchema],
      [`/floors/${f._id}`, FloorPatchSchema],
    ] as const) {
      const body: Record<string, unknown> = {};
      for (const [k, s] of Object.entries(schema.properties as Record<string, S>)) {
        const type = jsonType(s);
        if (type) body[k] = wrongFor(type);
      }
      const res = await call('PATCH', url, body);
      assert.equal(res.statusCode, 400, url);
      assert.deepEqual(
        paths(res),
        Object.keys(body)
          .map((k) => `/${k}`)
          .sort(),
        url,
      );
      const unknown = await call('PATCH', url, { name: 'x', nope: 1 });
      assert.equal(unknown.statusCode, 400);
      assert.deepEqual(paths(unknown), ['/nope']);
    }
    for (const [k, v] of Object.entries({
      bedrooms: 2,
      price: '100',
      isFeatured: 1,
      additionalInfo: [{ label: 1 }],
      onHoldExpiresAt: 'tomorrow',
      floor: 'abc',
    })) {
      const res = await call('PATCH', `/units/${u._id}`, { [k]: v });
      assert.equal(res.statusCode, 400, k);
      assert.ok(
        paths(res).every((x: string) => x.startsWith(`/${k}`)),
        `${k}: ${paths(res)}`,
      );
    }
    assert.equal((await call('GET', `/units/${u._id}`)).json().name, u.name, 'nothing written');
  });
});

describe('floors', () => {
  test('POST /floors?project=&name=&position= → 201 with Location and ETag; project.floors and GET /floors list them by position', async () => {
    const p = await createProject(t.app, owner.auth);
    const projectEtag = await etagOf(`/project/${p._id}`);
    const res = await call('POST', `/floors?project=${p._id}&name=Level%202&position=2`);
    assert.equal(res.statusCode, 201, res.body);
    const f2 = res.json();
    assert.equal(res.headers.location, `/floors/${f2._id}`);
    assert.match(String(res.headers.etag), /^"[^"]+"$/);
    assert.equal(f2.name, 'Level 2');
    assert.equal(f2.position, 2);
    assert.equal(f2.project, p._id);
    assert.deepEqual(f2.units, []);
    assert.notEqual(await etagOf(`/project/${p._id}`), projectEtag, "the project's ETag follows its floors");
    const f0 = await createFloor(t.app, owner.auth, p._id, { name: 'Ground', position: 0 });
    const f1 = await createFloor(t.app, owner.auth, p._id, { name: 'Level 1', position: 1 });
    const roof = await createFloor(t.app, owner.auth, p._id, { name: 'Roof' });
    assert.equal(roof.position, 3, 'without a position a floor goes last');
    const order = [f0._id, f1._id, f2._id, roof._id];
    assert.deepEqual((await call('GET', `/project/${p._id}`)).json().floors, order);
    const listed = await call('GET', `/floors?project=${p._id}`);
    assert.equal(listed.statusCode, 200);
    assert.deepEqual(ids(listed), order);
    const one = await call('GET', `/floors/${f1._id}`);
    assert.equal(one.statusCode, 200);
    assert.deepEqual(one.json(), f1);
    assert.match(String(one.headers.etag), /^"[^"]+"$/);
  });

  test('other Floor fields may come in a body (query wins); missing name or project → 400; absent project → 404; bad ids → 400', async () => {
    const p = await createProject(t.app, owner.auth);
    const withBody = await call('POST', `/floors?project=${p._id}&name=Query`, { name: 'Body', floorplanUrl: 'plan.png', alternativePaths: ['M0 0'] });
    assert.equal(withBody.statusCode, 201, withBody.body);
    assert.equal(withBody.json().name, 'Query');
    assert.equal(withBody.json().floorplanUrl, 'plan.png');
    assert.deepEqual(withBody.json().alternativePaths, ['M0 0']);
    const noName = await call('POST', `/floors?project=${p._id}`);
    assert.equal(noName.statusCode, 400);
    assert.deepEqual(paths(noName), ['/name']);
    const noProject = await call('POST', '/floors?name=x');
    assert.equal(noProject.statusCode, 400);
    assert.deepEqual(paths(noProject), ['/project']);
    assert.equal((await call('POST', `/floors?project=${newObjectId()}&name=x`)).statusCode, 404);
    assert.equal((await call('POST', '/floors?project=nope&name=x')).statusCode, 400);
    assert.equal((await call('POST', `/floors?project=${p._id}&name=x&position=high`)).statusCode, 400);
    assert.equal((await call('GET', '/floors')).statusCode, 400, 'GET /floors needs a project');
    assert.equal((await call('GET', `/floors?project=${newObjectId()}`)).statusCode, 404);
    assert.equal((await call('GET', '/floors/not-an-id')).statusCode, 400);
    assert.equal((await call('GET', `/floors/${newObjectId()}`)).statusCode, 404);
    assert.equal((await call('PATCH', `/floors/${newObjectId()}`, { name: 'x' })).statusCode, 404);
    assert.equal((await call('DELETE', `/floors/${newObjectId()}`)).statusCode, 404);
  });

  test("PATCH /floors/{id}: only sent fields change; a new position moves it in project.floors and changes the project's ETag", async () => {
    const p = await createProject(t.app, owner.auth);
    const a = await createFloor(t.app, owner.auth, p._id, { name: 'A', position: 1, body: { path: 'M0 0' } });
    const b = await createFloor(t.app, owner.auth, p._id, { name: 'B', position: 2 });
    const renamed = await call('PATCH', `/floors/${a._id}`, { name: 'A prime' });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(renamed.json().path, 'M0 0');
    assert.equal(renamed.json().position, 1);
    const projectEtag = await etagOf(`/project/${p._id}`);
    const moved = await call('PATCH', `/floors/${a._id}`, { position: 3 });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json().name, 'A prime');
    assert.deepEqual((await call('GET', `/project/${p._id}`)).json().floors, [b._id, a._id]);
    assert.notEqual(await etagOf(`/project/${p._id}`), projectEtag);
    // A floor stays in its project.
    const other = await createProject(t.app, owner.auth);
    const away = await call('PATCH', `/floors/${a._id}`, { project: other._id });
    assert.equal(away.statusCode, 400);
    assert.deepEqual(paths(away), ['/project']);
    assert.equal((await call('PATCH', `/floors/${a._id}`, { project: p._id })).statusCode, 200, 'its own project may be sent back');
  });

  test("PATCH project {floors: reversed} reorders them: GET shows that order and the floors' positions follow", async () => {
    const p = await createProject(t.app, owner.auth);
    const floors: string[] = [];
    for (let i = 0; i < 4; i++) floors.push((await createFloor(t.app, owner.auth, p._id, { name: `F${i}`, position: i * 10 }))._id);
    const floorEtags = await Promise.all(floors.map((id) => etagOf(`/floors/${id}`)));
    const reversed = [...floors].reverse();
    const res = await call('PATCH', `/project/${p._id}`, { floors: reversed });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().floors, reversed);
    assert.deepEqual((await call('GET', `/project/${p._id}`)).json().floors, reversed);
    assert.deepEqual(ids(await call('GET', `/floors?project=${p._id}`)), reversed);
    const positions = await Promise.all(reversed.map(async (id) => (await call('GET', `/floors/${id}`)).json().position as number));
    for (let i = 1; i < positions.length; i++) assert.ok(positions[i - 1]! < positions[i]!, `positions follow the order: ${positions}`);
    for (const [i, id] of floors.entries()) assert.notEqual(await etagOf(`/floors/${id}`), floorEtags[i], 'a floor whose position changed has a new ETag');
  });

  test('project.floors may not gain a foreign, unknown or repeated id → 400 naming it, nothing written', async () => {
    const p = await createProject(t.app, owner.auth);
    const [f1, f2] = [await createFloor(t.app, owner.auth, p._id, { position: 1 }), await createFloor(t.app, owner.auth, p._id, { position: 2 })];
    const other = await createProject(t.app, owner.auth);
    const foreign = await createFloor(t.app, owner.auth, other._id);
    const etag = await etagOf(`/project/${p._id}`);
    const bad = await call('PATCH', `/project/${p._id}`, { floors: [f2._id, foreign._id, f1._id] });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(paths(bad), ['/floors/1']);
    assert.deepEqual(paths(await call('PATCH', `/project/${p._id}`, { floors: [f2._id, newObjectId()] })), ['/floors/1']);
    assert.equal((await call('PATCH', `/project/${p._id}`, { floors: [f2._id, f2._id] })).statusCode, 400);
    assert.equal((await call('PATCH', `/project/${p._id}`, { floors: [f2._id, f1._id], colorBase: '#abcdef' }, { 'if-match': '"0"' })).statusCode, 412);
    const after = await call('GET', `/project/${p._id}`);
    assert.deepEqual(after.json().floors, [f1._id, f2._id]);
    assert.equal(after.headers.etag, etag);
    assert.deepEqual((await call('GET', `/project/${other._id}`)).json().floors, [foreign._id], 'the other project keeps its floor');
  });
});

describe('units', () => {
  test('GET /units/{id} (written from the stored JSON text) is the same record, keys in the same order, as the list item', async () => {
    const p = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id);
    const body = {
      payableAmount: 1234567.5,
      bathrooms: 2,
      bedrooms: '2',
      images: ['https://img.example/a "b".webp', 'https://img.example/海.webp'],
      additionalInfo: [{ label: 'Back\\slash \u2028', value: 'ümlaut, "quoted": yes' }, {}],
      customFinishes: { default: { nested: { deep: [1, 2.25, null, true, 'x'] } } },
    };
    for (const [name, floor] of [
      ['Unit "A" / 1 – ü', f._id],
      ['Bare', undefined],
    ] as const) {
      const u = await createUnit(t.app, owner.auth, p._id, { name, ...(floor ? { floor } : {}), body });
      const one = await call('GET', `/units/${u._id}`);
      assert.equal(one.statusCode, 200);
      assert.equal(one.headers['content-type'], 'application/json; charset=utf-8');
      const list = await call('GET', `/units?project=${p._id}&filters=${encodeURIComponent(JSON.stringify({}))}`);
      const item = list.json().find((x: { _id: string }) => x._id === u._id);
      const record = JSON.parse(one.body);
      assert.deepEqual(record, item);
      assert.deepEqual(Object.keys(record), Object.keys(item));
      assert.equal(one.headers.etag, `"${record.__v}"`);
    }
  });

  test('POST /units?name=&position=&project=&floor= → 201 with Location and ETag; the floor lists it, in position order', async () => {
    const p = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id);
    const floorEtag = await etagOf(`/floors/${f._id}`);
    const res = await call('POST', `/units?name=101&position=2&project=${p._id}&floor=${f._id}`);
    assert.equal(res.statusCode, 201, res.body);
    const u = res.json();
    assert.equal(res.headers.location, `/units/${u._id}`);
    assert.match(String(res.headers.etag), /^"[^"]+"$/);
    assert.equal(u.name, '101');
    assert.equal(u.position, 2);
    assert.equal(u.project, p._id);
    assert.equal(u.floor, f._id);
    assert.equal(u.specificType, 'unit');
    assert.equal(u.availability, 'available');
    assert.equal(u.onHoldExpiresAt, undefined);
    assert.deepEqual((await call('GET', `/floors/${f._id}`)).json().units, [u._id]);
    assert.notEqual(await etagOf(`/floors/${f._id}`), floorEtag, "the floor's ETag follows its units");
    const first = await createUnit(t.app, owner.auth, p._id, { floor: f._id, position: 1 });
    const last = await createUnit(t.app, owner.auth, p._id, { floor: f._id, position: 3 });
    assert.deepEqual((await call('GET', `/floors/${f._id}`)).json().units, [first._id, u._id, last._id]);
    const fetched = await call('GET', `/units/${u._id}`);
    assert.equal(fetched.statusCode, 200);
    assert.deepEqual(fetched.json(), u);
    // Without a floor the unit belongs to the project only.
    const loose = await createUnit(t.app, owner.auth, p._id);
    assert.equal(loose.floor, undefined);
    assert.deepEqual((await call('GET', `/floors/${f._id}`)).json().units, [first._id, u._id, last._id]);
  });

  test('body fields (query wins), specificType kept when given, availability in any case; missing name/project → 400; absent → 404; foreign floor → 400', async () => {
    const p = await createProject(t.app, owner.auth);
    const withBody = await call('POST', `/units?name=Q&position=1&project=${p._id}`, {
      name: 'B',
      specificType: 'parking',
      price: 25000,
      availability: 'RESERVED',
    });
    assert.equal(withBody.statusCode, 201, withBody.body);
    assert.equal(withBody.json().name, 'Q');
    assert.equal(withBody.json().specificType, 'parking');
    assert.equal(withBody.json().price, 25000);
    assert.equal(withBody.json().availability, 'reserved');
    const noName = await call('POST', `/units?position=1&project=${p._id}`);
    assert.equal(noName.statusCode, 400);
    assert.deepEqual(paths(noName), ['/name']);
    const noProject = await call('POST', '/units?name=x&position=1');
    assert.equal(noProject.statusCode, 400);
    assert.deepEqual(paths(noProject), ['/project']);
    assert.equal((await call('POST', `/units?name=x&position=1&project=${newObjectId()}`)).statusCode, 404);
    assert.equal((await call('POST', `/units?name=x&position=1&project=${p._id}`, { availability: 'gone' })).statusCode, 400);
    const other = await createProject(t.app, owner.auth);
    const foreign = await createFloor(t.app, owner.auth, other._id);
    const bad = await call('POST', `/units?name=x&position=1&project=${p._id}&floor=${foreign._id}`);
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(paths(bad), ['/floor']);
    assert.equal((await call('POST', `/units?name=x&position=1&project=${p._id}&floor=${newObjectId()}`)).statusCode, 400);
    assert.deepEqual((await call('GET', `/floors/${foreign._id}`)).json().units, [], 'nothing was added to the foreign floor');
    assert.equal((await call('GET', '/units/not-an-id')).statusCode, 400);
    assert.equal((await call('GET', `/units/${newObjectId()}`)).statusCode, 404);
    assert.equal((await call('PATCH', `/units/${newObjectId()}`, { price: 1 })).statusCode, 404);
    assert.equal((await call('DELETE', `/units/${newObjectId()}`)).statusCode, 404);
  });

  test('GET /units?project=, &floor=, &availability= (any case); bad filters → 400', async () => {
    const p = await createProject(t.app, owner.auth);
    const [fa, fb] = [await createFloor(t.app, owner.auth, p._id, { position: 1 }), await createFloor(t.app, owner.auth, p._id, { position: 2 })];
    const a1 = await createUnit(t.app, owner.auth, p._id, { floor: fa._id, position: 1 });
    const a2 = await createUnit(t.app, owner.auth, p._id, { floor: fa._id, position: 2, body: { availability: 'sold' } });
    const b1 = await createUnit(t.app, owner.auth, p._id, { floor: fb._id, body: { availability: 'sold' } });
    const elsewhere = await createProject(t.app, owner.auth);
    await createUnit(t.app, owner.auth, elsewhere._id);
    assert.deepEqual(ids(await call('GET', `/units?project=${p._id}`)).sort(), [a1._id, a2._id, b1._id].sort());
    assert.deepEqual(ids(await call('GET', `/units?project=${p._id}&floor=${fa._id}`)), [a1._id, a2._id]);
    assert.deepEqual(ids(await call('GET', `/units?project=${p._id}&availability=SOLD`)).sort(), [a2._id, b1._id].sort());
    assert.deepEqual(ids(await call('GET', `/units?project=${p._id}&floor=${fb._id}&availability=sold`)), [b1._id]);
    assert.deepEqual(ids(await call('GET', `/units?project=${p._id}&availability=available`)), [a1._id]);
    assert.equal((await call('GET', `/units?project=${p._id}&availability=gone`)).statusCode, 400);
    assert.equal((await call('GET', '/units')).statusCode, 400);
    assert.equal((await call('GET', `/units?project=${newObjectId()}`)).statusCode, 404);
    assert.equal((await call('GET', `/units?project=${p._id}&floor=bad`)).statusCode, 400);
  });

  test('PATCH /units/{id}: only sent fields change; `project` is server-kept and ignored', async () => {
    const p = await createProject(t.app, owner.auth);
    const u = await createUnit(t.app, owner.auth, p._id, { body: { price: 100, description: 'Keep me' } });
    const res = await call('PATCH', `/units/${u._id}`, { price: 200 });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().price, 200);
    assert.equal(res.json().description, 'Keep me');
    assert.equal(res.json().name, u.name);
    const other = await createProject(t.app, owner.auth);
    const ignored = await call('PATCH', `/units/${u._id}`, { project: other._id, bedrooms: '2' });
    assert.equal(ignored.statusCode, 200, ignored.body);
    assert.equal(ignored.json().project, p._id);
    assert.equal(ignored.json().bedrooms, '2');
    assert.deepEqual(ids(await call('GET', `/units?project=${other._id}`)), []);
  });

  test('floor.units reorders through PATCH floor {units}; foreign or repeated ids → 400 and nothing written', async () => {
    const p = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id);
    const units: string[] = [];
    for (let i = 0; i < 3; i++) units.push((await createUnit(t.app, owner.auth, p._id, { floor: f._id, position: i }))._id);
    const wanted = [units[2]!, units[0]!, units[1]!];
    const etag = await etagOf(`/floors/${f._id}`);
    const res = await call('PATCH', `/floors/${f._id}`, { units: wanted });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().units, wanted);
    assert.notEqual(res.headers.etag, etag);
    assert.deepEqual((await call('GET', `/floors/${f._id}`)).json().units, wanted);
    const positions = await Promise.all(wanted.map(async (id) => (await call('GET', `/units/${id}`)).json().position as number));
    for (let i = 1; i < positions.length; i++) assert.ok(positions[i - 1]! < positions[i]!, `unit positions follow: ${positions}`);
    // A unit of the same project but another floor, and one of another project, are both foreign here.
    const g = await createFloor(t.app, owner.auth, p._id);
    const onG = await createUnit(t.app, owner.auth, p._id, { floor: g._id });
    const other = await createProject(t.app, owner.auth);
    const theirs = await createUnit(t.app, owner.auth, other._id);
    for (const bad of [[...wanted, onG._id], [theirs._id], [wanted[0]!, wanted[0]!]]) {
      const r = await call('PATCH', `/floors/${f._id}`, { units: bad });
      assert.equal(r.statusCode, 400, JSON.stringify(bad));
    }
    assert.deepEqual(paths(await call('PATCH', `/floors/${f._id}`, { units: [wanted[0], onG._id] })), ['/units/1']);
    assert.deepEqual((await call('GET', `/floors/${f._id}`)).json().units, wanted);
    assert.deepEqual((await call('GET', `/floors/${g._id}`)).json().units, [onG._id]);
  });

  test("a unit's new position moves it in floor.units and changes the floor's ETag", async () => {
    const p = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id);
    const a = await createUnit(t.app, owner.auth, p._id, { floor: f._id, position: 1 });
    const b = await createUnit(t.app, owner.auth, p._id, { floor: f._id, position: 2 });
    const before = await call('GET', `/floors/${f._id}`);
    assert.deepEqual(before.json().units, [a._id, b._id]);
    assert.equal((await call('PATCH', `/units/${a._id}`, { position: 5 })).statusCode, 200);
    const after = await call('GET', `/floors/${f._id}`);
    assert.deepEqual(after.json().units, [b._id, a._id]);
    assert.notEqual(after.headers.etag, before.headers.etag, 'the floor record changed, so must its ETag');
  });

  test("moving a unit between floors: both floors' units and ETags change; null takes it off its floor; another project's floor → 400", async () => {
    const p = await createProject(t.app, owner.auth);
    const a = await createFloor(t.app, owner.auth, p._id, { name: 'A' });
    const b = await createFloor(t.app, owner.auth, p._id, { name: 'B' });
    const u = await createUnit(t.app, owner.auth, p._id, { floor: a._id });
    const stay = await createUnit(t.app, owner.auth, p._id, { floor: a._id, position: 1 });
    const [etagA, etagB] = [await etagOf(`/floors/${a._id}`), await etagOf(`/floors/${b._id}`)];
    const moved = await call('PATCH', `/units/${u._id}`, { floor: b._id });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json().floor, b._id);
    const [ga, gb] = [await call('GET', `/floors/${a._id}`), await call('GET', `/floors/${b._id}`)];
    assert.deepEqual(ga.json().units, [stay._id]);
    assert.deepEqual(gb.json().units, [u._id]);
    assert.notEqual(ga.headers.etag, etagA);
    assert.notEqual(gb.headers.etag, etagB);
    assert.deepEqual(ids(await call('GET', `/units?project=${p._id}&floor=${b._id}`)), [u._id]);

    const etagB2 = String(gb.headers.etag);
    const off = await call('PATCH', `/units/${u._id}`, { floor: null });
    assert.equal(off.statusCode, 200, off.body);
    assert.equal(off.json().floor, undefined);
    const gb2 = await call('GET', `/floors/${b._id}`);
    assert.deepEqual(gb2.json().units, []);
    assert.notEqual(gb2.headers.etag, etagB2);

    const other = await createProject(t.app, owner.auth);
    const foreign = await createFloor(t.app, owner.auth, other._id);
    const bad = await call('PATCH', `/units/${stay._id}`, { floor: foreign._id });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(paths(bad), ['/floor']);
    assert.equal((await call('PATCH', `/units/${stay._id}`, { floor: newObjectId() })).statusCode, 400);
    assert.equal((await call('GET', `/units/${stay._id}`)).json().floor, a._id);
    assert.deepEqual((await call('GET', `/floors/${foreign._id}`)).json().units, []);
  });
});

describe('availability', () => {
  test('any case in, lower case out; every allowed value; anything else → 400 naming /availability', async () => {
    const p = await createProject(t.app, owner.auth);
    const u = await createUnit(t.app, owner.auth, p._id);
    for (const [sent, stored] of [
      ['SOLD', 'sold'],
      ['Reserved', 'reserved'],
      ['LEASED', 'leased'],
      ['unAvailable', 'unavailable'],
      ['Available', 'available'],
    ]) {
      const res = await call('PATCH', `/units/${u._id}`, { availability: sent });
      assert.equal(res.statusCode, 200, `${sent}: ${res.body}`);
      assert.equal(res.json().availability, stored);
      const row = await t.db.kysely.selectFrom('units').select('availability').where('id', '=', u._id).executeTakeFirstOrThrow();
      assert.equal(row.availability, stored, 'stored in lower case');
    }
    const held = await call('PATCH', `/units/${u._id}`, { availability: 'ON_HOLD', onHoldExpiresAt: new Date(clock.now() + 3_600_000).toISOString() });
    assert.equal(held.statusCode, 200, held.body);
    assert.equal(held.json().availability, 'on_hold');
    for (const bad of ['gone', 'on hold', 'onhold', '', 'sold ', 7]) {
      const res = await call('PATCH', `/units/${u._id}`, { availability: bad });
      assert.equal(res.statusCode, 400, String(bad));
      assert.deepEqual(paths(res), ['/availability']);
    }
    assert.equal((await call('GET', `/units/${u._id}`)).json().availability, 'on_hold', 'nothing written');
    // Leaving on_hold drops the expiry.
    const sold = await call('PATCH', `/units/${u._id}`, { availability: 'sold' });
    assert.equal(sold.json().onHoldExpiresAt, undefined);
  });

  test('a unit on hold always has an expiry: putting it on hold without one, or taking away its own, → 400 naming /onHoldExpiresAt', async () => {
    const p = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id);
    const u = await createUnit(t.app, owner.auth, p._id, { floor: f._id });
    for (const body of [{ availability: 'on_hold' }, { availability: 'ON_HOLD', onHoldExpiresAt: null }]) {
      const res = await call('PATCH', `/units/${u._id}`, body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.json().errors[0].path, '/onHoldExpiresAt');
    }
    const expires = new Date(clock.now() + 60_000).toISOString();
    assert.equal((await call('PATCH', `/units/${u._id}`, { availability: 'on_hold', onHoldExpiresAt: expires })).statusCode, 200);
    const cleared = await call('PATCH', `/units/${u._id}`, { onHoldExpiresAt: null });
    assert.equal(cleared.statusCode, 400, cleared.body);
    assert.equal(cleared.json().errors[0].path, '/onHoldExpiresAt');
    const unit = (await call('GET', `/units/${u._id}`)).json();
    assert.equal(unit.availability, 'on_hold');
    assert.equal(unit.onHoldExpiresAt, expires, 'nothing written');
    const created = await call('POST', `/units?project=${p._id}&floor=${f._id}&name=Held`, { availability: 'on_hold' });
    assert.equal(created.statusCode, 400, 'a create too');
    assert.equal(created.json().errors[0].path, '/onHoldExpiresAt');
    const released = await call('PATCH', `/units/${u._id}`, { availability: 'available', onHoldExpiresAt: null });
    assert.equal(released.statusCode, 200, 'leaving the hold with its expiry is fine');
    assert.equal(released.json().onHoldExpiresAt, undefined);
  });

  test('a hold whose onHoldExpiresAt has passed reads as available with no expiry, and is written back', async () => {
    const p = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id);
    const u = await createUnit(t.app, owner.auth, p._id, { floor: f._id });
    const expires = new Date(clock.now() + 60_000).toISOString();
    const held = await call('PATCH', `/units/${u._id}`, { availability: 'on_hold', onHoldExpiresAt: expires });
    assert.equal(held.statusCode, 200, held.body);
    assert.equal(held.json().availability, 'on_hold');
    assert.equal(held.json().onHoldExpiresAt, expires);
    assert.equal((await call('GET', `/units/${u._id}`)).json().availability, 'on_hold', 'still held before the expiry');
    const heldEtag = await etagOf(`/units/${u._id}`);

    clock.advance(61_000);
    const listed = (await call('GET', `/units?project=${p._id}`)).json().find((x: { _id: string }) => x._id === u._id);
    assert.equal(listed.availability, 'available', 'lists show it available too');
    assert.equal(listed.onHoldExpiresAt, undefined);
    assert.deepEqual(ids(await call('GET', `/units?project=${p._id}&availability=available`)), [u._id]);
    assert.deepEqual(ids(await call('GET', `/units?project=${p._id}&availability=on_hold`)), []);

    const res = await call('GET', `/units/${u._id}`);
    assert.equal(res.json().availability, 'available');
    assert.equal(res.json().onHoldExpiresAt, undefined);
    assert.ok(!('onHoldExpiresAt' in res.json()));
    assert.notEqual(res.headers.etag, heldEtag, 'the write-back is a new version');
    const row = await t.db.kysely.selectFrom('units').select(['availability', 'on_hold_expires_at']).where('id', '=', u._id).executeTakeFirstOrThrow();
    assert.equal(row.availability, 'available');
    assert.equal(row.on_hold_expires_at, null);
  });
});

describe('deletes', () => {
  test("DELETE /floors/{id} → 204; its units go too; it leaves project.floors and the project's ETag changes", async () => {
    const p = await createProject(t.app, owner.auth);
    const f1 = await createFloor(t.app, owner.auth, p._id, { position: 1 });
    const f2 = await createFloor(t.app, owner.auth, p._id, { position: 2 });
    const u1 = await createUnit(t.app, owner.auth, p._id, { floor: f1._id });
    const u2 = await createUnit(t.app, owner.auth, p._id, { floor: f2._id });
    const projectEtag = await etagOf(`/project/${p._id}`);
    const res = await call('DELETE', `/floors/${f1._id}`);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.equal((await call('GET', `/floors/${f1._id}`)).statusCode, 404);
    assert.equal((await call('GET', `/units/${u1._id}`)).statusCode, 404);
    assert.equal((await call('GET', `/units/${u2._id}`)).statusCode, 200);
    const after = await call('GET', `/project/${p._id}`);
    assert.deepEqual(after.json().floors, [f2._id]);
    assert.notEqual(after.headers.etag, projectEtag);
    assert.deepEqual(ids(await call('GET', `/units?project=${p._id}`)), [u2._id]);
    assert.equal((await call('DELETE', `/floors/${f1._id}`)).statusCode, 404);
    assert.equal((await call('DELETE', '/floors/xyz')).statusCode, 400);
  });

  test("DELETE /units/{id} → 204; it leaves floor.units and the floor's ETag changes", async () => {
    const p = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id);
    const u1 = await createUnit(t.app, owner.auth, p._id, { floor: f._id, position: 1 });
    const u2 = await createUnit(t.app, owner.auth, p._id, { floor: f._id, position: 2 });
    const floorEtag = await etagOf(`/floors/${f._id}`);
    assert.equal((await call('DELETE', `/units/${u1._id}`)).statusCode, 204);
    const after = await call('GET', `/floors/${f._id}`);
    assert.deepEqual(after.json().units, [u2._id]);
    assert.notEqual(after.headers.etag, floorEtag);
    assert.equal((await call('GET', `/units/${u1._id}`)).statusCode, 404);
    assert.equal((await call('DELETE', `/units/${u1._id}`)).statusCode, 404);
    assert.equal((await call('DELETE', '/units/xyz')).statusCode, 400);
  });
});

/** As the owner by default; other headers replace the owner's (another user, or none). */
const inject = (method: string, url: string, payload?: unknown, headers: Record<string, string> = owner.auth) =>
  t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

describe('floors, units and references', () => {
  test('floors list in position order on the project; units on the floor; Location and ETag', async () => {
    const p = await createProject(t.app, owner.auth);
    const f2 = await createFloor(t.app, owner.auth, p._id, { name: 'L2', position: 2 });
    const f1 = await createFloor(t.app, owner.auth, p._id, { name: 'L1', position: 1 });
    const fLast = await createFloor(t.app, owner.auth, p._id, { name: 'Roof' });
    assert.equal(fLast.position, 3, 'without a position a floor goes last');
    assert.deepEqual((await inject('GET', `/project/${p._id}`)).json().floors, [f1._id, f2._id, fLast._id]);
    assert.deepEqual(
      (await inject('GET', `/floors?project=${p._id}`)).json().map((f: { _id: string }) => f._id),
      [f1._id, f2._id, fLast._id],
    );

    const res = await inject('POST', `/units?name=101&position=1&project=${p._id}&floor=${f1._id}`);
    assert.equal(res.statusCode, 201);
    const u = res.json();
    assert.equal(res.headers.location, `/units/${u._id}`);
    assert.equal(u.specificType, 'unit');
    assert.equal(u.availability, 'available');
    assert.equal(u.floor, f1._id);
    assert.equal(u.project, p._id);
    const floor = await inject('GET', `/floors/${f1._id}`);
    assert.deepEqual(floor.json().units, [u._id]);
    assert.ok(floor.headers.etag);
  });

  test('reordering project.floors and floor.units; foreign or repeated ids → 400', async () => {
    const p = await createProject(t.app, owner.auth);
    const floors = [];
    for (let i = 0; i < 3; i++) floors.push((await createFloor(t.app, owner.auth, p._id, { name: `F${i}`, position: i }))._id);
    const reversed = [...floors].reverse();
    const res = await inject('PATCH', `/project/${p._id}`, { floors: reversed });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().floors, reversed);
    assert.deepEqual((await inject('GET', `/floors/${reversed[0]}`)).json().position, 0);
    const other = await createProject(t.app, owner.auth);
    const foreign = await createFloor(t.app, owner.auth, other._id);
    const bad = await inject('PATCH', `/project/${p._id}`, { floors: [floors[0], foreign._id] });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().errors[0].path, '/floors/1');
    assert.equal((await inject('PATCH', `/project/${p._id}`, { floors: [floors[0], floors[0]] })).statusCode, 400);

    const f = floors[0]!;
    const units = [];
    for (let i = 0; i < 3; i++) units.push((await createUnit(t.app, owner.auth, p._id, { floor: f, position: i }))._id);
    const r2 = await inject('PATCH', `/floors/${f}`, { units: [units[2], units[0], units[1]] });
    assert.equal(r2.statusCode, 200, r2.body);
    assert.deepEqual(r2.json().units, [units[2], units[0], units[1]]);
    const foreignUnit = await createUnit(t.app, owner.auth, other._id);
    assert.equal((await inject('PATCH', `/floors/${f}`, { units: [foreignUnit._id] })).statusCode, 400);
  });

  test('moving a unit between floors updates both floors and both ETags; a floor of another project → 400', async () => {
    const p = await createProject(t.app, owner.auth);
    const a = await createFloor(t.app, owner.auth, p._id, { name: 'A' });
    const b = await createFloor(t.app, owner.auth, p._id, { name: 'B' });
    const u = await createUnit(t.app, owner.auth, p._id, { floor: a._id });
    const etagA = (await inject('GET', `/floors/${a._id}`)).headers.etag;
    const etagB = (await inject('GET', `/floors/${b._id}`)).headers.etag;
    const moved = await inject('PATCH', `/units/${u._id}`, { floor: b._id });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json().floor, b._id);
    const [ga, gb] = [await inject('GET', `/floors/${a._id}`), await inject('GET', `/floors/${b._id}`)];
    assert.deepEqual(ga.json().units, []);
    assert.deepEqual(gb.json().units, [u._id]);
    assert.notEqual(ga.headers.etag, etagA);
    assert.notEqual(gb.headers.etag, etagB);
    const other = await createProject(t.app, owner.auth);
    const foreign = await createFloor(t.app, owner.auth, other._id);
    const bad = await inject('PATCH', `/units/${u._id}`, { floor: foreign._id });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().errors[0].path, '/floor');
    assert.equal((await inject('POST', `/units?name=x&position=1&project=${p._id}&floor=${foreign._id}`)).statusCode, 400);
  });

  test('availability: any case in, lower case stored; unknown → 400; GET /units filters', async () => {
    const p = await createProject(t.app, owner.auth);
    const u = await createUnit(t.app, owner.auth, p._id);
    const sold = await inject('PATCH', `/units/${u._id}`, { availability: 'SOLD' });
    assert.equal(sold.json().availability, 'sold');
    const bad = await inject('PATCH', `/units/${u._id}`, { availability: 'gone' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().errors[0].path, '/availability');
    const other = await createUnit(t.app, owner.auth, p._id);
    const soldList = (await inject('GET', `/units?project=${p._id}&availability=Sold`)).json();
    assert.deepEqual(
      soldList.map((x: { _id: string }) => x._id),
      [u._id],
    );
    const avail = (await inject('GET', `/units?project=${p._id}&availability=available`)).json();
    assert.deepEqual(
      avail.map((x: { _id: string }) => x._id),
      [other._id],
    );
  });

  test('an expired hold reads as available with no expiry and is written back', async () => {
    const p = await createProject(t.app, owner.auth);
    const u = await createUnit(t.app, owner.auth, p._id);
    const expires = new Date(clock.now() + 60_000).toISOString();
    const held = await inject('PATCH', `/units/${u._id}`, { availability: 'on_hold', onHoldExpiresAt: expires });
    assert.equal(held.json().availability, 'on_hold');
    assert.equal(held.json().onHoldExpiresAt, expires);
    assert.equal((await inject('GET', `/units/${u._id}`)).json().availability, 'on_hold');
    clock.advance(61_000);
    const after = (await inject('GET', `/units/${u._id}`)).json();
    assert.equal(after.availability, 'available');
    assert.equal(after.onHoldExpiresAt, undefined);
    const row = await t.db.kysely.selectFrom('units').select(['availability', 'on_hold_expires_at']).where('id', '=', u._id).executeTakeFirstOrThrow();
    assert.equal(row.availability, 'available');
    assert.equal(row.on_hold_expires_at, null);
    assert.equal((await inject('PATCH', `/units/${u._id}`, { availability: 'on_hold' })).statusCode, 400, 'a staff hold needs an expiry');
  });
});

describe('deletes and cascades (floors and units)', () => {
  test('deleting a floor deletes its units and leaves project.floors; deleting a unit leaves floor.units', async () => {
    const p = await createProject(t.app, owner.auth);
    const f1 = await createFloor(t.app, owner.auth, p._id, { position: 1 });
    const f2 = await createFloor(t.app, owner.auth, p._id, { position: 2 });
    const u1 = await createUnit(t.app, owner.auth, p._id, { floor: f1._id });
    const u2 = await createUnit(t.app, owner.auth, p._id, { floor: f2._id });
    const u3 = await createUnit(t.app, owner.auth, p._id, { floor: f2._id, position: 1 });
    assert.equal((await inject('DELETE', `/floors/${f1._id}`)).statusCode, 204);
    assert.equal((await inject('GET', `/units/${u1._id}`)).statusCode, 404);
    assert.deepEqual((await inject('GET', `/project/${p._id}`)).json().floors, [f2._id]);
    assert.equal((await inject('DELETE', `/units/${u2._id}`)).statusCode, 204);
    assert.deepEqual((await inject('GET', `/floors/${f2._id}`)).json().units, [u3._id]);
    assert.equal((await inject('DELETE', `/units/${u2._id}`)).statusCode, 404);
  });
});
