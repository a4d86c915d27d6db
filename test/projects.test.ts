import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../src/lib/object-id.ts';
import { insertLead } from '../src/modules/leads/leads.repo.ts';
import { PROJECT_DEFAULTS, PROJECT_SECRETS, ProjectPatchSchema, ProjectSchema } from '../src/modules/projects/projects.schemas.ts';
import {
  type Caller,
  caller,
  createFloor,
  createGroup,
  createProject,
  createUnit,
  type LoggedIn,
  schemaType,
  slug,
  SPEC_SECRET_FIELDS,
  type TestApp,
  TestClock,
  useOwnerApp,
  userWithToken,
  wrongValueFor,
} from './helpers.ts';

/**
 * Projects: create (query parameters, body, defaults, namespace and host-name rules), every field of the interface with
 * its type, fetch, search (filters, options, sorting, paging, visibility) and delete with its cascades.
 */
let t: TestApp;
let owner: LoggedIn;
let call: Caller;
// Only moved by the search tests (creation order); everything else reads the time it was built with.
const clock = new TestClock();

useOwnerApp({ clock }, (f) => ({ t, owner, call } = f));

const PROBLEM = 'application/problem+json; charset=utf-8';
const paths = (res: { json(): any }) => (res.json().errors ?? []).map((e: { path: string }) => e.path).sort();

/** The interface's Project, written out by hand from its description (not from our schema), with the JSON type of each field. */
const SPEC_PROJECT: Record<string, 'string' | 'number' | 'boolean' | 'array' | 'object'> = {
  _id: 'string',
  user: 'string',
  floors: 'array',
  commercialSpaces: 'array',
  administrators: 'array',
  editors: 'array',
  ...Object.fromEntries(
    (
      'name websiteURL internalURL accentColor walkscore customButtonText customButtonIcon areaUnit sharePageDescription sharePageLogo ' +
      'projectImageUrl projectSVGUrl svgGroupId layoutImageUrl formsSendTo formsSubject formsFromName formsMessage formsRedirectURL namespace ' +
      'hostName projectLang projectType propertyType lotsLayout areaDescription enterpriseAddressDisplay crfMessage chargeDescription ' +
      'payButtonText payButtonIcon gtmHeadCode gtmBodyCode address perimeter markerImageUrl targetMarker mapPointColor sponsors layouts ' +
      'downloadableAssets floorplans path alternativePaths subscriptionItem lastSync reportSendTo eventsBlockList phasePrefix _3dModelUrl ' +
      '_3dBuildingModelUrl _3dFloorSelectorModelUrl customButtonOpensAt customButtonActionType initialView unitImageOnGrid similarSortingBy ' +
      'chargeType chargeCurrency mapStyle calUsername payProviderClientId payProviderCurrency yiCompanyCode yiPropertyCode pvUsername ' +
      'pvBuildingName zhClientId zhOrgId srBaseUrl sfProjectId soProjectId soDomain bsBuildingId bsUsername ftpUrl ftpWhitelist ftpBlacklist ' +
      'ftpPath ftpFileName colorBase colorAccent colorHover colorButton colorButtonText colorText colorFeatured colorSold colorAvailable ' +
      'colorReserved styleNavigation styleBranding styleFilter styleShapes styleFont'
    )
      .split(' ')
      .map((k) => [k, 'string' as const]),
  ),
  ...Object.fromEntries(
    'onHoldMinsDuration mapLayoutWidth mapLayoutRotation globalAmount zoomLevel lon lat payProviderDeposit ftpPort'
      .split(' ')
      .map((k) => [k, 'number' as const]),
  ),
  ...Object.fromEntries(
    (
      'showInclusions showBathrooms showAdditionalInfo showParking showOrientation brochureButtonEnabled customButtonEnabled walkscoreEnabled ' +
      'showAvailability hideSold showPrices gtmEnabled dayNightEnabled showAvailableFirst skipFloorStep showUnitCustomFinishes showFloorOverview ' +
      'pricesStartingAt showPriceFilter showAreaFilter showUnitDescription showTaxes sharePageEnabled priceBeforeTax enableForms rentalObject ' +
      'deliveryDates hideArea showBranding onHoldExperienceEnabled customFormEnabled previewMode landOnly showUnitFinishes showVariants ' +
      'sponsorsEnabled waitlistEnabled invertNav mapDirections lockScreen specialRankEnabled priorityList lockScreenName lockScreenEmail ' +
      'lockScreenPhone lockScreenMessage lockScreenCustom excludeBlockedEvents enable3d hideGallery hideBedrooms'
    )
      .split(' ')
      .map((k) => [k, 'boolean' as const]),
  ),
  brochureAssets: 'array',
  alternativeCovers: 'array',
  images: 'array',
  finishes: 'array',
  customFormFields: 'array',
  invites: 'array',
  allocations: 'array',
  lockScreenCustomQuestions: 'array',
  ftpMapping: 'array',
  plan: 'object',
  customFinishes: 'object',
  yiStatusMapping: 'object',
};
/** Secret-bearing fields of the spec: accepted on input, never shown (see test/secrets.test.ts). */
const SPEC_SECRETS = SPEC_SECRET_FIELDS;

type S = {
  type?: string;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  $ref?: string;
  anyOf?: S[];
  items?: S;
  properties?: Record<string, S>;
  additionalProperties?: unknown;
};

/** Two units of the project: what its `commercialSpaces` may name. */
async function ownUnits(projectId: string): Promise<string[]> {
  return [(await createUnit(t.app, owner.auth, projectId, { name: 'Shop 1' }))._id, (await createUnit(t.app, owner.auth, projectId, { name: 'Shop 2' }))._id];
}

