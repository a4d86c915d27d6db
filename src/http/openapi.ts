import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { AppError } from './errors.ts';
import { ALIAS_ROUTES, finishDocument, GUIDES, HTML_ROUTES } from './openapi-document.ts';

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
    // Pages for people and the plural aliases stay out of the API document; operationIds are set as verbs later.
    transform: ({ schema, url }) => (HTML_ROUTES.has(url) || ALIAS_ROUTES.has(url) ? { schema: { ...schema, hide: true }, url } : { schema, url }),
    transformObject: (document) =>
      'openapiObject' in document ? finishDocument(document.openapiObject, { publicUrl: extra.publicUrl }) : document.swaggerObject,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  // Swagger UI, not Scalar: it is already here and works under the strict CSP, and its "Try it out" sends the
  // deep-object queries the document declares. Operation filter and ids make a long reference searchable.
  await app.register(fastifySwaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    uiConfig: { deepLinking: true, tryItOutEnabled: true, filter: true, displayOperationId: true, docExpansion: 'list', defaultModelsExpandDepth: 0 },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  // The guides the reference links to (info.description), served as the Markdown they are written in.
  const docsDir = [fileURLToPath(new URL('../../docs/', import.meta.url)), join(process.cwd(), 'docs')].find((d) => existsSync(join(d, 'errors.md')));
  app.get<{ Params: { name: string } }>('/docs/guides/:name', { schema: { hide: true } }, async (request, reply) => {
    const name = request.params.name.replace(/\.md$/, '');
    if (!docsDir || !(name in GUIDES)) throw new AppError(404, 'not_found', 'No such guide');
    return reply.type('text/markdown; charset=utf-8').send(readFileSync(join(docsDir, `${name}.md`), 'utf8'));
  });
}
