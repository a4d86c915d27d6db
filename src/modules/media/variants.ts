import { ERRORS } from '../../http/errors.catalogue.ts';

/** Resized copies of uploaded pictures: `GET /media/<name>?w=<width>` (docs/media.md, "Sizes"). */
export const MIN_WIDTH = 64;
export const MAX_WIDTH = 2560;
/**
 * A requested width is rounded up to a multiple of this, so one picture has at most 157 sizes per format however
 * many widths are asked for: the stored variants (and the encoding an anonymous visitor can cause) stay bounded.
 */
export const WIDTH_STEP = 16;

export type RasterKind = 'png' | 'jpg' | 'webp';
export type VariantFormat = 'avif' | 'webp' | 'png' | 'jpg';

export const VARIANT_TYPES: Record<VariantFormat, string> = { avif: 'image/avif', webp: 'image/webp', png: 'image/png', jpg: 'image/jpeg' };

/** Where a variant is kept in the media store, beside the originals. */
export const variantKey = (hash: string, width: number, format: VariantFormat) => `variants/${hash}-${width}.${format}`;
export const VARIANT_KEY = /^variants\/([0-9a-f]{32})-(\d+)\.(avif|webp|png|jpg)$/;

export const variantWidth = (w: number) => Math.min(MAX_WIDTH, Math.ceil(w / WIDTH_STEP) * WIDTH_STEP);

/**
 * AVIF when the client names it (smallest; encoded once, then stored), else WebP when named, else the original's own
 * format. Only explicit types count: `image/*` and `*∕*` do not promise an AVIF or WebP decoder.
 */
export function negotiate(accept: string | undefined, original: RasterKind): VariantFormat {
  const named = new Set<string>();
  for (const item of (accept ?? '').toLowerCase().split(',')) {
    const [type, ...params] = item.split(';').map((p) => p.trim());
    const q = params.find((p) => p.startsWith('q='));
    if (type && !(q && Number(q.slice(2)) === 0)) named.add(type);
  }
  if (named.has('image/avif')) return 'avif';
  if (named.has('image/webp')) return 'webp';
  return original;
}

/** The largest picture that is resized (50 megapixels, e.g. 8660 × 5773); larger ones are served only as they are. */
const MAX_INPUT_PIXELS = 50_000_000;
const AT_ONCE = 2;
const MAX_WAITING = 32;

type Sharp = (typeof import('sharp'))['default'];

/** Not a picture sharp can read (a damaged upload): the route serves the original instead. */
export class UndecodableError extends Error {}

/**
 * Encodes variants with sharp (loaded on the first resize): at most two at once per node, 32 waiting (then 429
 * with Retry-After), and one encoding per variant however many requests ask for it at the same time.
 */
export class VariantEncoder {
  #sharp: Promise<Sharp> | undefined;
  #running = 0;
  #waiting: (() => void)[] = [];
  #inFlight = new Map<string, Promise<Buffer>>();

  /**
   * The variant's bytes; `key` names it, so concurrent requests for one variant share a single encoding. The original
   * is read (`original()`) only once a slot is free, so waiting requests hold no picture in memory.
   */
  encode(key: string, original: () => Promise<Buffer>, width: number, format: VariantFormat): Promise<Buffer> {
    const running = this.#inFlight.get(key);
    if (running) return running;
    const job = this.#run(original, width, format).finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, job);
    return job;
  }

  async #run(original: () => Promise<Buffer>, width: number, format: VariantFormat): Promise<Buffer> {
    if (this.#running < AT_ONCE) this.#running++;
    else if (this.#waiting.length >= MAX_WAITING) {
      throw ERRORS.rateLimited('Too many pictures are being resized; retry in a second', { headers: { 'Retry-After': '1' } });
    } else {
      // The slot is handed over by the encoding that finishes (see finally), so no newcomer can slip in between.
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    try {
      const [sharp, input] = await Promise.all([(this.#sharp ??= loadSharp()), original()]);
      try {
        const image = sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' }).rotate().resize({ width, withoutEnlargement: true });
        const out = await (
          format === 'avif'
            ? image.avif({ quality: 50, effort: 2 })
            : format === 'webp'
              ? image.webp({ quality: 80, effort: 4 })
              : format === 'jpg'
                ? image.jpeg({ quality: 80, mozjpeg: true })
                : image.png({ compressionLevel: 9 })
        ).toBuffer();
        return out;
      } catch (err) {
        // Damaged, truncated or larger than MAX_INPUT_PIXELS: not resizable, whatever the request.
        throw new UndecodableError((err as Error).message);
      }
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}

/** sharp has a native addon, so it stays outside the bundle; its function is the default export (or the module, if CommonJS). */
export async function loadSharp(): Promise<Sharp> {
  const m = (await import('sharp')) as unknown as { default?: Sharp };
  return m.default ?? (m as unknown as Sharp);
}
