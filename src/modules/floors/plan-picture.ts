import { readAll, type MediaStore } from '../media/media.store.ts';
import { MEDIA_NAME } from '../media/media.service.ts';
import { loadSharp } from '../media/variants.ts';
import { WORKING_SIZE, type GreyImage } from './outline-detect.ts';

const MAX_INPUT_PIXELS = 50_000_000;

/**
 * A plan picture uploaded to this service (`/media/<hash>.<ext>`, an SVG drawn by sharp) as grey pixels at most
 * WORKING_SIZE on its longer side, transparency as white; undefined for another address, a PDF, a missing or an
 * undecodable file (then there is simply nothing to suggest).
 */
export async function planPicture(store: MediaStore, url: string): Promise<GreyImage | undefined> {
  const name = /^\/media\/([^/?#]+)$/.exec(url)?.[1];
  if (!name || !MEDIA_NAME.test(name) || name.endsWith('.pdf')) return undefined;
  const found = await store.get(name);
  if (!found) return undefined;
  const input = await readAll(found.body);
  const sharp = await loadSharp();
  try {
    const { data, info } = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
      .rotate()
      .flatten({ background: '#ffffff' })
      .resize({ width: WORKING_SIZE, height: WORKING_SIZE, fit: 'inside' })
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const grey = new Uint8Array(info.width * info.height);
    for (let i = 0; i < grey.length; i++) grey[i] = data[i * info.channels] ?? 255;
    return { data: grey, width: info.width, height: info.height };
  } catch {
    return undefined;
  }
}
