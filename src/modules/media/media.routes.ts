import fastifyMultipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { json, problems } from '../../http/schemas.ts';
import { CONTENT_TYPES } from './sniff.ts';
import { ACCEPTED, MEDIA_MAX_BYTES, MediaService } from './media.service.ts';

const MediaSchema = Type.Object(
  {
    url: Type.String({ description: 'Where the file is served: `/media/<content hash>.<extension>`' }),
    contentType: Type.String({ description: 'What the content was recognised as' }),
    size: Type.Integer({ description: 'Bytes stored (an SVG after sanitising)' }),
  },
  { additionalProperties: false },
);

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
        tags: ['media'],
        summary: 'Upload a picture or document (floor plans, images, brochures)',
        description:
          `\`multipart/form-data\` with one part named \`file\`: ${ACCEPTED}, at most 20 MiB, recognised by its content (not its name or ` +
          'declared type). SVGs are rewritten keeping only drawing elements: no scripts, event handlers, foreignObject, animation or ' +
          'external references. The answer names the address to use in `floorplanUrl`, `images`, `brochurePDF` and the like.',
        consumes: ['multipart/form-data'],
        body: {
          content: {
            'multipart/form-data': {
              // Optional only for the validator, which sees no parsed body: the handler requires the part itself.
              schema: Type.Object({ file: Type.Optional(Type.String({ contentMediaType: 'application/octet-stream', description: 'The file (required)' })) }),
            },
          },
        },
        response: { 201: { ...json(MediaSchema, 'Stored'), headers: { Location: { type: 'string' } } }, ...problems(400, 401, 403, 413, 415) },
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
        tags: ['media'],
        summary: 'A stored file',
        description: 'Served with `Cache-Control: public, max-age=31536000, immutable`: the name is the hash of the content.',
        security: [],
        params: Type.Object({ name: Type.String({ maxLength: 64 }) }),
        response: {
          200: {
            description: 'The file',
            content: Object.fromEntries(Object.values(CONTENT_TYPES).map((t) => [t, { schema: Type.String({ contentMediaType: t }) }])),
          },
          ...problems(404),
        },
      },
    },
    async (request, reply) => {
      const file = await media.file(request.params.name);
      reply.removeHeader('x-frame-options');
      return reply
        .header('Content-Security-Policy', FILE_CSP)
        .header('Cache-Control', 'public, max-age=31536000, immutable')
        .header('ETag', file.etag)
        .header('X-Content-Type-Options', 'nosniff')
        .type(file.contentType)
        .send(file.body as unknown as string); // the schema describes bytes as a string
    },
  );
};
