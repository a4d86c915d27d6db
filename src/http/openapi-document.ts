/**
 * What the routes cannot say about the API as a whole, added to the generated OpenAPI document in one place: the
 * integrator's guide and the tags' words (openapi-text.ts), object-valued queries as bracket-named parameters, the
 * conditional and idempotency headers, the answers every route can give (problem+json), response headers, and one
 * example per operation. An operation's id, tags and summary, a field's description, the headers it reads
 * (Idempotency-Key) and what its schema alone cannot say (`x-create-inputs`, `x-requires-one-of`, typed below) are
 * declared where the route and the schema are (docs/architecture.md).
 */
import type { FastifySchema } from 'fastify';
import { exampleOf, type Schema } from './openapi-examples.ts';
import { INTRO, TAGS } from './openapi-text.ts';
import { PROBLEM_TEXT } from './schemas.ts';

/** The parts of an OpenAPI 3.1 document this file reads or writes; everything else passes through untouched. */
export interface OpenApiDocument {
  info: { description?: string };
  servers?: { url: string; description?: string }[];
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; headers?: Record<string, Header>; parameters?: Record<string, Parameter> };
}

interface Ref {
  $ref: string;
}

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
  example?: unknown;
}

interface Header {
  description: string;
  schema: Schema;
}

interface MediaType {
  schema?: Schema;
  example?: unknown;
}

interface OperationResponse {
  description: string;
  content?: Record<string, MediaType>;
  headers?: Record<string, Header | Ref>;
}

declare module 'fastify' {
  /**
   * What a route's schema says of its operation for the document alone, beside the parts that validate. @fastify/swagger
   * copies a route schema's `x-` keys onto the operation; the finishing reads them and takes them out.
   */
  interface FastifySchema {
    /**
     * A create whose inputs may come as query parameters or as the same fields of its JSON body, the query winning;
     * `required` names those it refuses to do without (400 `is required` when neither place has it).
     */
    'x-create-inputs'?: { required: readonly string[] };
    /**
     * A body that names its subject by one of these fields. The handler checks it (400 `invalid_body` naming the
     * first); the document says it as `anyOf` so generators and linters see it too, while the validating schema
     * leaves it to the handler's words.
     */
    'x-requires-one-of'?: readonly string[];
  }
}

/** The route schema's words for the document, as they arrive on the operation. */
type OperationNotes = Pick<FastifySchema, 'x-create-inputs' | 'x-requires-one-of'>;

interface Operation extends OperationNotes {
  tags?: string[];
  security?: unknown[];
  parameters?: (Parameter | Ref)[];
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses: Record<string, OperationResponse>;
}

/** Routes that answer HTML for people, not JSON for programs: they stay out of the API document. */
export const HTML_ROUTES = new Set(['/', '/p/:namespace', '/p/:namespace/units/:unitId', '/p/:namespace/units/:unitId/:frame', '/g/:namespace', '/admin']);

/** The verbs an operationId may start with (test/openapi-conventions.test.ts holds every route's operationId to them). */
export const OPERATION_VERBS = [
  'list',
  'get',
  'create',
  'update',
  'delete',
  'hold',
  'log',
  'refresh',
  'request',
  'confirm',
  'accept',
  'submit',
  'join',
  'stream',
  'upload',
  'import',
  'sync',
  'invite',
  'revoke',
  'retry',
  'check',
  'release',
  'extend',
  'duplicate',
  'copy',
  'suggest',
  'export',
  'erase',
  'refund',
  'test',
];

const header = (description: string, schema: Schema = { type: 'string' }): Header => ({ description, schema });
const count = { type: 'integer', minimum: 0 };

const HEADERS = {
  'X-Request-Id': header('Identifies this request in the service logs; echoes a valid incoming X-Request-Id. A 500 body carries it too.'),
  ETag: header('The record’s version, `"<__v>"`. Send it as If-Match to change or delete only that version.'),
  Location: header('Path of the record just created.'),
  'X-Total-Count': header('Number of matching records before skip and limit.', count),
  'Retry-After': header('Seconds to wait before trying again.', count),
  'X-RateLimit-Limit': header('Requests allowed in the window.', count),
  'X-RateLimit-Remaining': header('Requests left in the window.', count),
  'X-RateLimit-Reset': header('Seconds until the window ends.', count),
  'Idempotent-Replayed': header('`true` when this is the stored answer to an earlier request with the same Idempotency-Key.', {
    type: 'string',
    enum: ['true'],
  }),
};
const isSharedHeader = (name: string): name is keyof typeof HEADERS => Object.hasOwn(HEADERS, name);

