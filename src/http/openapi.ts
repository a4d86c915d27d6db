import fastifySwagger, { type StaticDocumentSpec } from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

/** OpenAPI 3.1 from the same schemas that validate requests, at /openapi.json, and a reference page at /docs. */
export async function registerOpenApi(app: FastifyInstance, extra: { webhooks?: Record<string, unknown> } = {}) {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      // What the service sends out (webhook payloads), beside what it answers.
      ...(extra.webhooks ? { webhooks: extra.webhooks } : {}),
      info: {
        title: 'Showsuite API',
        version: '1.0.0',
        description: 'Interactive property presentations: projects, floors, units, groups and leads. Errors are RFC 9457 problem details.',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: '/', description: 'This server' }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
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
    // Every operation gets a stable operationId (clients generate method names from it); a route may set its own.
    transform: ({ schema, url, route }) => {
      const method = Array.isArray(route.method) ? route.method[0] : route.method;
      if ((schema as { operationId?: string } | undefined)?.operationId || typeof method !== 'string') return { schema, url };
      return { schema: { ...schema, operationId: operationIdFor(method, url) }, url };
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
      await inner.register(fastifySwaggerUi, { routePrefix: '/docs', staticCSP: true, uiConfig: { deepLinking: true } });
      await inner.ready();
      return inner;
    })());
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    const res = await (await docsApp()).inject({ method: request.method as 'GET', url: request.url, headers: request.headers });
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined && !HOP_HEADERS.has(name)) reply.header(name, value);
    }
    return reply.code(res.statusCode).send(res.rawPayload);
  };
  app.get('/docs', { schema: { hide: true } }, forward);
  app.get('/docs/*', { schema: { hide: true } }, forward);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/** Set by the outer server for its own connection, not copied from the page's instance. */
const HOP_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

/** GET /project/:id → getProjectById; POST /public/units/:id/hold → postPublicUnitsByIdHold. */
export function operationIdFor(method: string, url: string): string {
  const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  const words = url
    .split('/')
    .filter(Boolean)
    .map((seg) =>
      seg.startsWith(':') || seg.startsWith('{')
        ? `By${cap(seg.replace(/^[:{]|}$/g, ''))}`
        : seg
            .split(/[^A-Za-z0-9]+/)
            .map(cap)
            .join(''),
    );
  return method.toLowerCase() + words.join('');
}
