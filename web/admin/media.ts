import { request } from './api.ts';
import { mediaSrcset } from '../../src/modules/media/srcset.ts';

export interface Media {
  url: string;
  contentType: string;
  size: number;
}

/** POST /media with the file as the one part `file`. */
export async function upload(file: File): Promise<Media> {
  const form = new FormData();
  form.append('file', file, file.name);
  return (await request<Media>('POST', '/media', { raw: form })).data;
}

/**
 * `srcset` and `sizes` for an uploaded picture drawn `sizes` wide, so the browser asks the server for that width;
 * nothing for other addresses (SVG plans, pictures elsewhere).
 */
export function sized(url: string | undefined, sizes: string): { srcset?: string; sizes?: string } {
  const srcset = mediaSrcset(url, location.origin);
  return srcset ? { srcset, sizes } : {};
}