/** A value of the schema's type, distinct per field and different from the create defaults, so a PATCH really changes it. */
function sample(s: S, key: string): unknown {
  if (s.anyOf)
    return sample(
      s.anyOf.find((x) => x.type !== 'null')!,
      key,
    );
  // A block list holds only what it can act on.
  if (key === 'eventsBlockList') return '203.0.113.7, *@example.com';
  // Spark's address is an http(s) one (a name that does not resolve here is kept).
  if (key === 'srBaseUrl') return 'https://crm.example.invalid/v2';
  // A perimeter is one the map can draw (docs/map.md).
  if (key === 'perimeter') return '45.5,-73.5 45.6,-73.5 45.6,-73.4';
  // A field with a set of values (the style fields): its first.
  if (Array.isArray(s.enum)) return s.enum[0];
  // A currency is one Stripe charges in (a deposit's), lower case.
  if (key === 'chargeCurrency' || key === 'payProviderCurrency') return 'eur';
  if (s.$ref === 'Invite') return { firstName: 'Ana', lastName: 'Ruiz', email: `${key.toLowerCase()}@example.com`, level: 'editor' };
  switch (s.type) {
    case 'string':
      if (s.format === 'email' || s.format === 'email-list') return `${key.toLowerCase()}@example.com`;
      if (s.format === 'time-zone') return 'America/Toronto';
      if (s.format === 'date-time') return new Date(Date.UTC(2031, 0, 2)).toISOString();
      if (s.pattern === '^[0-9a-f]{24}$') return newObjectId();
      return `value of ${key}`;
    case 'number':
      return 42.5;
    case 'integer':
      return 3;
    case 'boolean':
      return PROJECT_DEFAULTS[key] === true ? false : true;
    case 'array':
      return [sample(s.items!, `${key}1`), sample(s.items!, `${key}2`)];
    case 'object': {
      const props = Object.entries(s.properties ?? {});
      if (!props.length) return { note: `free-form ${key}` };
      return Object.fromEntries(props.map(([k, v]) => [k, sample(v, k)]));
    }
    default:
      throw new Error(`no sample for ${key}: ${JSON.stringify(s)}`);
  }
}

/** A value of the wrong JSON type for the schema. */
const wrong = (s: S) => wrongValueFor(schemaType(s));

const jsonType = schemaType;

describe('POST /projects', () => {
  test('name, namespace and hostName as query parameters → 201 with Location, ETag, the owner and the payload-shape defaults', async () => {
    const ns = slug();
    const res = await call('POST', `/projects?name=Harbour%20Tower&namespace=${ns}&hostName=${ns}.Example.com`);
    assert.equal(res.statusCode, 201, res.body);
    const p = res.json();
    assert.match(p._id, /^[0-9a-f]{24}$/);
    assert.equal(res.headers.location, `/project/${p._id}`);
    assert.match(String(res.headers.etag), /^"[^"]+"$/);
    assert.equal(p.name, 'Harbour Tower');
    assert.equal(p.namespace, ns);
    assert.equal(p.hostName, `${ns}.example.com`);
    assert.equal(p.user, owner.id);
    assert.deepEqual(p.floors, []);
    assert.deepEqual(p.administrators, []);
    assert.deepEqual(p.editors, []);
    assert.deepEqual(p.configuredSecrets, []);
    const defaults = {
      initialView: 'List',
      onHoldMinsDuration: 5,
      customButtonOpensAt: 'same_tab',
      customButtonActionType: 'url',
      chargeCurrency: 'usd',
      mapStyle: 'Light',
      zoomLevel: 0,
      payButtonText: 'Pay Now',
      unitImageOnGrid: 'Unit Plan',
      similarSortingBy: 'default',
      chargeType: 'same',
      chargeDescription: '',
      payButtonIcon: '',
      gtmHeadCode: '',
      gtmBodyCode: '',
    };
    for (const [k, v] of Object.entries(defaults)) assert.deepEqual(p[k], v, k);
    assert.equal(new Date(p.createdAt).toISOString(), p.createdAt);
    assert.equal(new Date(p.updatedAt).toISOString(), p.updatedAt);
    // The Location answers with the same record.
    const fetched = await call('GET', String(res.headers.location));
    assert.equal(fetched.statusCode, 200);
    assert.deepEqual(fetched.json(), p);
    assert.equal(fetched.headers.etag, res.headers.etag);
  });

  test('other fields may come in a JSON body; query parameters win; a body value beats a default', async () => {
    const res = await call('POST', '/projects?name=From%20Query', {
      name: 'From Body',
      colorBase: '#101010',
      initialView: 'Grid',
      onHoldMinsDuration: 15,
      showPrices: false,
    });
    assert.equal(res.statusCode, 201, res.body);
    const p = res.json();
    assert.equal(p.name, 'From Query');
    assert.equal(p.colorBase, '#101010');
    assert.equal(p.initialView, 'Grid');
    assert.equal(p.onHoldMinsDuration, 15);
    assert.equal(p.showPrices, false);
    assert.equal(p.mapStyle, 'Light', 'defaults still fill what the body left out');
    const bodyOnly = await call('POST', '/projects', { name: 'Only In Body' });
    assert.equal(bodyOnly.statusCode, 201, bodyOnly.body);
    assert.equal(bodyOnly.json().name, 'Only In Body');
  });

  test('missing or empty name → 400 naming /name', async () => {
    for (const url of ['/projects', '/projects?name=', '/projects?namespace=no-name-here']) {
      const res = await call('POST', url);
      assert.equal(res.statusCode, 400, url);
      assert.equal(res.headers['content-type'], PROBLEM);
      assert.deepEqual(paths(res), ['/name'], url);
    }
  });

  test('namespace must be a lower-case slug of at most 63 characters → else 400 naming /namespace', async () => {
    for (const bad of ['Bad%20Slug', 'a'.repeat(64), 'UPPER', '-lead', 'trail-', 'x--y', 'dots.here', 'under_score']) {
      const res = await call('POST', `/projects?name=X&namespace=${bad}`);
      assert.equal(res.statusCode, 400, bad);
      assert.deepEqual(paths(res), ['/namespace'], bad);
    }
    const longest = `${'a'.repeat(50)}${newObjectId().slice(-13)}`;
    assert.equal(longest.length, 63);
    const ok = await call('POST', `/projects?name=X&namespace=${longest}`);
    assert.equal(ok.statusCode, 201, ok.body);
    assert.equal(ok.json().namespace, longest);
    const badHost = await call('POST', '/projects?name=X&hostName=not%20a%20host');
    assert.equal(badHost.statusCode, 400);
    assert.deepEqual(paths(badHost), ['/hostName']);
  });

  test('a taken namespace → 409; a taken host name in any case → 409; on create and on PATCH', async () => {
    const ns = slug();
    const first = await createProject(t.app, owner.auth, { query: { namespace: ns, hostName: `${ns}.example.com` } });
    const dupNs = await call('POST', `/projects?name=B&namespace=${ns}`);
    assert.equal(dupNs.statusCode, 409);
    assert.equal(dupNs.json().code, 'conflict');
    assert.equal(dupNs.headers['content-type'], PROBLEM);
    assert.equal((await call('POST', `/projects?name=C&hostName=${ns.toUpperCase()}.EXAMPLE.COM`)).statusCode, 409);
    // Another user cannot take them either (uniqueness is global, not per owner).
    const other = await userWithToken(t);
    assert.equal((await caller(t.app, other.auth)('POST', `/projects?name=D&namespace=${ns}`)).statusCode, 409);

    const second = await createProject(t.app, owner.auth);
    assert.equal((await call('PATCH', `/project/${second._id}`, { namespace: ns })).statusCode, 409);
    assert.equal((await call('PATCH', `/project/${second._id}`, { hostName: `${ns}.Example.Com` })).statusCode, 409);
    const unchanged = (await call('GET', `/project/${second._id}`)).json();
    assert.equal(unchanged.namespace, undefined);
    assert.equal(unchanged.hostName, undefined);
    // The holder itself can send its own values back.
    assert.equal((await call('PATCH', `/project/${first._id}`, { namespace: ns, hostName: `${ns}.example.com` })).statusCode, 200);
    // Groups have their own namespaces: a project's namespace is free for a group.
    assert.equal((await call('POST', `/groups?name=G&namespace=${ns}`)).statusCode, 201);
  });
});

