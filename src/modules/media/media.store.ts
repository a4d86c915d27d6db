import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import type { MediaConfig } from '../../config.ts';
import type { ListedObject, MediaStore, PutBody, StoredObject } from './store.types.ts';

export type { ListedObject, MediaStore, PutBody, StoredObject } from './store.types.ts';

/** The configured store; the S3 client is loaded only when MEDIA_STORE=s3. */
export async function openMediaStore(config: { mediaDir: string; media: MediaConfig }): Promise<MediaStore> {
  if (config.media.store === 's3' && config.media.s3) {
    const { S3MediaStore } = await import('./s3.store.ts');
    return S3MediaStore.open(config.media.s3, join(tmpdir(), 'showsuite-uploads'));
  }
  return new LocalMediaStore(config.mediaDir);
}

/** Files under one directory (MEDIA_DIR); a key's `/` is a subdirectory. Temporary files start with a dot. */
export class LocalMediaStore implements MediaStore {
  readonly kind = 'local';
  constructor(private readonly root: string) {}

  /** Inside the directory, so a finished upload is renamed into place (same file system). */
  get tempDir() {
    return this.root;
  }

  #path(key: string) {
    return join(this.root, ...key.split('/'));
  }

  async put(key: string, body: PutBody, _contentType: string): Promise<void> {
    const path = this.#path(key);
    await mkdir(dirname(path), { recursive: true });
    if (Buffer.isBuffer(body)) {
      // Written beside and renamed into place: a reader never sees half a file.
      const temp = join(this.root, `.upload-${randomBytes(8).toString('hex')}`);
      await writeFile(temp, body);
      await rename(temp, path);
    } else {
      await rename(body.file, path);
    }
  }

  async get(key: string): Promise<StoredObject | undefined> {
    let handle;
    try {
      handle = await open(this.#path(key), 'r');
    } catch {
      return undefined;
    }
    // Opened first, then measured: a file deleted in between is still read whole.
    const st = await handle.stat();
    if (!st.isFile()) {
      await handle.close();
      return undefined;
    }
    return { body: handle.createReadStream(), size: st.size, lastModified: st.mtime };
  }

  async delete(key: string): Promise<void> {
    await rm(this.#path(key), { force: true });
  }

  async *list(prefix = ''): AsyncIterable<ListedObject> {
    const walk = async function* (dir: string, keyPrefix: string): AsyncIterable<ListedObject> {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        if (e.name.startsWith('.')) continue;
        const key = keyPrefix + e.name;
        if (e.isDirectory()) {
          if (prefix.startsWith(`${key}/`) || `${key}/`.startsWith(prefix)) yield* walk(join(dir, e.name), `${key}/`);
        } else if (e.isFile() && key.startsWith(prefix)) {
          const st = await stat(join(dir, e.name)).catch(() => undefined);
          if (st) yield { key, size: st.size, lastModified: st.mtime };
        }
      }
    };
    yield* walk(this.root, '');
  }
}

/** Reads a stream into memory (variants are encoded from and to buffers). */
export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
