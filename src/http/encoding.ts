import { promisify } from 'node:util';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { brotliCompress, brotliCompressSync, constants as zlib, gzip, gzipSync } from 'node:zlib';

/** The content codings the service sends: brotli where the client takes it, else gzip. */
export type Encoding = 'br' | 'gzip';

/**
 * The coding to answer a request's `Accept-Encoding` with: `br` before `gzip`, and neither when the client refuses it
 * with `q=0` or does not name it (`*` counts as naming both). Undefined: send the bytes as they are.
 */
export function chosenEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (!acceptEncoding) return undefined;
  const accepted = new Map<string, boolean>();
  for (const part of acceptEncoding.split(',')) {
    const [coding = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    accepted.set(coding.trim(), q === undefined || Number(q.slice(2)) > 0);
  }
  const takes = (coding: Encoding) => accepted.get(coding) ?? accepted.get('*') ?? false;
  if (takes('br')) return 'br';
  if (takes('gzip')) return 'gzip';
  return undefined;
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * `body` compressed off the event loop (zlib's thread pool), at levels that cost a few milliseconds on a bundle of
 * a thousand units: brotli 5 (a third of gzip's size on JSON, about as fast as gzip 6), gzip 6.
 */
export function compress(body: Buffer | string, encoding: Encoding): Promise<Buffer> {
  if (encoding === 'gzip') return gzipAsync(body, { level: 6 });
  const size = Buffer.byteLength(body);
  return brotliAsync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: size } });
}

/** A file the service sends as it was built (a script, a stylesheet, a drawing), and its compressed copies. */
export interface StaticAsset {
  body: Buffer;
  type: string;
  /** Text (scripts, styles, drawings) is compressed; images and models are sent as they are. */
  text: boolean;
  br?: Buffer;
  gzip?: Buffer;
}

export function staticAsset(body: Buffer, type: string): StaticAsset {
  return { body, type, text: /javascript|css|svg|json/.test(type) };
}

/**
 * Brotli at its best quality (~0.1 s on the page's script) and gzip 9: paid once per asset, on the first request that
 * takes the coding, not at every start; the copy is kept with the asset.
 */
const compressedAsset = (a: StaticAsset, encoding: Encoding) =>
  encoding === 'br'
    ? (a.br ??= brotliCompressSync(a.body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: a.body.length } }))
    : (a.gzip ??= gzipSync(a.body, { level: 9 }));

/** Sends `asset`, compressed when it is text and the request takes a coding (`Vary: Accept-Encoding`). */
export function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: StaticAsset) {
  reply.type(asset.type);
  if (!asset.text) return reply.send(asset.body);
  reply.header('Vary', 'Accept-Encoding');
  const encoding = chosenEncoding(request.headers['accept-encoding']);
  if (!encoding) return reply.send(asset.body);
  return reply.header('Content-Encoding', encoding).send(compressedAsset(asset, encoding));
}