describe('Project fields', () => {
  test("every Project field of the interface is in the schema with the spec's type (response and PATCH body)", () => {
    const out = ProjectSchema.properties as Record<string, S>;
    const input = ProjectPatchSchema.properties as Record<string, S>;
    for (const [name, type] of Object.entries(SPEC_PROJECT)) {
      assert.ok(out[name], `response schema has ${name}`);
      assert.equal(jsonType(out[name]!), type, `${name} is ${type} in responses`);
      assert.ok(input[name], `PATCH schema has ${name}`);
      assert.equal(jsonType(input[name]!), type, `${name} is ${type} in a PATCH`);
    }
    for (const name of SPEC_SECRETS) {
      assert.ok(input[name], `PATCH accepts secret ${name}`);
      assert.equal(out[name], undefined, `responses never carry ${name}`);
    }
    assert.deepEqual([...PROJECT_SECRETS].sort(), [...SPEC_SECRETS].sort());
  });

  test('a PATCH with a value for every field reads back with every value (PATCH result and GET)', async () => {
    const p = await createProject(t.app, owner.auth);
    const [admin, editor] = [await userWithToken(t), await userWithToken(t)];
    const skip = new Set(['_id', '__v', 'createdAt', 'updatedAt', 'configuredSecrets', 'user', 'floors', 'leads', 'waitlistees', ...SPEC_SECRETS]);
    const body: Record<string, unknown> = {};
    for (const [k, s] of Object.entries(ProjectPatchSchema.properties as Record<string, S>)) if (!skip.has(k)) body[k] = sample(s, k);
    const ns = slug();
    Object.assign(body, {
      namespace: ns,
      hostName: `${ns}.example.com`,
      administrators: [admin.id],
      editors: [editor.id],
      customFormFields: [{ label: 'Budget', type: 'text', required: true }],
      allocations: [{ name: 'Broker A', allocation: '10' }],
      // Only the project's own units.
      commercialSpaces: await ownUnits(p._id),
    });
    // The hand-written spec list, so a field missing from the schema (and so from `body`) is caught here too.
    for (const name of Object.keys(SPEC_PROJECT)) if (!['_id', 'user', 'floors'].includes(name)) assert.ok(name in body, `body has ${name}`);

    const before = await call('GET', `/project/${p._id}`);
    const res = await call('PATCH', `/project/${p._id}`, body);
    assert.equal(res.statusCode, 200, res.body);
    const got = (await call('GET', `/project/${p._id}`)).json();
    for (const [k, v] of Object.entries(body)) {
      assert.deepEqual(res.json()[k], v, `PATCH result ${k}`);
      assert.deepEqual(got[k], v, `GET ${k}`);
    }
    assert.notEqual(res.headers.etag, before.headers.etag);
    // Nothing else crept in: every key of the record is a declared field.
    for (const k of Object.keys(got)) assert.ok(k in (ProjectSchema.properties as object), `response key ${k} is declared`);
  });

  test('GET /projects (written from the stored JSON text) lists the same record as GET /project/{id}, keys in the same order, secrets named only', async () => {
    const p = await createProject(t.app, owner.auth, { name: `Listed "ü" \\ ${slug()}` });
    const body: Record<string, unknown> = {};
    for (const [k, s] of Object.entries(ProjectPatchSchema.properties as Record<string, S>)) {
      if (!['_id', '__v', 'createdAt', 'updatedAt', 'configuredSecrets', 'user', 'floors', 'leads', 'waitlistees', 'namespace', 'hostName'].includes(k))
        body[k] = sample(s, k);
    }
    Object.assign(body, {
      name: p.name,
      administrators: [],
      editors: [],
      customFormFields: [{ label: 'Budget "€"', type: 'text', required: true }],
      commercialSpaces: await ownUnits(p._id),
      // Names whose order differs between UTF-16 code units and code points (U+FF21 against U+1D538): the list is
      // sorted by PostgreSQL, the record by Node, and both must give the same order.
      allocations: [
        { name: 'Broker A', allocation: '10', password: 'allocation-secret' },
        { name: 'Broker \u{1D538}', allocation: '5', password: 'allocation-secret-2' },
        { name: 'Broker \uFF21', allocation: '5', password: 'allocation-secret-3' },
      ],
      ...Object.fromEntries(SPEC_SECRETS.map((k) => [k, `secret-${k}`])),
    });
    assert.equal((await call('PATCH', `/project/${p._id}`, body)).statusCode, 200);
    await createFloor(t.app, owner.auth, p._id);
    await createFloor(t.app, owner.auth, p._id);

    const one = await call('GET', `/project/${p._id}`);
    const list = await call('GET', `/projects?filters=${encodeURIComponent(JSON.stringify({ name: p.name }))}`);
    assert.equal(list.statusCode, 200);
    assert.equal(list.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(list.headers['x-total-count'], '1');
    const [item] = list.json();
    const record = one.json();
    assert.deepEqual(item, record);
    assert.deepEqual(Object.keys(item), Object.keys(record));
    assert.equal(item.floors.length, 2);
    assert.ok(item.configuredSecrets.includes('allocations[Broker A].password'));
    const secretIndex = (name: string) => item.configuredSecrets.indexOf(`allocations[Broker ${name}].password`);
    assert.ok(secretIndex('\uFF21') >= 0 && secretIndex('\uFF21') < secretIndex('\u{1D538}'), 'configuredSecrets in code point order');
    for (const k of SPEC_SECRETS) assert.ok(item.configuredSecrets.includes(k), `${k} named`);
    for (const secret of [...SPEC_SECRETS.map((k) => `secret-${k}`), 'allocation-secret', 'allocation-secret-2', 'allocation-secret-3'])
      assert.ok(!list.body.includes(secret), `${secret} never listed`);
  });

  test('a value of the wrong type for any field → 400 with one error naming each field', async () => {
    const p = await createProject(t.app, owner.auth);
    const body: Record<string, unknown> = {};
    for (const [k, s] of Object.entries(ProjectPatchSchema.properties as Record<string, S>)) {
      if (jsonType(s) === undefined) continue; // server-kept fields of any type (__v, configuredSecrets)
      body[k] = wrong(s);
    }
    const res = await call('PATCH', `/project/${p._id}`, body);
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'invalid_body');
    assert.deepEqual(
      paths(res),
      Object.keys(body)
        .map((k) => `/${k}`)
        .sort(),
    );
    // One at a time too: each names only itself, and nothing is written.
    for (const [k, v] of Object.entries({
      showPrices: 'true',
      onHoldMinsDuration: '5',
      images: 'a.jpg',
      colorBase: 7,
      formsSendTo: 'not-an-email',
      invites: [{ email: 'x' }],
      yiStatusMapping: { sold: 1 },
    })) {
      const one = await call('PATCH', `/project/${p._id}`, { [k]: v });
      assert.equal(one.statusCode, 400, k);
      assert.equal(one.json().errors.length, 1, k);
      assert.ok(one.json().errors[0].path.startsWith(`/${k}`), `${k}: ${one.json().errors[0].path}`);
    }
    const after = await call('GET', `/project/${p._id}`);
    assert.equal(after.json().showPrices, true);
    assert.equal(after.json().onHoldMinsDuration, 5);
  });

  test('unknown fields → 400 naming each of them', async () => {
    const p = await createProject(t.app, owner.auth);
    const res = await call('PATCH', `/project/${p._id}`, { name: 'Kept?', noSuchField: 1, colour: 'red' });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(paths(res), ['/colour', '/noSuchField']);
    assert.equal((await call('GET', `/project/${p._id}`)).json().name, p.name);
    const create = await call('POST', '/projects?name=X', { bogus: true });
    assert.equal(create.statusCode, 400);
    assert.deepEqual(paths(create), ['/bogus']);
  });
});

