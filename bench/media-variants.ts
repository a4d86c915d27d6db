/**
 * What one resized variant costs to encode, per format, on this machine: the figures behind GET /media/<name>?w=
 * preferring AVIF (docs/media.md, "Sizes"). `npx tsx bench/media-variants.ts` (no database, ~20 s).
 * Two sources: a soft photograph-like picture (smooth gradients) and a busy one (blurred noise), 3000 × 2000 JPEG.
 */
import sharp from 'sharp';

const settings = [
  ['webp', { quality: 80, effort: 4 }],
  ['avif', { quality: 50, effort: 2 }],
  ['avif', { quality: 50, effort: 4 }],
  ['jpeg', { quality: 80, mozjpeg: true }],
] as const;

async function source(kind: 'soft' | 'busy'): Promise<Buffer> {
  const [width, height] = [3000, 2000];
  if (kind === 'busy') {
    return sharp({ create: { width, height, channels: 3, background: 'black', noise: { type: 'gaussian', mean: 128, sigma: 60 } } })
      .blur(3)
      .jpeg({ quality: 90 })
      .toBuffer();
  }
  const small = await sharp({ create: { width: 30, height: 20, channels: 3, background: 'black', noise: { type: 'gaussian', mean: 128, sigma: 50 } } })
    .png()
    .toBuffer();
  return sharp(small).resize(width, height, { kernel: 'cubic' }).jpeg({ quality: 90 }).toBuffer();
}

console.log('source  width  format  settings                  bytes     ms');
for (const kind of ['soft', 'busy'] as const) {
  const input = await source(kind);
  for (const width of [640, 1280, 2560]) {
    for (const [format, options] of settings) {
      const started = performance.now();
      const out = await sharp(input).resize({ width }).toFormat(format, options).toBuffer();
      const ms = Math.round(performance.now() - started);
      console.log(
        `${kind.padEnd(6)}  ${String(width).padStart(5)}  ${format.padEnd(6)}  ${JSON.stringify(options).padEnd(24)}  ${String(out.length).padStart(7)}  ${String(ms).padStart(5)}`,
      );
    }
  }
}
