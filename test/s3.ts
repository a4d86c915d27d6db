import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The part of s3rver (a real S3-protocol server over a directory) these tests use; the package ships no types. */
interface S3rverServer {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}
type S3rverCtor = new (options: { address: string; port: number; silent: boolean; directory: string; configureBuckets: { name: string }[] }) => S3rverServer;

export interface TestS3 {
  /** `http://127.0.0.1:<port>`: pass as S3_ENDPOINT (with S3_FORCE_PATH_STYLE=true). */
  endpoint: string;
  bucket: string;
  /** s3rver checks signatures against these fixed keys. */
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** The settings that point MEDIA_STORE=s3 at this server. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Starts s3rver on a free loopback port, keeping its objects in a temporary directory, with one empty bucket.
 * `stop()` closes the port and removes the directory.
 */
export async function startS3(opts: { bucket?: string } = {}): Promise<TestS3> {
  const S3rver = createRequire(import.meta.url)('s3rver') as S3rverCtor;
  const directory = mkdtempSync(join(tmpdir(), 'showsuite-s3-'));
  const bucket = opts.bucket ?? 'showsuite-media';
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  return {
    endpoint,
    bucket,
    credentials,
    env: {
      MEDIA_STORE: 's3',
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    },
    async stop() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