const PARAMETERS = {
  IfMatch: {
    in: 'header',
    name: 'If-Match',
    required: false,
    description: 'Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.',
    schema: { type: 'string', maxLength: 1000 },
    example: '"3"',
  },
  IfNoneMatch: {
    in: 'header',
    name: 'If-None-Match',
    required: false,
    description: 'The ETag of the copy the client holds; when it is still current the answer is 304 with no body.',
    schema: { type: 'string', maxLength: 1000 },
    example: '"65f0c0ffee00000000000001-12-0"',
  },
  IdempotencyKey: {
    in: 'header',
    name: 'Idempotency-Key',
    required: false,
    description:
      'Retry-safe key (1–200 visible ASCII characters, a UUID is ideal): a retry with the same key and request gets the first answer again ' +
      'and writes nothing more; the same key with another request → 422. Kept 24 hours.',
    schema: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[\\x21-\\x7e]+$' },
    example: '6f1c1f0e-2f4a-4b59-9d0e-0a6f5a1c2b3d',
  },
} satisfies Record<string, Parameter>;

/** Request headers a route may declare that the document names once, by reference. */
const SHARED_PARAMETERS: Record<string, keyof typeof PARAMETERS> = {
  'if-match': 'IfMatch',
  'if-none-match': 'IfNoneMatch',
  'idempotency-key': 'IdempotencyKey',
};

const ref = (kind: 'headers' | 'parameters' | 'schemas', name: string): Ref => ({ $ref: `#/components/${kind}/${name}` });
const isRef = (x: object): x is Ref => '$ref' in x;

/** The component name a `$ref` points at (`#/components/schemas/Unit` → `Unit`). */
const refName = (reference: string) => reference.slice(reference.lastIndexOf('/') + 1);
/** A schema, its reference followed. */
const resolved = (schema: Schema, doc: OpenApiDocument): Schema | undefined => (schema.$ref ? doc.components.schemas[refName(schema.$ref)] : schema);

const problemResponse = (description: string): OperationResponse => ({
  description,
  content: { 'application/problem+json': { schema: ref('schemas', 'Problem') } },
});

function operations(doc: OpenApiDocument): { method: string; path: string; op: Operation }[] {
  const out = [];
  for (const [path, methods] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(methods)) out.push({ method: method.toUpperCase(), path, op });
  }
  return out;
}

/** The document as integrators meet it: `doc`, changed in place. */
export function finishDocument(doc: OpenApiDocument, opts: { publicUrl: string }): void {
  doc.info.description = INTRO;
  doc.servers = [{ url: opts.publicUrl, description: 'This service (PUBLIC_URL)' }];
  const used = new Set(operations(doc).flatMap(({ op }) => op.tags ?? []));
  doc.tags = TAGS.filter((t) => used.has(t.name));
  doc.components.headers = HEADERS;
  doc.components.parameters = PARAMETERS;
  for (const { method, path, op } of operations(doc)) finishOperation(doc, method, path, op);
}

