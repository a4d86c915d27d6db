import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CODE_OF, filesReading, PLACES, type Place, readingCode, ROOT, specFields } from '../support/spec-fields.ts';

/**
 * docs/fields.md: every field of the interface description is listed with where it acts, and a field
 * listed as acting on the page, the group page, in mail or in the service is read by some code of that place.
 */
const DOC = readFileSync(join(ROOT, 'docs/fields.md'), 'utf8');

/** Resource → field → the places its row names, from the `## Resource` tables of docs/fields.md. */
function documented(text: string): Map<string, Map<string, string[]>> {
  const out = new Map<string, Map<string, string[]>>();
  let rows: Map<string, string[]> | undefined;
  for (const line of text.split('\n')) {
    const heading = /^## (\w+)$/.exec(line);
    if (heading) out.set(heading[1]!, (rows = new Map()));
    const row = /^\| `([^`]+)` \| ([^|]+) \|/.exec(line);
    if (row && rows)
      rows.set(
        row[1]!,
        row[2]!.split('·').map((p) => p.trim()),
      );
  }
  return out;
}

const doc = documented(DOC);
const spec = specFields();

test('the interface description is read: its seven resources and their 330 fields', () => {
  assert.deepEqual([...spec.keys()], ['User', 'Invite', 'Group', 'Floor', 'Unit', 'Lead', 'Project']);
  assert.equal(
    [...spec.values()].reduce((n, f) => n + f.length, 0),
    330,
  );
  // A few from each way the description lists them (a table cell of several names, a paragraph, a bracketed note).
  for (const [resource, field] of [
    ['User', 'address2'],
    ['Group', 'showFloorOverview'],
    ['Unit', 'customButtonSnippet'],
    ['Project', '_3dFloorSelectorModelUrl'],
    ['Project', 'customFormFields'],
    ['Project', 'styleFont'],
    ['Project', 'onHoldMinsDuration'],
    ['Project', 'yiStatusMapping'],
  ])
    assert.ok(spec.get(resource!)?.includes(field!), `${resource}.${field}`);
});

test('docs/fields.md lists every field of every resource, each with where it acts', () => {
  const missing: string[] = [];
  for (const [resource, fields] of spec) for (const f of fields) if (!doc.get(resource)?.has(f)) missing.push(`${resource}.${f}`);
  assert.deepEqual(missing, [], 'fields of the interface description missing from docs/fields.md');
  const unknown: string[] = [];
  for (const [resource, rows] of doc)
    for (const [f, places] of spec.has(resource) ? rows : []) for (const p of places) if (!PLACES.includes(p as Place)) unknown.push(`${resource}.${f}: ${p}`);
  assert.deepEqual(unknown, [], `places are ${PLACES.join(', ')}`);
});

test('a field listed as acting somewhere is read by code of that place', () => {
  const code = readingCode();
  const unread: string[] = [];
  for (const [resource, rows] of doc) {
    if (!spec.has(resource)) continue;
    for (const [field, places] of rows) {
      // `preferences.hideBrandingIcon`: the name read is the last part.
      const name = field.split('.').pop()!;
      for (const place of places)
        if (place in CODE_OF && !filesReading(code, name, CODE_OF[place as keyof typeof CODE_OF]).length) unread.push(`${resource}.${field} (${place})`);
    }
  }
  assert.deepEqual(unread, [], 'listed as acting, but no code of that place reads them');
});

test('the rule finds a field only where code reads it: not in schemas, type declarations or comments', () => {
  const code = readingCode();
  // Declared in the project schema, named in comments and read by the map's code, but by no mail.
  assert.deepEqual(filesReading(code, 'lotsLayout', CODE_OF.mail), []);
  assert.ok(filesReading(code, 'lotsLayout', CODE_OF.service).includes('src/modules/shared/map-look.ts'));
  assert.ok(!code.has('src/modules/projects/projects.schemas.ts'));
  assert.ok(!code.has('web/api-schema.d.ts'));
  assert.ok(filesReading(code, 'formsSubject', CODE_OF.mail).includes('src/mail/templates.ts'));
  assert.ok(filesReading(code, 'showPriceFilter', CODE_OF.page).includes('web/views/controls.ts'));
  assert.ok(filesReading(code, 'showPriceFilter', CODE_OF['group page']).includes('src/presentation/group-model.ts'));
  // Kept for the sales team: linked in the console, shown on no page (the bundle names it only to leave it out).
  assert.deepEqual(filesReading(code, 'internalURL', CODE_OF['group page']), []);
  assert.ok(filesReading(code, 'internalURL', CODE_OF.console).includes('web/admin/screens/project.tsx'));
  assert.ok(!CODE_OF.page('web/admin/screens/settings.tsx'), 'the console is not the page');
});
