import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commonJs } from '../../src/lib/cjs.ts';

test('commonJs: a name from the namespace, else from default, whatever shape the loader gave', () => {
  const Client = function Client() {};
  // The bundle's chunk for a CommonJS package: default only.
  assert.equal(commonJs({ default: { Client } } as { Client?: typeof Client }).Client, Client);
  // Node's namespace for a CommonJS package: detected names and default.
  assert.equal(commonJs({ Client, default: { Client } }).Client, Client);
  // An ES module whose default export lacks the named ones (@opentelemetry/api's shape).
  const trace = { getTracer() {} };
  assert.equal(commonJs({ trace, ROOT_CONTEXT: 1, default: { trace } }).ROOT_CONTEXT, 1);
  // No default at all.
  assert.equal(commonJs({ Client }).Client, Client);
});

test('commonJs: the real packages the server loads lazily give every name the code takes', async () => {
  assert.equal(typeof commonJs(await import('ioredis')).Redis, 'function');
  assert.equal(typeof commonJs(await import('basic-ftp')).Client, 'function');
  const otel = commonJs(await import('@opentelemetry/api'));
  assert.equal(typeof otel.ROOT_CONTEXT, 'object');
  assert.equal(typeof otel.trace.getTracer, 'function');
  assert.equal(typeof commonJs(await import('@opentelemetry/sdk-trace-node')).NodeTracerProvider, 'function');
  assert.equal(typeof commonJs(await import('prom-client')).Registry, 'function');
});
