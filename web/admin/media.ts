import { request } from './api.ts';

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
