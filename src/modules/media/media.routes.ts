import { etagListed } from '../../http/conditional.ts';
import fastifyMultipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.ts';
import { json, problems } from '../../http/schemas.ts';
import { MEDIA_FILE_CONTENT, MediaFileParams, MediaFileQuery, MediaUploadForm, StoredMediaSchema } from './media.schemas.ts';
import { ACCEPTED, MEDIA_MAX_BYTES, MediaService } from './media.service.ts';

/** A served file can never run script in the service's origin, whatever it turned out to contain. */
const FILE_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox";

/** POST /media (authenticated; multipart with one part `file`). Registered inside the authenticated scope. */
export const mediaUploadRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const media = new MediaService(ctx);
  // Only this scope parses multipart bodies; elsewhere they stay 415.
  await app.register(fastifyMultipart, { limits: { fileSize: MEDIA_MAX_BYTES, files: 1, fields: 0, parts: 1, headerPairs: 100 } });

  app.post(
    '/media',
    {
      schema: {
        operationId: 'uploadMedia',
        tags: ['media'],
        summary: 'Upload a picture or document (floor plans, images, brochures)',
        description:
          `\`multipart/form-data\` with one part named \`file\`: ${ACCEPTED}, at most 20 MiB, recognised by its content (not its name or ` +
          'declared type). SVGs are rewritten keeping only drawing elements: no scripts, event handlers, foreignObject, animation or ' +
          'external references. The answer names the address to use in `floorplanUrl`, `images`, `brochurePDF` and the like.',
        consumes: ['multipart/form-data'],
        body: {
          content: {
            'multipart/form-data': { schema: MediaUploadForm },
          },
        },
        response: { 201: { ...json(StoredMediaSchema, 'Stored'), headers: { Location: { type: 'string' } } }, ...problems(400, 401, 403, 413, 415, 502) },
      },
    },
    async (request, reply) => {
      const stored = await media.upload(request);
      return reply.code(201).header('Location', stored.url).send(stored);
    },
  );
};

/** GET /media/<name>: public (pages show these files), immutable (the name is the content's hash). */
export const mediaFileRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const media = new MediaService(ctx);
  app.get(
    '/media/:name',
    {
      schema: {
        operationId: 'getMedia',
        tags: ['media'],
        summary: 'A stored file, or a picture resized',
        description:
          'Served with `Cache-Control: public, max-age=31536000, immutable` and an `ETag` (the name is the hash of the content); ' +
          '`If-None-Match` with that ETag → 304. With `w`, a resized variant, negotiated on `Accept` (`Vary: Accept`), kept and cached the same way.',
        security: [],
        params: MediaFileParams,
        querystring: MediaFileQuery,
        response: {
          200: {
            description: 'The file',
            content: MEDIA_FILE_CONTENT,
          },
          304: { description: 'Not modified: the `If-None-Match` ETag is this file' },
          ...problems(400, 404, 429, 502, 503),
        },
      },
    },
    async (request, reply) => {
      const file = await media.file(request.params.name, request.query.w, request.headers.accept);
      reply.removeHeader('x-frame-options');
      reply
        .header('Content-Security-Policy', FILE_CSP)
        .header('Cache-Control', 'public, max-age=31536000, immutable')
        .header('ETag', file.etag)
        .header('X-Content-Type-Options', 'nosniff');
      if (file.negotiated) {
        const vary = reply.getHeader('vary');
        reply.header('Vary', vary ? `${String(vary)}, Accept` : 'Accept');
      }
      if (etagListed(request.headers['if-none-match'], file.etag)) {
        file.body.destroy();
        return reply.code(304).send();
      }
      return reply.header('Content-Length', String(file.size)).type(file.contentType).send(file.body);
    },
  );
};
