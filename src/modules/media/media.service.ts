import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Multipart } from '@fastify/multipart';
import type { Ctx } from '../../context.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { forgetOrphans } from './media.repo.ts';
import { readAll, type MediaStore, type PutBody, type StoredObject } from './media.store.ts';
import { CONTENT_TYPES, sniff, type MediaKind } from './sniff.ts';
import { NotSvgError, sanitizeSvg } from './svg-sanitize.ts';
import { negotiate, UndecodableError, VARIANT_TYPES, variantKey, variantWidth, VariantEncoder, type RasterKind } from './variants.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

export const MEDIA_MAX_BYTES = 20 * 1024 * 1024;
export const ACCEPTED = 'PNG, JPEG, WebP, SVG or PDF';
/** An original's key and address: `<first 32 hex of the SHA-256 of the stored bytes>.<extension>`. */
export const MEDIA_NAME = /^([0-9a-f]{32})\.(png|jpg|webp|pdf|svg)$/;

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

/** A stored file (or a variant of one) to serve. */
export interface MediaFile {
  body: Readable;
  size: number;
  contentType: string;
  /** The content hash (and the variant's size and format), quoted for the ETag header. */
  etag: string;
  /** Whether the answer depends on the request's Accept header. */
  negotiated: boolean;
}

/** Uploads (sniffed, SVGs sanitised, stored under their content hash), the stored files and their resized variants. */
export class MediaService {
  private readonly encoder = new VariantEncoder();

  constructor(private readonly ctx: Ctx) {}

  private get store(): MediaStore {
    return this.ctx.media;
  }

  /** Reads the one part `file`, recognises it by content and stores it; throws the 400/413/415 problems. */
  async upload(source: UploadSource): Promise<StoredMedia> {
    if (!source.isMultipart()) throw ERRORS.unsupportedMediaType(`Send multipart/form-data with one part "file" (${ACCEPTED})`);
    const dir = this.store.tempDir;
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
      throw ERRORS.invalidBody('file: is required (one multipart part named "file")', { errors: [{ path: '/file', message: 'is required' }] });
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
      if (head.length === 0) throw ERRORS.invalidBody('file: is empty', { errors: [{ path: '/file', message: 'is empty' }] });
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
        stored = await this.keep('svg', Buffer.from(clean));
      } else {
        const hash = createHash('sha256');
        await pipeline(createReadStream(temp), hash);
        stored = await this.keep(kind, { file: temp, size: (await stat(temp)).size }, hash.digest('hex'));
      }
      return { url: `/media/${stored.name}`, contentType: CONTENT_TYPES[stored.kind], size: stored.size };
    } finally {
      await rm(temp, { force: true });
    }
  }

  /**
   * Stores an upload under its content hash: the same file uploaded twice is one file with one address, and
   * uploading it again makes it new for the unreferenced-file sweep.
   */
  private async keep(kind: MediaKind, body: PutBody, hex?: string): Promise<{ name: string; kind: MediaKind; size: number }> {
    const digest =
      hex ??
      createHash('sha256')
        .update(body as Buffer)
        .digest('hex');
    const name = `${digest.slice(0, 32)}.${kind}`;
    await this.store.put(name, body, CONTENT_TYPES[kind]).catch(storeFailed);
    await forgetOrphans(this.ctx.db.kysely, [name]);
    return { name, kind, size: Buffer.isBuffer(body) ? body.length : body.size };
  }

  /**
   * A stored file by its name (`<content hash>.<extension>`); 404 for any other name or a missing file. With a
   * width, a raster picture's variant that wide (rounded up to a multiple of 16, never wider than the picture) in the
   * format `accept` prefers; an SVG is served as it is (it scales itself); a PDF has no width (400).
   */
  async file(name: string, width?: number, accept?: string): Promise<MediaFile> {
    const m = MEDIA_NAME.exec(name);
    if (!m) throw notFound('File');
    const [, hash, ext] = m as unknown as [string, string, MediaKind];
    if (width !== undefined && ext === 'pdf') {
      throw ERRORS.invalidQuery('w: a PDF has no width; ask without w', { errors: [{ path: '/w', message: 'applies to pictures only, not PDFs' }] });
    }
    if (width === undefined || ext === 'svg') return this.original(name, hash, ext);
    const w = variantWidth(width);
    const format = negotiate(accept, ext as RasterKind);
    const key = variantKey(hash, w, format);
    const etag = `"${hash}-${w}.${format}"`;
    const kept = await this.read(key);
    if (kept) return { body: kept.body, size: kept.size, contentType: VARIANT_TYPES[format], etag, negotiated: true };
    const original = async () => {
      const found = await this.read(name);
      if (!found) throw notFound('File');
      return readAll(found.body);
    };
    let out: Buffer;
    try {
      out = await this.encoder.encode(key, original, w, format);
    } catch (err) {
      if (!(err instanceof UndecodableError)) throw err;
      // A picture that cannot be decoded or is too large to resize is served as it is.
      return { ...(await this.original(name, hash, ext)), negotiated: true };
    }
    // Kept for the next request; a store that fails to keep it costs that request another encoding, nothing more.
    await this.store.put(key, out, VARIANT_TYPES[format]).catch(() => undefined);
    return { body: bufferStream(out), size: out.length, contentType: VARIANT_TYPES[format], etag, negotiated: true };
  }

  private async original(name: string, hash: string, ext: MediaKind): Promise<MediaFile> {
    const found = await this.read(name);
    if (!found) throw notFound('File');
    return { body: found.body, size: found.size, contentType: CONTENT_TYPES[ext], etag: `"${hash}"`, negotiated: false };
  }

  private read(key: string): Promise<StoredObject | undefined> {
    return this.store.get(key).catch(storeFailed);
  }
}

/** The store did not answer (the bucket is unreachable): 502, to be retried, never details of the store. */
function storeFailed(err: unknown): never {
  throw ERRORS.upstreamFailed('The media store did not answer; retry shortly', { headers: { 'Retry-After': '5' }, cause: err });
}

function bufferStream(buf: Buffer): Readable {
  return Readable.from([buf]);
}

const tooLarge = () =>
  ERRORS.payloadTooLarge(`The file is larger than ${MEDIA_MAX_BYTES / 1048576} MiB, the most an upload may be`, {
    errors: [{ path: '/file', message: `is larger than ${MEDIA_MAX_BYTES} bytes` }],
    extra: { maxBytes: MEDIA_MAX_BYTES },
  });
const unsupported = (why = 'it is not one of them') => ERRORS.unsupportedMediaType(`Files must be ${ACCEPTED}; ${why}`);

const onlyOnePart = () =>
  ERRORS.invalidBody('file: send exactly one multipart part, named "file"', { errors: [{ path: '/file', message: 'must be the only part' }] });

const malformed = () =>
  ERRORS.invalidBody('The body is not readable multipart/form-data (a boundary, a part header or the end of the form is missing)', {
    errors: [{ path: '/', message: 'is not valid multipart/form-data' }],
  });

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
