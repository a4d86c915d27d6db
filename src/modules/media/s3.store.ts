import { createReadStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type * as S3 from '@aws-sdk/client-s3';
import type { S3Config } from '../../config.ts';
import { commonJs } from '../../lib/cjs.ts';
import type { ListedObject, MediaStore, PutBody, StoredObject } from './store.types.ts';

type Sdk = Pick<typeof S3, 'S3Client' | 'PutObjectCommand' | 'GetObjectCommand' | 'DeleteObjectCommand' | 'ListObjectsV2Command'>;

/**
 * The SDK is loaded here, on first use of MEDIA_STORE=s3 only. It is CommonJS inside an ES module bundle, so its
 * exports are taken through commonJs() (src/lib/cjs.ts), which the build checks.
 */
async function loadSdk(): Promise<Sdk> {
  const { S3Client, PutObjectCommand, GetObjectCommand, DeleteObjectCommand, ListObjectsV2Command } = commonJs(await import('@aws-sdk/client-s3'));
  return { S3Client, PutObjectCommand, GetObjectCommand, DeleteObjectCommand, ListObjectsV2Command };
}

/** Objects in one bucket of any S3-compatible store; keys as the service makes them, no prefix. */
export class S3MediaStore implements MediaStore {
  readonly kind = 's3';

  private constructor(
    private readonly sdk: Sdk,
    private readonly client: S3.S3Client,
    private readonly bucket: string,
    readonly tempDir: string,
  ) {}

  static async open(config: S3Config, tempDir: string): Promise<S3MediaStore> {
    const sdk = await loadSdk();
    const client = new sdk.S3Client({
      region: config.region,
      ...(config.endpoint ? { endpoint: config.endpoint } : {}),
      ...(config.credentials ? { credentials: config.credentials } : {}),
      forcePathStyle: config.forcePathStyle,
      // Checksums only where the protocol requires them: many S3-compatible stores reject the newer trailers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
    });
    await mkdir(tempDir, { recursive: true });
    return new S3MediaStore(sdk, client, config.bucket, tempDir);
  }

  async put(key: string, body: PutBody, contentType: string): Promise<void> {
    const { PutObjectCommand } = this.sdk;
    if (Buffer.isBuffer(body)) {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType, ContentLength: body.length }));
      return;
    }
    try {
      const stream = createReadStream(body.file);
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: stream, ContentType: contentType, ContentLength: body.size }));
    } finally {
      await rm(body.file, { force: true });
    }
  }

  async get(key: string): Promise<StoredObject | undefined> {
    try {
      const out = await this.client.send(new this.sdk.GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return { body: out.Body as Readable, size: out.ContentLength ?? 0, lastModified: out.LastModified ?? new Date(0) };
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new this.sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async *list(prefix = ''): AsyncIterable<ListedObject> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new this.sdk.ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix || undefined, ContinuationToken: token, MaxKeys: 1000 }),
      );
      for (const o of page.Contents ?? []) {
        if (o.Key) yield { key: o.Key, size: o.Size ?? 0, lastModified: o.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}

function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  if (e.name === 'NoSuchBucket') return false;
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}