describe('GET, PATCH and DELETE by id', () => {
  test('GET /project/{id} and /projects/{id}; PATCH on both paths → 200 with an ETag', async () => {
    const p = await createProject(t.app, owner.auth);
    for (const base of ['/project', '/projects']) {
      const res = await call('GET', `${base}/${p._id}`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.json()._id, p._id);
      assert.match(String(res.headers.etag), /^"[^"]+"$/);
      const patched = await call('PATCH', `${base}/${p._id}`, { name: `Renamed via ${base}` });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.equal(patched.json().name, `Renamed via ${base}`);
      assert.match(String(patched.headers.etag), /^"[^"]+"$/);
      assert.notEqual(patched.headers.etag, res.headers.etag);
    }
  });

  test('a malformed id → 400; a well-formed id of nothing → 404 (GET, PATCH, DELETE, both paths)', async () => {
    for (const base of ['/project', '/projects']) {
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        const payload = method === 'PATCH' ? { name: 'x' } : undefined;
        for (const bad of ['not-an-id', '0123456789ABCDEF01234567', '0123456789abcdef0123456', '0123456789abcdef012345678']) {
          const res = await call(method, `${base}/${bad}`, payload);
          assert.equal(res.statusCode, 400, `${method} ${base}/${bad}`);
          assert.equal(res.headers['content-type'], PROBLEM);
        }
        const missing = await call(method, `${base}/${newObjectId()}`, payload);
        assert.equal(missing.statusCode, 404, `${method} ${base}/absent`);
        assert.equal(missing.json().code, 'not_found');
      }
    }
  });
});

