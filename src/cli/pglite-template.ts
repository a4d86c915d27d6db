import { writeFileSync } from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import { openPGlite } from '../db/db.ts';
import { migrate } from '../db/migrate.ts';
import { systemClock } from '../lib/clock.ts';
import { MAIL_KIND } from '../mail/mail.ts';
import { WEBHOOK_KIND } from '../modules/webhooks/webhooks.dispatcher.ts';
import { Outbox } from '../outbox/outbox.ts';

/**
 * `npm run build` step: an embedded database that is created, migrated and has the job queue's tables, written as
 * a tarball beside the built server. A start on an empty DATA_DIR unpacks it (src/db/pglite-files.ts) instead of running initdb, every
 * migration and pg-boss's install (most of a first start). Migrations added later are applied on top as usual.
 * Checkpointed before it is written, so a directory made from it opens without replaying WAL.
 */
const out = process.argv[2];
if (!out) throw new Error('usage: pglite-template.js <out.tar>');
const noop = () => {};
const silent = { level: 'silent', info: noop, warn: noop, error: noop, debug: noop, trace: noop, fatal: noop } as unknown as FastifyBaseLogger;
// In memory: the tarball is the only thing written.
const db = await openPGlite(undefined);
try {
  await migrate(db);
  const outbox = new Outbox(db, systemClock, { pollMs: 0, concurrency: 1, log: silent });
  // The service's kinds, so their queues (a partitioned table each) exist too: creating them was ~0.2 s of a first
  // start. A kind missing here is created at start as before.
  for (const name of [MAIL_KIND, WEBHOOK_KIND]) outbox.register({ name, retryDelaysSec: [1], handle: async () => {} });
  await outbox.start();
  await outbox.stop();
  await db.checkpoint();
  writeFileSync(out, Buffer.from(await (await db.dumpDataDir()).arrayBuffer()));
} finally {
  await db.close();
}
