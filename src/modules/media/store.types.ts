import type { Readable } from 'node:stream';

/** What a put stores: bytes in memory, or a finished temporary file (the store may move it away). */
export type PutBody = Buffer | { file: string; size: number };

/** A stored object to read. */
export interface StoredObject {
  body: Readable;
  size: number;
  lastModified: Date;
}

/** One entry of a listing. */
export interface ListedObject {
  key: string;
  size: number;
  lastModified: Date;
}

/**
 * Where uploads and their resized variants live: a directory (`local`) or an S3-compatible bucket (`s3`). Keys are
 * made by the service only (`<hash>.<ext>`, `variants/<hash>-<width>.<format>`), never taken from a request.
 */
export interface MediaStore {
  readonly kind: 'local' | 's3';
  /** Where uploads are written while they arrive, before they are recognised and put. */
  readonly tempDir: string;
  put(key: string, body: PutBody, contentType: string): Promise<void>;
  /** The object, or undefined when there is none. */
  get(key: string): Promise<StoredObject | undefined>;
  /** Deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Every object whose key starts with prefix. */
  list(prefix?: string): AsyncIterable<ListedObject>;
}