describe('GET /projects search', () => {
  let searcher: Awaited<ReturnType<typeof userWithToken>>;
  let list: ReturnType<typeof caller>;
  // Names chosen to sort the same under the C and en_US collations; two are equal, so ties need `_id`.
  const specs = [
    { name: 'Tower Alpha', projectType: 'condo' },
    { name: 'tower beta', projectType: 'rental' },
    { name: 'Garden Court', projectType: 'condo' },
    { name: 'Harbour TOWER', projectType: 'rental' },
    { name: 'Lofts', projectType: 'condo' },
    { name: 'Lofts', projectType: 'Rental' },
    { name: 'Park Tower View', projectType: 'condo' },
  ];
  const made: (Record<string, any> & { _id: string })[] = [];
  before(async () => {
    searcher = await userWithToken(t);
    list = caller(t.app, searcher.auth);
    for (const s of specs) made.push(await createProject(t.app, searcher.auth, { name: s.name, body: { projectType: s.projectType } }));
  });
  const ids = (res: { json(): any }) => res.json().map((p: { _id: string }) => p._id);
  const names = (res: { json(): any }) => res.json().map((p: { name: string }) => p.name);
  const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

  test('filters.name: case-insensitive substring, as JSON text and in bracket form; X-Total-Count is the match count', async () => {
    const towers = ['Harbour TOWER', 'Park Tower View', 'Tower Alpha', 'tower beta'];
    for (const url of [`/projects?filters=${encodeURIComponent('{"name":"TOWER"}')}`, '/projects?filters[name]=tower', '/projects?filters[name]=oWe']) {
      const res = await list('GET', url);
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      assert.deepEqual(names(res).sort(), towers, url);
      assert.equal(res.headers['x-total-count'], '4', url);
    }
    const limited = await list('GET', '/projects?filters[name]=Tow&options[limit]=2');
    assert.equal(limited.statusCode, 200, limited.body);
    assert.equal(limited.json().length, 2);
    assert.equal(limited.headers['x-total-count'], '4', 'the count before skip/limit');
    for (const literal of ['%25', '_', '%5C'])
      assert.deepEqual((await list('GET', `/projects?filters[name]=${literal}`)).json(), [], `${literal} is matched literally`);
    assert.equal((await list('GET', '/projects?filters[name]=')).json().length, specs.length, 'an empty name matches everything');
  });

  test('filters.projectType matches exactly (case and all); both filters together', async () => {
    assert.deepEqual(names(await list('GET', '/projects?filters[projectType]=rental')).sort(), ['Harbour TOWER', 'tower beta']);
    assert.deepEqual(names(await list('GET', '/projects?filters[projectType]=Rental')), ['Lofts']);
    assert.deepEqual((await list('GET', '/projects?filters[projectType]=rent')).json(), []);
    const both = await list('GET', `/projects?filters=${encodeURIComponent(JSON.stringify({ name: 'tower', projectType: 'condo' }))}`);
    assert.deepEqual(names(both).sort(), ['Park Tower View', 'Tower Alpha']);
    assert.equal(both.headers['x-total-count'], '2');
  });

  test('other filter keys, bad options and malformed JSON → 400 problem naming the parameter', async () => {
    const bad = [
      'filters[owner]=x',
      'filters[user]=x',
      `filters=${encodeURIComponent('{"namespace":"x"}')}`,
      'options[limit]=0',
      'options[limit]=501',
      'options[limit]=abc',
      'options[limit]=2.5',
      'options[skip]=-1',
      'options[skip]=abc',
      `options=${encodeURIComponent('{"limit":0}')}`,
      'options[sort]=price',
      'options[sort]=-_id',
      'options[page]=2',
      `filters=${encodeURIComponent('{bad')}`,
      `options=${encodeURIComponent('[1')}`,
      'unknown=1',
    ];
    for (const q of bad) {
      const res = await list('GET', `/projects?${q}`);
      assert.equal(res.statusCode, 400, `${q}: ${res.statusCode} ${res.body}`);
      assert.equal(res.headers['content-type'], PROBLEM);
      assert.ok(Array.isArray(res.json().errors) && res.json().errors.length > 0, q);
    }
    for (const ok of ['options[limit]=1', 'options[limit]=500', 'options[skip]=0', `options=${encodeURIComponent('{"limit":500,"skip":0}')}`]) {
      assert.equal((await list('GET', `/projects?${ok}`)).statusCode, 200, ok);
    }
  });

  test('default order is newest first; createdAt ascending is creation order', async () => {
    assert.deepEqual(ids(await list('GET', '/projects')), made.map((p) => p._id).reverse());
    assert.deepEqual(ids(await list('GET', '/projects?options[sort]=-createdAt')), made.map((p) => p._id).reverse());
    assert.deepEqual(
      ids(await list('GET', '/projects?options[sort]=createdAt')),
      made.map((p) => p._id),
    );
  });

  test('sort by name and -name; equal names break ties on _id (ascending, and descending with -name)', async () => {
    const asc = [...made].sort((a, b) =>
      a.name.toLowerCase() === b.name.toLowerCase() ? byId(a._id, b._id) : a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1,
    );
    assert.deepEqual(
      ids(await list('GET', '/projects?options[sort]=name')),
      asc.map((p) => p._id),
    );
    assert.deepEqual(ids(await list('GET', `/projects?options=${encodeURIComponent('{"sort":"-name"}')}`)), asc.map((p) => p._id).reverse());
  });

  test('sort by updatedAt follows the order of the last changes', async () => {
    const order = [3, 0, 6, 1, 5, 2, 4].map((i) => made[i]!._id);
    // updatedAt is the injected clock's time of each change: the changes are a second apart on it.
    for (const id of order) {
      clock.advance(1000);
      assert.equal((await list('PATCH', `/project/${id}`, { colorText: `#${id.slice(-6)}` })).statusCode, 200);
    }
    assert.deepEqual(ids(await list('GET', '/projects?options[sort]=updatedAt')), order);
    assert.deepEqual(ids(await list('GET', '/projects?options[sort]=-updatedAt')), [...order].reverse());
  });

  test('pages of 3 cover the whole list once, in order, for every sort; X-Total-Count on every page and past the end', async () => {
    for (const sort of ['name', '-name', 'createdAt', '-createdAt', 'updatedAt', '-updatedAt']) {
      const whole = ids(await list('GET', `/projects?options[sort]=${sort}`));
      assert.equal(whole.length, specs.length);
      const pages: string[] = [];
      for (let skip = 0; skip < specs.length; skip += 3) {
        const res = await list('GET', `/projects?options[sort]=${sort}&options[skip]=${skip}&options[limit]=3`);
        assert.equal(res.headers['x-total-count'], String(specs.length), `${sort} skip ${skip}`);
        assert.ok(res.json().length <= 3);
        pages.push(...ids(res));
      }
      assert.deepEqual(pages, whole, sort);
      assert.equal(new Set(pages).size, pages.length, `${sort}: no duplicates`);
    }
    const past = await list('GET', '/projects?options[skip]=50&options[limit]=5');
    assert.equal(past.statusCode, 200);
    assert.deepEqual(past.json(), []);
    assert.equal(past.headers['x-total-count'], String(specs.length));
    const pastFiltered = await list('GET', '/projects?filters[name]=tower&options[skip]=4');
    assert.deepEqual(pastFiltered.json(), []);
    assert.equal(pastFiltered.headers['x-total-count'], '4');
  });

  test('only visible projects are listed: owner, administrator, editor and platform admin see it; a stranger sees none', async () => {
    const [administrator, editor, stranger] = [await userWithToken(t), await userWithToken(t), await userWithToken(t)];
    const admin = await userWithToken(t, { role: 'admin' });
    const marker = `Visible ${newObjectId()}`;
    const p = await createProject(t.app, searcher.auth, { name: marker, body: { administrators: [administrator.id], editors: [editor.id] } });
    const url = `/projects?filters=${encodeURIComponent(JSON.stringify({ name: marker }))}`;
    for (const [who, u] of Object.entries({ owner: searcher, administrator, editor, admin })) {
      const res = await caller(t.app, u.auth)('GET', url);
      assert.deepEqual(ids(res), [p._id], who);
      assert.equal(res.headers['x-total-count'], '1', who);
    }
    const strangers = await caller(t.app, stranger.auth)('GET', url);
    assert.deepEqual(strangers.json(), []);
    assert.equal(strangers.headers['x-total-count'], '0');
    // Unfiltered too: none of the searcher's projects reach the stranger, and the administrator sees just the one.
    const all = await caller(t.app, stranger.auth)('GET', '/projects?options[limit]=500');
    for (const m of [...made, p]) assert.ok(!ids(all).includes(m._id));
    assert.deepEqual(ids(await caller(t.app, administrator.auth)('GET', '/projects')), [p._id]);
    const everything = ids(await caller(t.app, admin.auth)('GET', '/projects?options[limit]=500'));
    for (const m of [...made, p]) assert.ok(everything.includes(m._id), 'a platform admin sees every project');
    assert.equal((await t.app.inject({ method: 'GET', url: '/projects' })).statusCode, 401);
  });
});

