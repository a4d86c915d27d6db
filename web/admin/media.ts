import { ApiError, refresh, type Problem } from './api.ts';
import { mediaSrcset } from '../../src/modules/media/srcset.ts';

export interface Media {
  url: string;
  contentType: string;
  size: number;
}

/** One XMLHttpRequest POST /media: fetch cannot report upload progress, XHR can. */
function send(file: File, onProgress: (fraction: number) => void): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/media');
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      let body: unknown = xhr.responseText;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON: kept as text
      }
      resolve({ status: xhr.status, body });
    };
    xhr.onerror = () => reject(new Error(`Uploading ${file.name} failed: the connection dropped.`));
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

/** POST /media reporting progress (0–1) as it goes; a lapsed session is refreshed once, as every other call does. */
export async function uploadWithProgress(file: File, onProgress: (fraction: number) => void): Promise<Media> {
  let answer = await send(file, onProgress);
  if (answer.status === 401 && (await refresh())) answer = await send(file, onProgress);
  if (answer.status === 201 || answer.status === 200) return answer.body as Media;
  const problem = typeof answer.body === 'object' && answer.body ? (answer.body as Problem) : { status: answer.status, detail: String(answer.body) };
  if (answer.status === 415) throw new Error(`${file.name} is not a PNG, JPEG, WebP, SVG or PDF.`);
  if (answer.status === 413) throw new Error(`${file.name} is larger than 20 MB.`);
  throw new ApiError({ ...problem, status: answer.status });
}

/**
 * `srcset` and `sizes` for an uploaded picture drawn `sizes` wide, so the browser asks the server for that width;
 * nothing for other addresses (SVG plans, pictures elsewhere).
 */
export function sized(url: string | undefined, sizes: string): { srcset?: string; sizes?: string } {
  const srcset = mediaSrcset(url, location.origin);
  return srcset ? { srcset, sizes } : {};
}
