// Prints the OpenAPI document the service serves, built on an in-memory PGlite (no server, no data dir).
import { openapiDocument } from './openapi-document.ts';

process.stdout.write(`${JSON.stringify(await openapiDocument(process.env.PUBLIC_URL), null, 2)}\n`);