describe('DELETE /project/{id}', () => {
  test('→ 204; takes its floors, units and leads along and leaves every group; the groups and other projects stay', async () => {
    const p = await createProject(t.app, owner.auth);
    const keep = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id);
    const u = await createUnit(t.app, owner.auth, p._id, { floor: f._id });
    const loose = await createUnit(t.app, owner.auth, p._id);
    const keptFloor = await createFloor(t.app, owner.auth, keep._id);
    await insertLead(t.db.kysely, { id: newObjectId(), projectId: p._id, data: { firstName: 'A', email: 'a@example.com' } });
    const g1 = await createGroup(t.app, owner.auth, { body: { projects: [p._id, keep._id] } });
    const g2 = await createGroup(t.app, owner.auth, { body: { projects: [keep._id, p._id] } });
    const g1Etag = (await call('GET', `/groups/${g1._id}`)).headers.etag;

    const res = await call('DELETE', `/project/${p._id}`);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    for (const url of [
      `/project/${p._id}`,
      `/floors/${f._id}`,
      `/units/${u._id}`,
      `/units/${loose._id}`,
      `/floors?project=${p._id}`,
      `/units?project=${p._id}`,
      `/leads?project=${p._id}`,
    ]) {
      assert.equal((await call('GET', url)).statusCode, 404, url);
    }
    for (const table of ['floors', 'units', 'leads'] as const) {
      const rows = await t.db.kysely.selectFrom(table).select('id').where('project_id', '=', p._id).execute();
      assert.deepEqual(rows, [], `${table} of the project are gone`);
    }
    const g1After = await call('GET', `/groups/${g1._id}`);
    assert.deepEqual(g1After.json().projects, [keep._id]);
    assert.notEqual(g1After.headers.etag, g1Etag, "the group's ETag changes with its projects");
    assert.deepEqual((await call('GET', `/groups/${g2._id}`)).json().projects, [keep._id]);
    assert.deepEqual((await call('GET', `/project/${keep._id}`)).json().floors, [keptFloor._id]);
    assert.equal((await call('DELETE', `/project/${p._id}`)).statusCode, 404, 'a second delete finds nothing');
    const viaAlias = await createProject(t.app, owner.auth);
    assert.equal((await call('DELETE', `/projects/${viaAlias._id}`)).statusCode, 204);
    assert.equal((await call('GET', `/project/${viaAlias._id}`)).statusCode, 404);
  });
});

/** As the owner by default; other headers replace the owner's (another user, or none). */
const inject = (method: string, url: string, payload?: unknown, headers: Record<string, string> = owner.auth) =>
  t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

