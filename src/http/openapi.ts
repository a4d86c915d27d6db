import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

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
  await app.register(fastifySwaggerUi, { routePrefix: '/docs', staticCSP: true, uiConfig: { deepLinking: true } });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

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
