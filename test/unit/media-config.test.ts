import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.ts';

const KEYS = { JWT_SECRET: 'x'.repeat(40), SECRET_KEY: '0'.repeat(64) };

function load(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'showsuite-media-config-'));
  try {
    return loadConfig({ DATA_DIR: dir, ...KEYS, ...env });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function problems(env: Record<string, string>): string {
  try {
    load(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.message;
  }
  return assert.fail(`accepted ${JSON.stringify(env)}`);
}

test('media settings: local by default, a week before unreferenced files go, an hourly sweep', () => {
  const c = load({});
  assert.deepEqual(c.media, { store: 'local', s3: undefined, orphanDays: 7, sweepMinutes: 60 });
  assert.equal(load({ MEDIA_ORPHAN_DAYS: '30', MEDIA_SWEEP_MINUTES: '0' }).media.orphanDays, 30);
});

test('MEDIA_STORE=s3 reads the S3_* settings', () => {
  const c = load({
    MEDIA_STORE: 's3',
    S3_BUCKET: 'media',
    S3_ENDPOINT: 'http://127.0.0.1:9000',
    S3_ACCESS_KEY_ID: 'id',
    S3_SECRET_ACCESS_KEY: 'secret',
    S3_FORCE_PATH_STYLE: 'true',
  });
  assert.deepEqual(c.media.s3, {
    bucket: 'media',
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9000',
    credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
    forcePathStyle: true,
  });
  assert.equal(load({ MEDIA_STORE: 's3', S3_BUCKET: 'b', S3_REGION: 'eu-west-1' }).media.s3?.credentials, undefined);
});

test('bad media settings stop the start with a message naming each', () => {
  assert.match(problems({ MEDIA_STORE: 'ftp' }), /MEDIA_STORE must be local or s3/);
  assert.match(problems({ MEDIA_STORE: 's3' }), /S3_BUCKET is required/);
  assert.match(problems({ MEDIA_STORE: 's3', S3_BUCKET: 'b', S3_ENDPOINT: 'minio:9000' }), /S3_ENDPOINT must be/);
  assert.match(problems({ MEDIA_STORE: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'id' }), /must be set together/);
  assert.match(problems({ MEDIA_STORE: 's3', S3_BUCKET: 'b', S3_FORCE_PATH_STYLE: 'maybe' }), /S3_FORCE_PATH_STYLE must be true or false/);
  assert.match(problems({ MEDIA_ORPHAN_DAYS: '0' }), /MEDIA_ORPHAN_DAYS must be an integer between 1 and 3650/);
  assert.match(problems({ MEDIA_SWEEP_MINUTES: '-1' }), /MEDIA_SWEEP_MINUTES/);
  // The secret never appears in a message.
  assert.doesNotMatch(problems({ MEDIA_STORE: 's3', S3_SECRET_ACCESS_KEY: 'hunter2-secret' }), /hunter2/);
});
