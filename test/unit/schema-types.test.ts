// src/db/schema.ts is generated from the migrated database (`npm run gen:schema`): a migration that adds, drops or
// changes a column fails here until the types are generated again, so the types never drift from the tables.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SCHEMA_FILE, schemaText } from '../../scripts/gen-schema.ts';

test('src/db/schema.ts is what npm run gen:schema writes from the migrated database', async () => {
  assert.equal(await schemaText(), readFileSync(SCHEMA_FILE, 'utf8'), 'the tables changed: run `npm run gen:schema` and review the diff');
});
