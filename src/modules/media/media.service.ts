import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Multipart } from '@fastify/multipart';
import type { Ctx } from '../../context.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { CONTENT_TYPES, sniff, type MediaKind } from './sniff.ts';
import { NotSvgError, sanitizeSvg } from './svg-sanitize.ts';

export const MEDIA_MAX_BYTES = 20 * 1024 * 1024;
export const ACCEPTED = 'PNG, JPEG, WebP, SVG or PDF';
const NAME = /^([0-9a-f]{32})\.(png|jpg|webp|pdf|svg)$/;

/** What an upload reads from the request: whether it is multipart, and its parts (the request itself fits). */
export interface UploadSource {
  isMultipart(): boolean;
  parts(): AsyncIterableIterator<Multipart>;
}

/** The answer to an upload, keys in the order they are sent. */
export interface StoredMedia {
  url: string;
  contentType: string;
  size: number;
}

/** A stored file to serve. */
export interface MediaFile {
  body: Buffer;
  contentType: string;
  /** The content hash, quoted for the ETag header. */
  etag: string;
}

/** Uploads (sniffed, SVGs sanitised, stored under their content hash) and the stored files. */
export class MediaService {
  constructor(private readonly ctx: Ctx) {}

  /** Reads the one part `file`, recognises it by content and stores it; throws the 400/413/415 problems. */
  async upload(source: UploadSource): Promise<StoredMedia> {
    if (!source.isMultipart()) throw new AppError(415, 'unsupported_media_type', `Send multipart/form-data with one part "file" (${ACCEPTED})`);
    const dir = this.ctx.config.mediaDir;
    await mkdir(dir, { recursive: true });
    const parts = source.parts();
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
      if (head.length === 0) throw new AppError(400, 'invalid_body', 'file: is empty', [{ path: '/file', message: 'is empty' }]);
      const kind = sniff(head);
      if (!kind) throw unsupported();
      let stored: { name: string; kind: MediaKind; size: number };
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
        stored = { name, kind, size: (await stat(join(dir, name))).size };
      }
      return { url: `/media/${stored.name}`, contentType: CONTENT_TYPES[stored.kind], size: stored.size };
    } finally {
      await rm(temp, { force: true });
    }
  }

  /** A stored file by its name (`<content hash>.<extension>`); 404 for any other name or a missing file. */
  async file(name: string): Promise<MediaFile> {
    const m = NAME.exec(name);
    if (!m) throw notFound('File');
    let body: Buffer;
    try {
      body = await readFile(join(this.ctx.config.mediaDir, name));
    } catch {
      throw notFound('File');
    }
    return { body, contentType: CONTENT_TYPES[m[2] as MediaKind], etag: `"${m[1]}"` };
  }
}

/** Stores an upload under its content hash: the same file uploaded twice is one file with one address. */
async function store(dir: string, kind: MediaKind, body: Buffer | string): Promise<{ name: string; kind: MediaKind; size: number }> {
  const name = `${createHash('sha256').update(body).digest('hex').slice(0, 32)}.${kind}`;
  const temp = join(dir, `.upload-${randomBytes(8).toString('hex')}`);
  await writeFile(temp, body);
  await rename(temp, join(dir, name));
  return { name, kind, size: Buffer.byteLength(body) };
}

const tooLarge = () =>
  new AppError(
    413,
    'payload_too_large',
    `The file is larger than ${MEDIA_MAX_BYTES / 1048576} MiB, the most an upload may be`,
    [{ path: '/file', message: `is larger than ${MEDIA_MAX_BYTES} bytes` }],
    undefined,
    { maxBytes: MEDIA_MAX_BYTES },
  );
const unsupported = (why = 'it is not one of them') => new AppError(415, 'unsupported_media_type', `Files must be ${ACCEPTED}; ${why}`);

const onlyOnePart = () =>
  new AppError(400, 'invalid_body', 'file: send exactly one multipart part, named "file"', [{ path: '/file', message: 'must be the only part' }]);

const malformed = () =>
  new AppError(400, 'invalid_body', 'The body is not readable multipart/form-data (a boundary, a part header or the end of the form is missing)', [
    { path: '/', message: 'is not valid multipart/form-data' },
  ]);

/** What reading the parts can throw, as the client's problem; only the server's own failures (disk, files) stay 500s. */
function uploadError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  const { code, syscall } = err as { code?: string; syscall?: string };
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge();
  if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') return onlyOnePart();
  if (syscall !== undefined) return err;
  // The multipart reader's own complaints (no boundary, a broken part header, an unexpected end of form).
  return malformed();
}
