import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Ctx } from '../../context.ts';
import { repeatWithoutOverlap } from '../../lib/repeat.ts';
import { claimMediaSweep, forgetOrphans, markOrphans, referencedMediaNames } from './media.repo.ts';
import { MEDIA_NAME } from './media.service.ts';
import type { MediaStore } from './media.store.ts';
import { VARIANT_KEY } from './variants.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** A temporary upload file older than this was left by an interrupted upload. */
const TEMP_MAX_AGE_MS = 60 * 60 * 1000;

export type OrphanSweepResult =
  | { ran: false }
  | {
      ran: true;
      /** Files no record refers to right now (kept or deleted). */
      unreferenced: number;
      /** Originals deleted in this sweep, and every variant deleted with them or left without an original. */
      deleted: string[];
      variantsDeleted: number;
    };

/**
 * Deletes uploads that no project, floor, unit or group has referred to for MEDIA_ORPHAN_DAYS, with their variants.
 * Every node ticks every MEDIA_SWEEP_MINUTES; the sweep runs on the node that claims the interval (a conditional
 * upsert, as the inventory feed schedule does), so it runs once per interval across nodes. It holds no lock or
 * transaction while it talks to the store, so the embedded database's one connection stays free.
 */
export class OrphanSweeper {
  #repeat: { stop(): void } | undefined;

  constructor(
    private readonly ctx: Pick<Ctx, 'config' | 'db' | 'clock'>,
    private readonly store: MediaStore,
    private readonly log: FastifyBaseLogger,
  ) {}

  get intervalMs() {
    return this.ctx.config.media.sweepMinutes * 60_000;
  }

  /** One sweep if this node claims the interval (tests call it by hand with a moved clock). */
  async tick(): Promise<OrphanSweepResult> {
    const db = this.ctx.db.kysely;
    const now = new Date(this.ctx.clock.now());
    // A by-hand tick with the schedule off still claims, with a minute as its interval.
    if (!(await claimMediaSweep(db, now, this.intervalMs || 60_000))) return { ran: false };
    const cutoff = new Date(now.getTime() - this.ctx.config.media.orphanDays * DAY_MS);

    const originals = new Map<string, Date>();
    const variants: { key: string; name: string }[] = [];
    for await (const o of this.store.list()) {
      if (MEDIA_NAME.test(o.key)) originals.set(o.key, o.lastModified);
      else {
        const v = VARIANT_KEY.exec(o.key);
        if (v) variants.push({ key: o.key, name: v[1] as string });
      }
    }
    const referenced = await referencedMediaNames(db);
    const unreferenced = [...originals.keys()].filter((name) => !referenced.has(name));
    const due = await markOrphans(db, unreferenced, now, cutoff);
    // A file stored again since (uploaded anew, same content) is as new as that upload.
    let doomed = due.filter((name) => (originals.get(name) ?? now) <= cutoff);
    if (doomed.length) {
      // Looked at again just before deleting: a record saved during the sweep keeps its file.
      const still = await referencedMediaNames(db);
      doomed = doomed.filter((name) => !still.has(name));
    }
    const deleted: string[] = [];
    for (const name of doomed) {
      await this.store.delete(name);
      originals.delete(name);
      deleted.push(name);
    }
    await forgetOrphans(db, deleted);
    // A variant goes with its original (and one whose original is gone some other way goes too).
    const hashes = new Set([...originals.keys()].map((name) => name.slice(0, 32)));
    let variantsDeleted = 0;
    for (const v of variants) {
      if (hashes.has(v.name)) continue;
      await this.store.delete(v.key);
      variantsDeleted++;
    }
    if (deleted.length || variantsDeleted) this.log.info({ deleted: deleted.length, variantsDeleted }, 'deleted unreferenced media');
    return { ran: true, unreferenced: unreferenced.length, deleted, variantsDeleted };
  }

  /**
   * Deletes this node's temporary upload files (`.upload-*` in the store's temporary directory) older than an hour:
   * what a crash or a kill left mid-upload. An upload in progress is bounded by REQUEST_TIMEOUT_SEC, far less than
   * that, so none is touched. Runs on every node (the directory may be the node's own), at start and each interval.
   */
  async sweepTemporary(): Promise<number> {
    const dir = this.store.tempDir;
    const cutoff = this.ctx.clock.now() - TEMP_MAX_AGE_MS;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      if (!name.startsWith('.upload-')) continue;
      const path = join(dir, name);
      const st = await stat(path).catch(() => undefined);
      if (!st?.isFile() || st.mtimeMs > cutoff) continue;
      await rm(path, { force: true });
      removed++;
    }
    if (removed) this.log.info({ removed, dir }, 'deleted temporary upload files left by an interrupted upload');
    return removed;
  }

  start() {
    this.sweepTemporary().catch((err: unknown) => {
      this.log.warn({ err }, 'temporary upload sweep failed');
    });
    if (this.intervalMs <= 0) return;
    this.#repeat = repeatWithoutOverlap(
      this.intervalMs,
      async () => {
        await this.sweepTemporary();
        return this.tick();
      },
      (err: unknown) => {
        this.log.warn({ err }, 'media orphan sweep failed');
      },
    );
  }

  stop() {
    this.#repeat?.stop();
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The unreferenced-media sweep of this node (tests tick it by hand). */
    mediaSweeper: OrphanSweeper;
  }
}
