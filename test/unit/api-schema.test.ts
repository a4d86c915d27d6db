// web/api-schema.d.ts is what `npm run gen:api` writes from the OpenAPI document the service serves now: a schema
// changed under src/ without generating again fails here, naming the command that brings the file up to date.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { API_SCHEMA_FILE, apiSchemaText } from '../../scripts/gen-api.ts';

test('web/api-schema.d.ts is up to date with the OpenAPI document (npm run gen:api)', async () => {
  const committed = readFileSync(API_SCHEMA_FILE, 'utf8');
  const now = await apiSchemaText();
  assert.ok(committed === now, 'web/api-schema.d.ts differs from the OpenAPI document the service serves: run `npm run gen:api` and commit the file');
});
