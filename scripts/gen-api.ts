// `npm run gen:api`: the API's types for web/ (the page's and the console's typed client), from the OpenAPI document
// the service serves. test/unit/api-schema.test.ts fails when the committed file is not what this writes now.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { format, resolveConfig } from 'prettier';
import { openapiDocument } from './openapi-document.ts';

export const API_SCHEMA_FILE = fileURLToPath(new URL('../web/api-schema.d.ts', import.meta.url));

const HEADER = `/**
 * The service's API as types, generated from its OpenAPI document by \`npm run gen:api\` (openapi-typescript).
 * Do not edit: change the schemas under src/ and generate again.
 */
`;

/** The file's text as the script writes it (formatted as the repository formats web/). */
export async function apiSchemaText(): Promise<string> {
  // The document's own type is a plain JSON object; openapi-typescript reads it as OpenAPI 3.
  const document = (await openapiDocument()) as unknown as OpenAPI3;
  const text = HEADER + astToString(await openapiTS(document));
  return format(text, { ...(await resolveConfig(API_SCHEMA_FILE)), filepath: API_SCHEMA_FILE });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(API_SCHEMA_FILE, await apiSchemaText());
  console.log(`wrote ${API_SCHEMA_FILE}`);
}
