/**
 * What the route schemas cannot say about the API as a whole, added to the generated OpenAPI document in one
 * place: verb operationIds, defined tags, object-valued queries as bracket-named parameters, the conditional and
 * idempotency headers, response headers, server-kept fields as readOnly, one example per operation, and the
 * guide an integrator reads first (info.description).
 */
import { exampleOf, refName } from './openapi-fields.ts';
import { PROBLEM_TEXT } from './schemas.ts';

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access,
   @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument --
   an OpenAPI document is plain JSON walked by key; its shape is checked by redocly and test/openapi-conventions.test.ts */
type Json = Record<string, any>;

/** Routes that answer HTML for people, not JSON for programs: they stay out of the API document. */
export const HTML_ROUTES = new Set(['/', '/p/:namespace', '/p/:namespace/units/:unitId', '/g/:namespace', '/admin']);

/** The verbs an operationId may start with (test/openapi-conventions.test.ts holds every operation to them). */
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
];

const TAGS = [
  { name: 'auth', description: 'Log in (body or query), refresh the access token (cookie or body), log out, reset a password.' },
  { name: 'users', description: 'Accounts: the caller’s own record, and user creation by platform administrators.' },
  { name: 'projects', description: 'Developments: search, create, change (with If-Match), delete; invitations to a project’s team.' },
  { name: 'floors', description: 'A project’s floors, in position order; each lists its units.' },
  { name: 'units', description: 'Units (apartments, lots, parkings, amenities): list with ranges, create, change one or many, delete.' },
  { name: 'groups', description: 'Groups of projects, with their own team and page settings.' },
  { name: 'leads', description: 'Enquiries collected for a project (owners and administrators).' },
  { name: 'worksheets', description: 'Realtors’ worksheets from their allocations: the sales team’s inbox, accepting with a unit or declining.' },
  { name: 'inventory', description: 'Spreadsheet and feed imports of a project’s units, with dry runs and a sync history.' },
  { name: 'events', description: 'The per-project change log (sequence numbers, oldest first) and a unit’s history.' },
  { name: 'webhooks', description: 'Signed HTTP callbacks for project events (Standard Webhooks), with delivery logs and retries.' },
  { name: 'insights', description: 'Page analytics counted without cookies, the sales dashboard of a project and its weekly report.' },
  { name: 'invites', description: 'Reading and accepting an invitation link (no token needed).' },
  { name: 'media', description: 'Uploaded images and PDFs, served with long-lived caching.' },
  {
    name: 'public',
    description: 'What anonymous presentation visitors reach: the presentation bundle, enquiries, holds, the waitlist, realtors’ allocations and worksheets.',
  },
  { name: 'console', description: 'The sales team’s console.' },
  { name: 'operations', description: 'Liveness and readiness probes.' },
];

const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });

const HEADERS: Record<string, Json> = {
  'X-Request-Id': header('Identifies this request in the service logs; echoes a valid incoming X-Request-Id. A 500 body carries it too.'),
  ETag: header('The record’s version, `"<__v>"`. Send it as If-Match to change or delete only that version.'),
  Location: header('Path of the record just created.'),
  'X-Total-Count': header('Number of matching records before skip and limit.', { type: 'integer', minimum: 0 }),
  'Retry-After': header('Seconds to wait before trying again.', { type: 'integer', minimum: 0 }),
  'X-RateLimit-Limit': header('Requests allowed in the window.', { type: 'integer', minimum: 0 }),
  'X-RateLimit-Remaining': header('Requests left in the window.', { type: 'integer', minimum: 0 }),
  'X-RateLimit-Reset': header('Seconds until the window ends.', { type: 'integer', minimum: 0 }),
  'Idempotent-Replayed': header('`true` when this is the stored answer to an earlier request with the same Idempotency-Key.', {
    type: 'string',
    enum: ['true'],
  }),
};

const PARAMETERS: Record<string, Json> = {
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
};