describe('projects: create, fields, fetch', () => {
  test('POST /projects takes name, namespace and hostName as query parameters → 201, Location, ETag, the spec defaults', async () => {
    const ns = `ns-${newObjectId().slice(-8)}`;
    const res = await inject('POST', `/projects?name=Harbour%20Tower&namespace=${ns}&hostName=${ns}.Example.com`);
    assert.equal(res.statusCode, 201);
    const p = res.json();
    assert.match(p._id, /^[0-9a-f]{24}$/);
    assert.equal(res.headers.location, `/project/${p._id}`);
    assert.equal(res.headers.etag, '"1"');
    assert.equal(p.name, 'Harbour Tower');
    assert.equal(p.namespace, ns);
    assert.equal(p.hostName, `${ns}.example.com`, 'host names are stored lower-case');
    assert.equal(p.user, owner.id);
    assert.deepEqual(p.floors, []);
    assert.deepEqual(p.configuredSecrets, []);
    for (const [k, v] of Object.entries({
      initialView: 'List',
      onHoldMinsDuration: 5,
      customButtonOpensAt: 'same_tab',
      customButtonActionType: 'url',
      unitImageOnGrid: 'Unit Plan',
      similarSortingBy: 'default',
      chargeType: 'same',
      chargeCurrency: 'usd',
      payButtonText: 'Pay Now',
      mapStyle: 'Light',
      zoomLevel: 0,
      gtmHeadCode: '',
    })) {
      assert.deepEqual(p[k], v, k);
    }
    assert.ok(Date.parse(p.createdAt) && Date.parse(p.updatedAt));
  });

  test('missing name → 400 naming it; bad namespace → 400; duplicate namespace or host name (any case) → 409', async () => {
    const missing = await inject('POST', '/projects');
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.deepEqual(
      missing.json().errors.map((e: { path: string }) => e.path),
      ['/name'],
    );
    for (const bad of ['Bad%20Slug', 'a'.repeat(64), '-lead', 'x--y']) {
      const res = await inject('POST', `/projects?name=X&namespace=${bad}`);
      assert.equal(res.statusCode, 400, bad);
      assert.equal(res.json().errors[0].path, '/namespace');
    }
    const ns = `dup-${newObjectId().slice(-8)}`;
    assert.equal((await inject('POST', `/projects?name=A&namespace=${ns}&hostName=${ns}.example.com`)).statusCode, 201);
    const dupNs = await inject('POST', `/projects?name=B&namespace=${ns}`);
    assert.equal(dupNs.statusCode, 409);
    assert.equal(dupNs.json().code, 'conflict');
    assert.equal((await inject('POST', `/projects?name=C&hostName=${ns.toUpperCase()}.EXAMPLE.COM`)).statusCode, 409);
  });

  test('every Project field of the schema round-trips through PATCH /project/{id} with its type', async () => {
    const p = await createProject(t.app, owner.auth);
    const props = ProjectSchema.properties as Record<string, { type?: string; items?: unknown; format?: string; anyOf?: unknown; enum?: unknown[] }>;
    const skip = new Set([
      '_id',
      '__v',
      'user',
      'floors',
      'configuredSecrets',
      'createdAt',
      'updatedAt',
      'administrators',
      'editors',
      'commercialSpaces',
      'invites',
      'customFinishes',
      'lockScreenCustomQuestions',
      'ftpMapping',
      'yiStatusMapping',
      'allocations',
      'customFormFields',
      'plan',
      'namespace',
      'hostName',
    ]);
    const body: Record<string, unknown> = {};
    for (const [k, s] of Object.entries(props)) {
      if (skip.has(k)) continue;
      if (s.format === 'email' || s.format === 'email-list') body[k] = `${k.toLowerCase()}@example.com`;
      else if (s.format === 'time-zone') body[k] = 'Europe/Paris';
      else if (k === 'eventsBlockList') body[k] = '203.0.113.7, *@example.com';
      else if (k === 'perimeter') body[k] = '45.5,-73.5 45.6,-73.5 45.6,-73.4';
      else if (k === 'chargeCurrency' || k === 'payProviderCurrency') body[k] = 'eur';
      else if (k === 'srBaseUrl') body[k] = 'https://crm.example.invalid/v2';
      else if (Array.isArray(s.enum)) body[k] = s.enum[0];
      else if (s.type === 'string') body[k] = `value of ${k}`;
      else if (s.type === 'number') body[k] = 7.5;
      else if (s.type === 'boolean') body[k] = true;
      else if (s.type === 'array') body[k] = [`${k}-1`, `${k}-2`];
      else assert.fail(`unexpected schema for ${k}`);
    }
    Object.assign(body, {
      commercialSpaces: await ownUnits(p._id),
      invites: [{ firstName: 'Ana', lastName: 'Ruiz', email: 'ana@example.com', level: 'editor' }],
      customFinishes: {
        name: 'Finishes',
        options: { kitchen: { tabs: [{ label: 'Oak', cover: 'c.jpg', thumbnail: 't.jpg' }] }, bathroom: { tabs: [] }, general: { tabs: [] } },
      },
      lockScreenCustomQuestions: [{ lang: 'en', value: 'Budget?' }],
      ftpMapping: [{ header: 'Unit', property: 'name' }],
      yiStatusMapping: { available: 'A', leased: 'L', sold: 'S', unavailable: 'U', reserved: 'R' },
      customFormFields: [{ label: 'Budget', type: 'text' }],
      plan: { tier: 'pro' },
    });
    // A hand-written sample of the interface's names, so a field dropped from the schema is caught too.
    for (const name of [
      'websiteURL',
      'walkscore',
      'crfMessage',
      '_3dFloorSelectorModelUrl',
      'lockScreenCustom',
      'hideBedrooms',
      'ftpPort',
      'payProviderDeposit',
      'styleFont',
      'colorReserved',
      'soDomain',
      'brochureAssets',
      'eventsBlockList',
      'phasePrefix',
      'mapLayoutRotation',
      'globalAmount',
    ]) {
      assert.ok(name in body, `spec field ${name} is in the schema`);
    }
    const res = await inject('PATCH', `/project/${p._id}`, body);
    assert.equal(res.statusCode, 200, res.body);
    const got = (await inject('GET', `/project/${p._id}`)).json();
    for (const [k, v] of Object.entries(body)) assert.deepEqual(got[k], v, k);
  });

  test('a field of the wrong type → 400 naming each bad field; unknown fields → 400 naming them', async () => {
    const p = await createProject(t.app, owner.auth);
    const res = await inject('PATCH', `/project/${p._id}`, {
      showPrices: 'yes',
      onHoldMinsDuration: '5',
      images: 'a.jpg',
      formsSendTo: 'not-mail',
      noSuchField: 1,
    });
    assert.equal(res.statusCode, 400);
    const paths = res
      .json()
      .errors.map((e: { path: string }) => e.path)
      .sort();
    assert.deepEqual(paths, ['/formsSendTo', '/images', '/noSuchField', '/onHoldMinsDuration', '/showPrices']);
  });

  test('GET /project/{id} and /projects/{id}; malformed id → 400; unknown id → 404', async () => {
    const p = await createProject(t.app, owner.auth);
    for (const base of ['/project', '/projects']) {
      const res = await inject('GET', `${base}/${p._id}`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.json()._id, p._id);
      assert.equal(res.headers.etag, '"1"');
    }
    assert.equal((await inject('GET', '/project/not-an-id')).statusCode, 400);
    assert.equal((await inject('GET', `/project/${newObjectId()}`)).statusCode, 404);
    assert.equal((await inject('PATCH', `/projects/${p._id}`, { name: 'Renamed' })).json().name, 'Renamed');
  });
});

