import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import fastifyMultipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { json, problems } from '../../http/schemas.ts';
import { CONTENT_TYPES, sniff, type MediaKind } from './sniff.ts';
import { NotSvgError, sanitizeSvg } from './svg-sanitize.ts';

export const MEDIA_MAX_BYTES = 20 * 1024 * 1024;
const NAME = /^([0-9a-f]{32})\.(png|jpg|webp|pdf|svg)$/;
const ACCEPTED = 'PNG, JPEG, WebP, SVG or PDF';

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

/** Stores an upload under its content hash: the same file uploaded twice is one file with one address. */
async function store(dir: string, kind: MediaKind, body: Buffer | string): Promise<{ name: string; size: number }> {
  const name = `${createHash('sha256').update(body).digest('hex').slice(0, 32)}.${kind}`;
  const temp = join(dir, `.upload-${randomBytes(8).toString('hex')}`);
  await writeFile(temp, body);
  await rename(temp, join(dir, name));
  return { name, size: Buffer.byteLength(body) };
}

/** POST /media (authenticated; multipart with one part `file`). Registered inside the authenticated scope. */
export const mediaUploadRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const dir = ctx.config.mediaDir;
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
      if (!request.isMultipart()) throw new AppError(415, 'unsupported_media_type', `Send multipart/form-data with one part "file" (${ACCEPTED})`);
      await mkdir(dir, { recursive: true });
      const parts = request.parts();
      const next = async () => {
        try {
          return await parts.next();
        } catch (err) {
          throw uploadError(err);
        }
      };
      const first = await next();
      const part = first.done ? undefined : first.value;
      if (!part || part.type !== 'file' || part.fieldname !== 'file') {
        if (part?.type === 'file') part.file.resume();
        throw new AppError(400, 'invalid_body', 'file: is required (one multipart part named "file")', [{ path: '/file', message: 'is required' }]);
      }
      // Stream to a temporary file, keeping the first bytes for sniffing; the size limit cuts it off at 20 MiB.
      const temp = join(dir, `.upload-${randomBytes(8).toString('hex')}`);
      let head = Buffer.alloc(0);
      const peek = new Transform({
        transform(chunk: Buffer, _enc, done) {
          if (head.length < 512) head = Buffer.concat([head, chunk.subarray(0, 512 - head.length)]);
          done(null, chunk);
        },
      });
      try {
        try {
          await pipeline(part.file, peek, createWriteStream(temp));
        } catch (err) {
          throw uploadError(err);
        }
        if (part.file.truncated) throw tooLarge();
        if (!(await next()).done) throw onlyOnePart();
        const kind = sniff(head);
        if (!kind) throw unsupported();
        let stored: { name: string; size: number };
        if (kind === 'svg-candidate') {
          let clean: string;
          try {
            clean = sanitizeSvg(await readFile(temp, 'utf8'));
          } catch (err) {
            if (err instanceof NotSvgError) throw unsupported(`it is neither a picture nor a PDF, and not an SVG (${err.message})`);
            throw err;
          }
          stored = await store(dir, 'svg', clean);
        } else {
          const hash = createHash('sha256');
          await pipeline(createReadStream(temp), hash);
          const name = `${hash.digest('hex').slice(0, 32)}.${kind}`;
          await rename(temp, join(dir, name));
          stored = { name, size: (await stat(join(dir, name))).size };
        }
        const url = `/media/${stored.name}`;
        const contentType = CONTENT_TYPES[stored.name.slice(stored.name.lastIndexOf('.') + 1) as MediaKind];
        return await reply.code(201).header('Location', url).send({ url, contentType, size: stored.size });
      } finally {
        await rm(temp, { force: true });
      }
    },
  );
};

/** GET /media/<name>: public (pages show these files), immutable (the name is the content's hash). */
export const mediaFileRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const dir = ctx.config.mediaDir;
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
      const m = NAME.exec(request.params.name);
      if (!m) throw notFound('File');
      let body: Buffer;
      try {
        body = await readFile(join(dir, request.params.name));
      } catch {
        throw notFound('File');
      }
      reply.removeHeader('x-frame-options');
      return reply
        .header('Content-Security-Policy', FILE_CSP)
        .header('Cache-Control', 'public, max-age=31536000, immutable')
        .header('ETag', `"${m[1]}"`)
        .header('X-Content-Type-Options', 'nosniff')
        .type(CONTENT_TYPES[m[2] as MediaKind])
        .send(body as unknown as string); // the schema describes bytes as a string
    },
  );
};

const tooLarge = () => new AppError(413, 'payload_too_large', 'The file is larger than 20 MiB');
const unsupported = (why = 'it is not one of them') => new AppError(415, 'unsupported_media_type', `Files must be ${ACCEPTED}; ${why}`);

const onlyOnePart = () =>
  new AppError(400, 'invalid_body', 'file: send exactly one multipart part, named "file"', [{ path: '/file', message: 'must be the only part' }]);

function uploadError(err: unknown): unknown {
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge();
  if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') return onlyOnePart();
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') return unsupported();
  return err;
}