const INTRO = `The Showsuite API manages interactive property presentations: projects (developments), their floors and units, groups of projects, and
the enquiries (leads) visitors leave. JSON in and out; this document is generated from the schemas that validate every request.

## Authentication

Log in with \`POST /users/login\` (\`{ "username": "<e-mail>", "password": "…" }\`). The answer carries the access token (a JWT) as \`access_token\`
and \`token\`; send it as \`Authorization: Bearer <token>\`. Login also sets two HttpOnly cookies: \`service\` (the access token) and
\`serviceRefresh\` (the refresh token, path \`/users\`).

- **Lifetimes**: access tokens last 1 day (90 days for role \`integration\`); refresh tokens 7 days. \`POST /users/refresh\` takes the
  \`serviceRefresh\` cookie or \`{ "refresh_token": "…" }\` in the body and rotates it; a refresh token used twice ends its whole login. \`POST
  /users/logout\` ends the session everywhere within 60 seconds.
- **Roles**: \`user\` (default), \`admin\` (platform administrator: sees and changes everything), \`integration\` (an automation connector: a 90-day
  access token and no refresh token — log in again before it lapses).
- **Who may do what**: a project is visible to its owner, its \`administrators\` and \`editors\`. Editors change content, floors and units; owners and
  administrators also change secrets, integration settings and the team, delete floors and units and read leads; only the owner deletes the project. A
  record you cannot see is 404, never 403. Fields that run code on a page or send data somewhere (tag-manager code, embed codes and snippets,
  \`formsSendTo\`, \`reportSendTo\`, \`eventsBlockList\`, \`excludeBlockedEvents\`, \`ftp*\`, \`yiStatusMapping\`) and webhooks are the owner's and
  administrators' alone: an editor's change to one is 403.
- **Cookies and CSRF**: a browser may rely on the \`service\` cookie alone; then a POST, PATCH or DELETE whose \`Origin\` is not one of the service's
  allowed origins is refused (403 \`csrf_rejected\`); without \`Origin\`, \`Sec-Fetch-Site: cross-site\` or a \`Referer\` from another origin is
  refused the same way. Programs should send the Bearer header. Answers to authenticated requests carry \`Cache-Control: no-store\`.
- **Where the pages are**: the buyer's pages (\`/p/{namespace}\`, \`/g/{namespace}\`) are served on their own origin (\`PAGES_URL\`), another host
  than this one, which answers only the pages, \`/public/...\`, \`/media/...\` and the health checks, and reads no cookie. A page asked for here is
  redirected there (308).

## Records, versions and conditional requests

Every record carries \`_id\` (24 hex characters), \`__v\` (its version), \`createdAt\` and \`updatedAt\`. Single-record answers carry \`ETag:
"<__v>"\`. Send \`If-Match\` with that value (from a list item too) on PATCH or DELETE: if someone changed the record since, the answer is 412 and
nothing is written. A GET of one record with \`If-None-Match\` naming its current ETag → 304 with no body. The bulk \`PATCH /units\` takes each
unit's ETag in its item's \`ifMatch\`, not as a header. An empty body with \`Content-Type: application/json\` is no body. A PATCH changes
only the fields it sends; server-kept fields (\`_id\`, \`__v\`, \`createdAt\`, \`updatedAt\`,
\`configuredSecrets\`) may be sent back and are ignored. Secrets are write-only: \`configuredSecrets\` names those that are set.

## Lists

\`GET /projects\`, \`/groups\`, \`/floors\`, \`/units\` and \`/leads\` take \`options[skip]\`, \`options[limit]\` (1–500, default 100) and
\`options[sort]\` (\`name\`, \`createdAt\`, \`updatedAt\`, \`-\` for descending), \`filters[updatedSince]\` (ISO 8601) for "what changed since my last
sync", and answer \`X-Total-Count\`. Object-valued queries use the deep-object form (\`options[limit]=10\`); JSON text (\`options={"limit":10}\`)
works too.

## Errors

Errors are RFC 9457 problem details (\`application/problem+json\`) with a stable \`code\` from a closed list (see the \`Problem\` schema), and
\`errors: [{ path, message }]\` naming every bad field of a 400. A 500 carries a \`requestId\`, also in the \`X-Request-Id\` header of every answer.

## Idempotency

\`POST /projects\`, \`/groups\`, \`/floors\`, \`/units\`, \`/projects/{id}/webhooks\`, \`/public/leads\`, \`/public/waitlist\` and \`/public/units/{id}/hold\` honour an
\`Idempotency-Key\` header: a retry with the same key and request gets the first answer again (\`Idempotent-Replayed: true\`) and writes nothing more;
the same key with another request → 422 \`idempotency_key_reused\`.

## Rate limits

Login: after 10 failed attempts for one username from one address within 15 minutes, every attempt for it from there until the window ends; and 60
attempts per minute per address. Public enquiries: 30 per minute per address; holds: 120 requests per minute and 3 live holds per address. Past a
limit the answer is 429 with \`Retry-After\` (seconds). These are the defaults; an operator may change them.

## Guides

The guides explain the service in more words; [all of them](/docs/guides) are listed on one page.

- [The interface in brief: resources, access, records, errors, public endpoints, feeds, mail, webhooks](/docs/guides/interface)
- [Authentication: tokens, cookies, refresh, logout, CSRF](/docs/guides/authentication)
- [Accounts, roles and invitations](/docs/guides/accounts)
- [Errors: problem details and every code](/docs/guides/errors)
- [The public API for presentation pages: bundle, enquiries, holds, waitlist](/docs/guides/public-api)
- [Bulk edits, spreadsheets and inventory feeds](/docs/guides/inventory)
- [Events, the change feed and webhooks](/docs/guides/events)
- [Decisions the specification left open](/docs/guides/decisions)`;