describe('GET /projects search: filters, order, paging, visibility', () => {
  let searcher: Awaited<ReturnType<typeof userWithToken>>;
  const names = ['Tower Alpha', 'tower beta', 'Garden Court', 'Harbour TOWER', 'Lofts One', 'Lofts Two', 'Park Tower View'];
  const ids: string[] = [];
  before(async () => {
    searcher = await userWithToken(t);
    for (const [i, name] of names.entries()) {
      clock.advance(1000);
      ids.push((await createProject(t.app, searcher.auth, { name, body: { projectType: i % 2 ? 'rental' : 'condo' } }))._id);
    }
  });
  const list = (url: string) => t.app.inject({ method: 'GET', url, headers: searcher.auth });

  test('filters.name matches a case-insensitive substring, in JSON and bracket form; X-Total-Count', async () => {
    for (const url of [`/projects?filters=${encodeURIComponent('{"name":"TOWER"}')}`, '/projects?filters[name]=tower']) {
      const res = await list(url);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        res
          .json()
          .map((p: { name: string }) => p.name)
          .sort(),
        ['Harbour TOWER', 'Park Tower View', 'Tower Alpha', 'tower beta'],
      );
      assert.equal(res.headers['x-total-count'], '4');
    }
    const wild = await list('/projects?filters[name]=%25');
    assert.equal(wild.json().length, 0, '% is matched literally');
  });

  test('filters.projectType matches exactly; other filter keys and bad options → 400', async () => {
    const res = await list('/projects?filters[projectType]=rental');
    assert.deepEqual(
      res
        .json()
        .map((p: { name: string }) => p.name)
        .sort(),
      ['Harbour TOWER', 'Lofts Two', 'tower beta'],
    );
    assert.equal((await list('/projects?filters[projectType]=rent')).json().length, 0);
    for (const bad of [
      'filters[owner]=x',
      'options[limit]=0',
      'options[limit]=501',
      'options[limit]=abc',
      'options[skip]=-1',
      'options[sort]=price',
      `filters=${encodeURIComponent('{bad')}`,
    ]) {
      const r = await list(`/projects?${bad}`);
      assert.equal(r.statusCode, 400, bad);
      assert.equal(r.json().code, 'invalid_query');
    }
  });

  test('default order is newest first; sort by name both ways; stable pages that cover everything once', async () => {
    const all = (await list('/projects')).json().map((p: { _id: string }) => p._id);
    assert.deepEqual(all, [...ids].reverse());
    const byName = (await list('/projects?options[sort]=name')).json().map((p: { name: string }) => p.name);
    assert.deepEqual(byName, ['Garden Court', 'Harbour TOWER', 'Lofts One', 'Lofts Two', 'Park Tower View', 'Tower Alpha', 'tower beta']);
    const desc = (await list('/projects?options[sort]=-name')).json().map((p: { name: string }) => p.name);
    assert.deepEqual(desc, [...byName].reverse());
    const pages: string[] = [];
    for (let skip = 0; skip < 9; skip += 3) {
      const res = await list(`/projects?options=${encodeURIComponent(JSON.stringify({ skip, limit: 3, sort: 'createdAt' }))}`);
      assert.equal(res.headers['x-total-count'], String(names.length));
      pages.push(...res.json().map((p: { _id: string }) => p._id));
    }
    assert.deepEqual(pages, ids);
    const past = await list('/projects?options[skip]=50');
    assert.deepEqual(past.json(), []);
    assert.equal(past.headers['x-total-count'], String(names.length));
  });

  test('only visible projects are listed; a platform admin sees them all', async () => {
    const stranger = await userWithToken(t);
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/projects', headers: stranger.auth })).json(), []);
    const admin = await userWithToken(t, { role: 'admin' });
    const seen = (await t.app.inject({ method: 'GET', url: '/projects?options[limit]=500', headers: admin.auth })).json().map((p: { _id: string }) => p._id);
    for (const id of ids) assert.ok(seen.includes(id));
  });
});

describe('deleting a project', () => {
  test('deleting a project removes its floors, units, leads and group memberships; groups stay', async () => {
    const p = await createProject(t.app, owner.auth);
    const keep = await createProject(t.app, owner.auth);
    const f = await createFloor(t.app, owner.auth, p._id);
    const u = await createUnit(t.app, owner.auth, p._id, { floor: f._id });
    await insertLead(t.db.kysely, { id: newObjectId(), projectId: p._id, data: { firstName: 'A', email: 'a@example.com' } });
    const g = (await inject('POST', '/groups?name=G', { projects: [p._id, keep._id] })).json();
    assert.equal((await inject('DELETE', `/project/${p._id}`)).statusCode, 204);
    assert.equal((await inject('GET', `/project/${p._id}`)).statusCode, 404);
    assert.equal((await inject('GET', `/floors/${f._id}`)).statusCode, 404);
    assert.equal((await inject('GET', `/units/${u._id}`)).statusCode, 404);
    const leads = await t.db.kysely.selectFrom('leads').select('id').where('project_id', '=', p._id).execute();
    assert.equal(leads.length, 0);
    assert.deepEqual((await inject('GET', `/groups/${g._id}`)).json().projects, [keep._id]);
    assert.equal((await inject('DELETE', `/groups/${g._id}`)).statusCode, 204);
    assert.equal((await inject('GET', `/project/${keep._id}`)).statusCode, 200, 'deleting a group deletes no project');
  });

  test('a project delete moves the version of the groups listing it, and only when it happens (a stale If-Match → 412, groups untouched)', async () => {
    const p = await createProject(t.app, owner.auth);
    const g = (await inject('POST', '/groups?name=G', { projects: [p._id] })).json();
    const other = (await inject('POST', '/groups?name=H', {})).json();
    const etag = String((await inject('GET', `/project/${p._id}`)).headers.etag);
    const version = async (id: string) => (await inject('GET', `/groups/${id}`)).json().__v as number;

    assert.equal((await inject('PATCH', `/project/${p._id}`, { name: 'Moved' }, { ...owner.auth, 'if-match': etag })).statusCode, 200);
    assert.equal((await inject('DELETE', `/project/${p._id}`, undefined, { ...owner.auth, 'if-match': etag })).statusCode, 412);
    assert.equal(await version(g._id), g.__v, 'a refused delete leaves the group as it was');

    const current = String((await inject('GET', `/project/${p._id}`)).headers.etag);
    assert.equal((await inject('DELETE', `/project/${p._id}`, undefined, { ...owner.auth, 'if-match': current })).statusCode, 204);
    assert.equal(await version(g._id), g.__v + 1);
    assert.deepEqual((await inject('GET', `/groups/${g._id}`)).json().projects, []);
    assert.equal(await version(other._id), other.__v, 'a group that did not list it stays');
  });
});