function finishOperation(doc: OpenApiDocument, method: string, path: string, op: Operation) {
  const params = (op.parameters ??= []);
  params.splice(0, params.length, ...params.flatMap(bracketParams));
  for (const p of params) if (!isRef(p) && p.in === 'query' && p.schema) p.schema = plainEnum(p.schema);
  params.forEach((p, i) => {
    const shared = !isRef(p) && p.in === 'header' ? SHARED_PARAMETERS[p.name.toLowerCase()] : undefined;
    if (shared) params[i] = ref('parameters', shared);
  });
  const responses = op.responses;
  const hasParam = (name: string) =>
    params.some((p) =>
      isRef(p) ? p.$ref === `#/components/parameters/${SHARED_PARAMETERS[name.toLowerCase()] ?? ''}` : p.name.toLowerCase() === name.toLowerCase(),
    );
  // A body, when the route takes one, with its reference followed.
  const body = op.requestBody?.content?.['application/json']?.schema;
  const bodySchema = body && resolved(body, doc);
  // If-Match is a header of one record's PATCH or DELETE; a bulk change (a list of records) names each item's version in it.
  const bulk = bodySchema?.type === 'array';
  if (responses['412'] && !bulk && !hasParam('If-Match') && (method === 'PATCH' || method === 'DELETE')) params.push(ref('parameters', 'IfMatch'));
  // Every 200 with an ETag answers If-None-Match naming it with 304 (one hook, http/conditional.ts).
  if (method === 'GET' && responses['200']?.headers?.ETag && !responses['304']) {
    responses['304'] = { description: 'Not modified: the If-None-Match ETag is still current; no body', headers: { ETag: HEADERS.ETag } };
  }
  if (responses['304'] && !hasParam('If-None-Match')) params.push(ref('parameters', 'IfNoneMatch'));
  // A route that honours Idempotency-Key declares the header (schema.headers), named above by the shared parameter.
  const idempotent = hasParam('Idempotency-Key');
  if (idempotent && !responses['422']) responses['422'] = problemResponse('Idempotency-Key reused with another request');
  // A parameter with a default may be left out: the service fills it in.
  for (const p of params) if (!isRef(p) && p.in !== 'path' && p.schema?.default !== undefined) p.required = false;
  addGlobalAnswers(method, path, op);
  if (!params.length) delete op.parameters;
  // A route that takes a body gets `{}` when none is sent (app.ts): the body is required only when `{}` is not valid.
  if (op.requestBody && bodySchema?.type === 'object' && !bodySchema.required?.length && !bodySchema.anyOf) op.requestBody.required = false;
  // A 304 has no body, whatever the route's schema made of its description.
  if (responses['304']) delete responses['304'].content;
  // What the route's schema declared for the document alone (its `x-` keys), taken out of the operation: a create's
  // inputs, whose request body it can do without, and a body that names its subject by one of two fields.
  const { 'x-create-inputs': createInputs, 'x-requires-one-of': oneOf } = op;
  delete op['x-create-inputs'];
  delete op['x-requires-one-of'];
  if (createInputs) documentCreateInputs(op, params, createInputs.required);
  if (oneOf) requireOneOf(doc, op, oneOf);

  addExamples(doc, op);
  // Probes take no input, yet any request may carry too many headers.
  if (!Object.keys(responses).some((s) => s.startsWith('4'))) responses['431'] = problemResponse('Request headers too large');
  for (const [status, response] of Object.entries(responses)) {
    const headers: Record<string, Header | Ref> = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
    for (const [name, given] of Object.entries(response.headers ?? {})) headers[name] = isSharedHeader(name) ? ref('headers', name) : given;
    if (status === '429') {
      for (const name of ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) headers[name] = ref('headers', name);
    }
    if (idempotent && /^2/.test(status)) headers['Idempotent-Replayed'] = ref('headers', 'Idempotent-Replayed');
    response.headers = headers;
  }
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** What the buyer's pages host serves besides pages (http/pages-host.ts); anything else there is 404. */
const ON_PAGES_HOST = (path: string) => path.startsWith('/public/') || path === '/media/{name}' || path === '/health' || path === '/ready';

/**
 * The answers hooks and handlers shared by every route can give before or around its own (test/openapi-coverage.test.ts
 * provokes each one on every route): body limit and media type (413, 415) wherever a body may come, an over-long
 * path segment (414), no or bad credentials in the authenticated scope (401), a cookie-authenticated change from
 * another site or a read-only token writing (403), the pages host refusing what it does not serve (404), and an
 * unavailable database or store (500, 503). Rate limits (429) are each route's own and declared by it.
 */
function addGlobalAnswers(method: string, path: string, op: Operation) {
  const statuses = [500, 503];
  if (WRITES.has(method)) statuses.push(413, 415);
  if (path.includes('{')) statuses.push(414);
  if (op.security === undefined) statuses.push(401);
  if (WRITES.has(method) && !path.startsWith('/public/')) statuses.push(403);
  if (!ON_PAGES_HOST(path)) statuses.push(404);
  const responses = op.responses;
  for (const status of statuses) if (!responses[status]) responses[status] = problemResponse(PROBLEM_TEXT[status] ?? 'Error');
  // In status order, as a reader looks them up.
  for (const status of Object.keys(responses).sort()) {
    const response = responses[status];
    delete responses[status];
    if (response) responses[status] = response;
  }
}

/**
 * An object-valued query (`filters`, `options`) as one parameter per field in bracket form (`filters[priceMin]`),
 * the form the service reads. As one `style: deepObject` parameter, some generators send `[object Object]`; as
 * plain parameters every generator sends each field as it is (test/openapi-clients.test.ts).
 */
function bracketParams(p: Parameter | Ref): (Parameter | Ref)[] {
  const props = !isRef(p) && p.in === 'query' && p.schema?.type === 'object' ? p.schema.properties : undefined;
  if (isRef(p) || !props) return [p];
  const required = new Set<string>(p.required ? (p.schema?.required ?? []) : []);
  return Object.entries(props).map(([key, schema]) => ({
    in: 'query',
    name: `${p.name}[${key}]`,
    required: required.has(key),
    ...(schema.description ? { description: schema.description } : {}),
    schema,
  }));
}

/**
 * A choice of literals (`anyOf` of `const`s, as TypeBox writes a union of literals) as one `enum`: the same values,
 * in the form the reference page offers as a list to pick from ("Try it out" on `options[sort]`).
 */
function plainEnum(schema: Schema): Schema {
  const options = schema.anyOf;
  const literal = (o: Schema) => o.const !== undefined || (Array.isArray(o.enum) && o.enum.length === 1);
  if (!options?.length || !options.every(literal)) return schema;
  const { anyOf: _, ...rest } = schema;
  const values = options.map((o): unknown => o.const ?? o.enum?.[0]);
  return { ...rest, type: options[0]?.type ?? 'string', enum: values };
}

/**
 * A create (`x-create-inputs`) takes its inputs as query parameters (as the interface describes creates) or in its JSON
 * body, the query winning: every query parameter is one of them, the required ones are required query parameters, and
 * the same fields in the body say they are the alternative. OpenAPI cannot say
 * "one of these two places"; a client that follows the document sends them in the query, which always works.
 */
function documentCreateInputs(op: Operation, params: (Parameter | Ref)[], required: readonly string[]) {
  if (op.requestBody) op.requestBody.required = false;
  const sentence = (text: string | undefined) => (text ? (/[.!?]$/.test(text) ? text : `${text}.`) : '');
  const inQuery = (name: string) => params.some((p) => !isRef(p) && p.in === 'query' && p.name === name);
  for (const p of params) {
    if (isRef(p) || p.in !== 'query' || !required.includes(p.name)) continue;
    const how = `Required here, or as the JSON body's \`${p.name}\` instead; when both are sent this one wins.`;
    Object.assign(p, { required: true, description: [sentence(p.description), how].filter(Boolean).join(' ') });
  }
  const json = op.requestBody?.content?.['application/json'];
  const props = json?.schema?.properties;
  if (!json?.schema || !props) return;
  // New objects, so a body schema shared with another operation (the PATCH of the same record) keeps its own text.
  const changed: Record<string, Schema> = { ...props };
  for (const [name, schema] of Object.entries(props)) {
    if (!inQuery(name)) continue;
    const rule = required.includes(name) ? 'one of the two is required' : 'both may be left out';
    changed[name] = {
      ...schema,
      description: `${sentence(schema.description)} Or the query parameter of the same name (which wins when both are sent); ${rule}.`.trim(),
    };
  }
  json.schema = { ...json.schema, properties: changed };
}

function requireOneOf(doc: OpenApiDocument, op: Operation, names: readonly string[]) {
  const schema = op.requestBody?.content?.['application/json']?.schema;
  const target = schema && resolved(schema, doc);
  if (target) target.anyOf = names.map((name) => ({ required: [name] }));
}

/** One example per operation: of its JSON body and its JSON answer, or else of its path parameters. */
function addExamples(doc: OpenApiDocument, op: Operation) {
  const resolve = (schema: Schema) => resolved(schema, doc);
  let shown = false;
  const json = op.requestBody?.content?.['application/json'];
  if (json?.schema && json.example === undefined) {
    const example = exampleOf(json.schema, resolve, undefined, 0, true);
    if (example !== undefined) json.example = example;
  }
  shown ||= json?.example !== undefined;
  for (const [status, response] of Object.entries(op.responses)) {
    const media = response.content?.['application/json'];
    if (!/^2/.test(status) || !media?.schema || media.example !== undefined) continue;
    const example = exampleOf(media.schema, resolve);
    if (example !== undefined) media.example = example;
    shown ||= example !== undefined;
  }
  if (shown) return;
  for (const p of op.parameters ?? []) {
    if (isRef(p) || p.example !== undefined) continue;
    const example = exampleOf(p.schema, resolve, p.name);
    if (example !== undefined) p.example = example;
  }
}