function operations(doc: Json): { method: string; path: string; op: Json }[] {
  const out = [];
  for (const [path, methods] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(methods)) out.push({ method: method.toUpperCase(), path, op });
  }
  return out;
}

/** The document as integrators meet it. Mutates and returns `doc`. */
export function finishDocument(doc: Json, opts: { publicUrl: string }): Json {
  doc.info.description = INTRO;
  doc.servers = [{ url: opts.publicUrl, description: 'This service (PUBLIC_URL)' }];
  const used = new Set(operations(doc).flatMap(({ op }) => (op.tags as string[] | undefined) ?? []));
  doc.tags = TAGS.filter((t) => used.has(t.name));
  doc.components.headers = HEADERS;
  doc.components.parameters = PARAMETERS;
  const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

  for (const { method, path, op } of operations(doc)) {
    const params = (op.parameters ??= []) as Json[];
    params.splice(0, params.length, ...params.flatMap(bracketParams));
    for (const p of params) if (p.in === 'query' && p.schema) p.schema = plainEnum(p.schema as Json);
    params.forEach((p, i) => {
      const shared = p.in === 'header' ? SHARED_HEADERS[String(p.name).toLowerCase()] : undefined;
      if (shared) params[i] = ref('parameters', shared);
    });
    const responses = op.responses as Json;
    const hasParam = (name: string) =>
      params.some((p) =>
        p.$ref ? p.$ref === `#/components/parameters/${SHARED_HEADERS[name.toLowerCase()]}` : String(p.name).toLowerCase() === name.toLowerCase(),
      );
    // If-Match is a header of one record's PATCH or DELETE; a bulk change names each item's version in its body.
    if (responses['412'] && !BULK.has(`${method} ${path}`) && !hasParam('If-Match') && (method === 'PATCH' || method === 'DELETE'))
      params.push(ref('parameters', 'IfMatch'));
    // Every 200 with an ETag answers If-None-Match naming it with 304 (one hook, http/conditional.ts).
    if (method === 'GET' && responses['200']?.headers?.ETag && !responses['304']) {
      responses['304'] = { description: 'Not modified: the If-None-Match ETag is still current; no body', headers: { ETag: HEADERS.ETag } };
    }
    if (responses['304'] && !hasParam('If-None-Match')) params.push(ref('parameters', 'IfNoneMatch'));
    const idempotent = method === 'POST' && (hasParam('Idempotency-Key') || CREATES.has(path) || IDEMPOTENT_CREATES.has(path));
    if (idempotent && !hasParam('Idempotency-Key')) params.push(ref('parameters', 'IdempotencyKey'));
    if (idempotent && !responses['422']) responses['422'] = problemResponse('Idempotency-Key reused with another request');
    // A parameter with a default may be left out: the service fills it in.
    for (const p of params) if (p.in !== 'path' && p.schema?.default !== undefined) p.required = false;
    addGlobalAnswers(method, path, op);
    if (!params.length) delete op.parameters;
    // A route that takes a body gets `{}` when none is sent (app.ts): the body is required only when `{}` is not valid.
    const body = op.requestBody?.content?.['application/json']?.schema as Json | undefined;
    const bodySchema: Json | undefined = body?.$ref ? doc.components.schemas[refName(body.$ref)] : body;
    if (bodySchema?.type === 'object' && !bodySchema.required?.length && !bodySchema.anyOf) op.requestBody.required = false;
    // A 304 has no body, whatever the route's schema made of its description.
    if (responses['304']) delete responses['304'].content;
    // A request body that a create can do without (its inputs may all come as query parameters).
    if (CREATES.has(path) && method === 'POST') documentCreateInputs(op, params, CREATE_REQUIRED[path] ?? []);
    const oneOf = ONE_OF_REQUIRED[`${method} ${path}`];
    if (oneOf) requireOneOf(doc, op, oneOf);

    addExamples(doc, op);
    // Probes take no input, yet any request may carry too many headers.
    if (!Object.keys(responses).some((s) => s.startsWith('4'))) responses['431'] = problemResponse('Request headers too large');
    for (const [status, response] of Object.entries<Json>(responses)) {
      const headers: Json = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
      for (const name of Object.keys(response.headers ?? {})) headers[name] = HEADERS[name] ? ref('headers', name) : response.headers[name];
      if (status === '429') {
        for (const name of ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) headers[name] = ref('headers', name);
      }
      if (idempotent && /^2/.test(status)) headers['Idempotent-Replayed'] = ref('headers', 'Idempotent-Replayed');
      response.headers = headers;
    }
  }
  return doc;
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
function addGlobalAnswers(method: string, path: string, op: Json) {
  const statuses = [500, 503];
  if (WRITES.has(method)) statuses.push(413, 415);
  if (path.includes('{')) statuses.push(414);
  if (op.security === undefined) statuses.push(401);
  if (WRITES.has(method) && !path.startsWith('/public/')) statuses.push(403);
  if (!ON_PAGES_HOST(path)) statuses.push(404);
  const responses = op.responses as Json;
  for (const status of statuses) responses[status] ??= problemResponse(PROBLEM_TEXT[status] ?? 'Error');
  // In status order, as a reader looks them up.
  for (const status of Object.keys(responses).sort()) {
    const response = responses[status];
    delete responses[status];
    responses[status] = response;
  }
}

/**
 * An object-valued query (`filters`, `options`) as one parameter per field in bracket form (`filters[priceMin]`),
 * the form the service reads. As one `style: deepObject` parameter, some generators send `[object Object]`; as
 * plain parameters every generator sends each field as it is (test/openapi-clients.test.ts).
 */
function bracketParams(p: Json): Json[] {
  const props = p.in === 'query' && p.schema?.type === 'object' ? (p.schema.properties as Json | undefined) : undefined;
  if (!props) return [p];
  const required = new Set<string>(p.required ? ((p.schema.required as string[] | undefined) ?? []) : []);
  return Object.entries<Json>(props).map(([key, schema]) => ({
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
function plainEnum(schema: Json): Json {
  const options = schema.anyOf as Json[] | undefined;
  const literal = (o: Json) => o.const !== undefined || (Array.isArray(o.enum) && o.enum.length === 1);
  if (!options?.length || !options.every(literal)) return schema;
  const { anyOf: _, ...rest } = schema;
  const values = options.map((o): unknown => o.const ?? o.enum[0]);
  return { ...rest, type: options[0]?.type ?? 'string', enum: values };
}

const SHARED_HEADERS: Record<string, string> = { 'if-match': 'IfMatch', 'if-none-match': 'IfNoneMatch', 'idempotency-key': 'IdempotencyKey' };

/** One example per operation: of its JSON body and its JSON answer, or else of its path parameters. */
function addExamples(doc: Json, op: Json) {
  let shown = false;
  const json = op.requestBody?.content?.['application/json'] as Json | undefined;
  if (json?.schema && json.example === undefined) {
    const example = exampleOf(json.schema as Json, doc, undefined, 0, true);
    if (example !== undefined) json.example = example;
  }
  shown ||= json?.example !== undefined;
  for (const [status, response] of Object.entries<Json>(op.responses)) {
    const media = response.content?.['application/json'] as Json | undefined;
    if (!/^2/.test(status) || !media?.schema || media.example !== undefined) continue;
    const example = exampleOf(media.schema as Json, doc);
    if (example !== undefined) media.example = example;
    shown ||= example !== undefined;
  }
  if (shown) return;
  for (const p of (op.parameters ?? []) as Json[]) {
    if (p.$ref || p.example !== undefined) continue;
    const example = exampleOf(p.schema as Json, doc, p.name as string);
    if (example !== undefined) p.example = example;
  }
}

/** Creates whose inputs may come as query parameters, and that honour Idempotency-Key. */
const CREATES = new Set(['/projects', '/groups', '/floors', '/units']);
/** Changes of many records: each item carries its own `ifMatch`, so they take no If-Match header. */
const BULK = new Set(['PATCH /units']);
/** Other creates that honour Idempotency-Key (their inputs come in the body only). */
const IDEMPOTENT_CREATES = new Set(['/projects/{id}/webhooks']);
/** The inputs each create refuses to do without (400 `is required` when neither the query nor the body has it). */
const CREATE_REQUIRED: Record<string, string[]> = { '/projects': ['name'], '/groups': ['name'], '/floors': ['project', 'name'], '/units': ['project', 'name'] };

/**
 * A create takes its inputs as query parameters (as the interface describes creates) or in its JSON body, the query winning: the required
 * ones are required query parameters, the same fields in the body say they are the alternative. OpenAPI cannot say
 * "one of these two places"; a client that follows the document sends them in the query, which always works.
 */
function documentCreateInputs(op: Json, params: Json[], required: string[]) {
  if (op.requestBody) op.requestBody.required = false;
  const sentence = (text: string | undefined) => (text ? (/[.!?]$/.test(text) ? text : `${text}.`) : '');
  for (const p of params) {
    if (p.in !== 'query' || !required.includes(p.name as string)) continue;
    const how = `Required here, or as the JSON body's \`${p.name}\` instead; when both are sent this one wins.`;
    Object.assign(p, { required: true, description: [sentence(p.description as string | undefined), how].filter(Boolean).join(' ') });
  }
  const json = op.requestBody?.content?.['application/json'] as Json | undefined;
  const props = json?.schema?.properties as Json | undefined;
  if (!json || !props) return;
  // New objects, so a body schema shared with another operation (the PATCH of the same record) keeps its own text.
  const changed: Json = { ...props };
  for (const name of Object.keys(props)) {
    if (!CREATE_QUERY_INPUTS.has(name) || !params.some((p) => p.in === 'query' && p.name === name)) continue;
    const rule = required.includes(name) ? 'one of the two is required' : 'both may be left out';
    changed[name] = {
      ...props[name],
      description:
        `${sentence(props[name].description as string | undefined)} Or the query parameter of the same name (which wins when both are sent); ${rule}.`.trim(),
    };
  }
  json.schema = { ...json.schema, properties: changed };
}
/** Inputs a create takes from the query or the body alike. */
const CREATE_QUERY_INPUTS = new Set(['name', 'project', 'namespace', 'hostName', 'position', 'floor']);

/**
 * Bodies that name their project by one of two fields. The handler checks it (400 `invalid_body`, "project or
 * namespace is required", naming /project); the schema says it as `anyOf` so generators and linters see it too.
 */
const ONE_OF_REQUIRED: Record<string, string[]> = {
  'POST /public/leads': ['project', 'namespace'],
  'POST /public/waitlist': ['project', 'namespace'],
};

function requireOneOf(doc: Json, op: Json, names: string[]) {
  const json = op.requestBody?.content?.['application/json'] as Json | undefined;
  if (!json?.schema) return;
  const target: Json = json.schema.$ref ? doc.components.schemas[refName(json.schema.$ref)] : json.schema;
  target.anyOf = names.map((name) => ({ required: [name] }));
}

const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});
