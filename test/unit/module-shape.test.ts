import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The module shape (docs/architecture.md): the parts npm run lint:deps cannot see, as imports do not show them. */
const SRC = join(import.meta.dirname, '../../src');
const AREAS = ['public', 'presentation', ...readdirSync(join(SRC, 'modules')).map((m) => join('modules', m))];
const filesOf = (area: string) => readdirSync(join(SRC, area)).filter((f) => f.endsWith('.ts'));

test('every area with routes has a service for them to call', () => {
  for (const area of AREAS) {
    const files = filesOf(area);
    if (files.some((f) => f.endsWith('.routes.ts')))
      assert.ok(
        files.some((f) => f.endsWith('.service.ts')),
        `${area} has routes but no *.service.ts`,
      );
  }
});

test('no route checks access or reaches the database itself: that is its service', () => {
  const forbidden = /\b(authorize|levelOf|can|checkGuardedFields)\(|\bctx\.db\b|\.kysely\b/;
  for (const area of AREAS) {
    for (const file of filesOf(area).filter((f) => f.endsWith('.routes.ts'))) {
      const hit = readFileSync(join(SRC, area, file), 'utf8').match(forbidden);
      assert.equal(hit, null, `${area}/${file}: ${hit?.[0]}`);
    }
  }
});

test('every area with routes has a schemas file for their request and response schemas', () => {
  for (const area of AREAS) {
    const files = filesOf(area);
    if (files.some((f) => f.endsWith('.routes.ts')))
      assert.ok(
        files.some((f) => f.endsWith('.schemas.ts')),
        `${area} has routes but no *.schemas.ts`,
      );
  }
});

test('no route builds a TypeBox schema: it names one from a schemas file (a Type.Ref to a named schema is a name too)', () => {
  const builds = /\bType\.(?!Ref\b)\w+/;
  // The console's routes (src/admin/) are routes files too, though the console is no module.
  for (const area of [...AREAS, 'admin']) {
    for (const file of filesOf(area).filter((f) => f.endsWith('.routes.ts'))) {
      const hit = readFileSync(join(SRC, area, file), 'utf8').match(builds);
      assert.equal(hit, null, `${area}/${file}: ${hit?.[0]}`);
    }
  }
});
