import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifySwagger, { type StaticDocumentSpec } from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { GUIDES_PATH, renderGuides, type RenderedGuides } from './guides.ts';
import { finishDocument, HTML_ROUTES, type OpenApiDocument } from './openapi-document.ts';
import { ERRORS } from './errors.catalogue.ts';

/** OpenAPI 3.1 from the same schemas that validate requests, at /openapi.json, and a reference page at /docs. */
export async function registerOpenApi(app: FastifyInstance, extra: { webhooks?: Record<string, unknown>; publicUrl: string }) {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      // What the service sends out (webhook payloads), beside what it answers.
      ...(extra.webhooks ? { webhooks: extra.webhooks } : {}),
      info: {
        title: 'Showsuite API',
        version: '1.0.0',
        // Replaced by the integrator's guide (openapi-document.ts).
        description: 'Interactive property presentations: projects, floors, units, groups and leads.',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: '/', description: 'This server' }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT or sst_ API token',
            description: 'A session token from a login (a JWT) or an API token from POST /users/me/tokens (opaque, starting `sst_`)',
          },
          cookieAuth: { type: 'apiKey', in: 'cookie', name: 'service' },
        },
      },
      security: [{ bearerAuth: [] }, { cookieAuth: [] }],
      tags: [
        { name: 'auth', description: 'Log in, refresh, log out' },
        { name: 'users', description: 'Accounts' },
        { name: 'operations', description: 'Health and readiness' },
      ],
    },
    // Pages for people stay out of the API document.
    transform: ({ schema, url }) => (HTML_ROUTES.has(url) ? { schema: { ...schema, hide: true }, url } : { schema, url }),
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject;
      // The generated document, seen through the few parts the finishing reads and writes (openapi-document.ts).
      finishDocument(document.openapiObject as unknown as OpenApiDocument, { publicUrl: extra.publicUrl });
      return document.openapiObject;
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  // The reference page (@fastify/swagger-ui with @fastify/static and its files) is set up by the first request to
  // /docs, in an instance of its own that reads this app's document, instead of at every start (~0.08 s of CPU).
  let docs: Promise<FastifyInstance> | undefined;
  const docsApp = () =>
    (docs ??= (async () => {
      const { default: fastifySwaggerUi } = await import('@fastify/swagger-ui');
      const inner = Fastify();
      // The document is the app's own, as generated from its routes (the app is ready by the first request); the
      // static mode's type knows only OpenAPI 3.0, the served document is the same 3.1 one as /openapi.json.
      await inner.register(fastifySwagger, { mode: 'static', specification: { document: app.swagger() as unknown as StaticDocumentSpec['document'] } });
      // Swagger UI, not Scalar: it is already here and works under the strict CSP, and its "Try it out" sends the
      // deep-object queries the document declares. Operation filter and ids make a long reference searchable.
      await inner.register(fastifySwaggerUi, {
        routePrefix: '/docs',
        staticCSP: true,
        uiConfig: { deepLinking: true, tryItOutEnabled: true, filter: true, displayOperationId: true, docExpansion: 'list', defaultModelsExpandDepth: 0 },
      });
      await inner.ready();
      return inner;
    })());
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    const res = await (await docsApp()).inject({ method: request.method as 'GET', url: request.url, headers: request.headers });
    // A path the reference page does not have is the service's own 404, as anywhere else.
    if (res.statusCode === 404) {
      reply.callNotFound();
      return reply;
    }
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined && !HOP_HEADERS.has(name)) reply.header(name, value);
    }
    return reply.code(res.statusCode).send(res.rawPayload);
  };
  app.get('/docs', { schema: { hide: true } }, forward);
  app.get('/docs/*', { schema: { hide: true } }, forward);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  // The guides (docs/*.md) as HTML pages, rendered once by the first request for one (like the reference page,
  // not at every start); the reference links to them (info.description).
  const docsDir = findDocsDir(dirname(fileURLToPath(import.meta.url)));
  let guides: Promise<RenderedGuides> | undefined;
  const sendGuide = async (reply: FastifyReply, name: string | undefined) => {
    if (!docsDir) throw ERRORS.notFound('No such guide');
    const rendered = await (guides ??= renderGuides(docsDir));
    const found = name === undefined ? rendered.index : rendered.pages.get(name);
    if (!found) throw ERRORS.notFound('No such guide');
    return reply.header('content-security-policy', rendered.csp).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(found.html);
  };
  app.get(GUIDES_PATH, { schema: { hide: true } }, (_request, reply) => sendGuide(reply, undefined));
  app.get(`${GUIDES_PATH}/`, { schema: { hide: true } }, (_request, reply) => sendGuide(reply, undefined));
  app.get<{ Params: { name: string } }>(`${GUIDES_PATH}/:name`, { schema: { hide: true } }, (request, reply) =>
    sendGuide(reply, request.params.name.replace(/\.md$/, '')),
  );
}

/** Set by the outer server for its own connection, not copied from the page's instance. */
const HOP_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

/**
 * The package's docs/ folder, found from this module's own folder upwards (src/http/ when run from source, dist/
 * when built and bundled), never from the working directory: `node /srv/showsuite/dist/main.js` started elsewhere
 * serves the same guides.
 */
export function findDocsDir(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'docs', 'errors.md'))) return join(dir, 'docs');
    if (dirname(dir) === dir) return undefined;
  }
}
