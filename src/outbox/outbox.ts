import PgBoss from 'pg-boss';
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/db.ts';
import type { Database } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { newObjectId } from '../lib/object-id.ts';
import { countJobs, findJobs, lockStart, QUEUE_SCHEMA, releaseJobs, unlockStart, type Envelope } from './outbox.repo.ts';

declare module 'fastify' {
  interface FastifyInstance {
    outbox: Outbox;
  }
}

export { QUEUE_SCHEMA };
const DAY_SEC = 24 * 60 * 60;

/** What a handler learns about the job it runs. */
export interface JobInfo {
  /** pg-boss job id of this attempt. */
  jobId: string;
  kind: string;
  /** Stable across every attempt of one job: use it as the message id, webhook-id, .eml name... */
  key: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** When the job was first queued (ms since epoch, from the injected clock). */
  queuedAt: number;
  /** The error of the previous attempt, if any. */
  previousError?: string;
}

/** A kind of job: its handler and its retry schedule. Register every kind before the app is ready. */
export interface JobKind<P = unknown> {
  /** Queue name: lower-case letters, digits, `-` and `_`. */
  name: string;
  /** Seconds to wait after attempt 1, 2, 3... fails; the last value repeats. */
  retryDelaysSec: readonly number[];
  /** No attempt starts later than this many seconds after the job was queued (default 24 h). */
  giveUpAfterSec?: number;
  /** An attempt that runs longer counts as failed (default 60 s). Also bounds how long a crashed node holds a job. */
  timeoutSec?: number;
  /** Jobs of this kind run at most this many at a time on one node (default: the outbox's concurrency). */
  concurrency?: number;
  /** Does the work. Throwing (or timing out) schedules the next attempt. */
  handle(payload: P, job: JobInfo): Promise<void>;
  /** Called once when the schedule is exhausted (the job is then kept as completed with `gaveUp` in its output). */
  onGiveUp?(payload: P, job: JobInfo, error: string): Promise<void> | void;
}

export interface EnqueueOptions {
  /** Stable id for every attempt (default: a new 24-hex id). */
  key?: string;
  /** First attempt not before this instant (ms since epoch); default: at once. */
  runAt?: number;
}

export interface OutboxOptions {
  /** How often an idle worker looks for due jobs; 0: this node runs no worker (it still enqueues). */
  pollMs: number;
  /** Jobs run at once per kind on this node. */
  concurrency: number;
  log: FastifyBaseLogger;
}

export interface JobRow {
  id: string;
  key: string;
  attempt: number;
  state: string;
  startAfter: Date;
  error: string | undefined;
  output: Record<string, unknown> | null;
}

type Queryable = Kysely<Database> | Transaction<Database>;

/**
 * pg-boss's database adapter over a Kysely handle (the pool, PGlite's one connection, or a transaction).
 * Some of pg-boss's commands are scripts with their own BEGIN ... COMMIT; when one fails half-way on a pooled
 * connection, that connection is rolled back before it goes back to the pool, or every later query on it would
 * fail with "current transaction is aborted".
 */
export function bossDb(q: Queryable) {
  return {
    async executeSql(text: string, values: unknown[] = []) {
      const query = CompiledQuery.raw(text, values);
      if (q.isTransaction) return { rows: (await q.executeQuery(query)).rows };
      return q.connection().execute(async (conn) => {
        try {
          return { rows: (await conn.executeQuery(query)).rows };
        } catch (err) {
          await conn.executeQuery(CompiledQuery.raw('rollback')).catch(() => undefined);
          throw err;
        }
      });
    },
  };
}

/** What pg-boss's complete() answers (its type declarations say void). */
type Affected = { affected: number };

class AttemptTimeout extends Error {}

/**
 * A handler's failure that names the earliest time to try again (a server's 429 with Retry-After): the next attempt
 * is not before it, however short the kind's schedule says.
 */
export class RetryAfter extends Error {
  constructor(
    message: string,
    readonly seconds: number,
  ) {
    super(message);
  }
}
class LeaseLost extends Error {}

/**
 * The durable outbox: a job queue in the service's own database, on pg-boss. A job is written with `enqueue`
 * inside the caller's transaction (so it exists exactly when the change that causes it commits); a worker on
 * every node fetches due jobs with `FOR UPDATE SKIP LOCKED` (one node per job), runs the kind's handler, and
 * on failure queues the next attempt per the kind's schedule in one transaction with closing this one.
 */
export class Outbox {
  readonly #boss: PgBoss;
  readonly #kinds = new Map<string, JobKind>();
  /** Attempts in flight, with the job each runs (a stop puts back those it cannot wait for). */
  readonly #running = new Map<Promise<unknown>, { kind: string; id: string }>();
  /** Attempts that succeeded and are not yet marked done (their lane marks them at its next turn, or a stop does). */
  readonly #succeeded = new Map<string, { kind: string; id: string }>();
  #timer: NodeJS.Timeout | undefined;
  #started = false;
  #starting: Promise<void> | undefined;
  #stopping = false;
  #pass: Promise<{ ran: number; ok: number }> | undefined;
  #again = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly opts: OutboxOptions,
  ) {
    this.#boss = new PgBoss({
      db: bossDb(db.kysely),
      schema: QUEUE_SCHEMA,
      // Our own worker loop does the fetching; pg-boss's maintenance expires jobs of crashed nodes and archives.
      supervise: true,
      schedule: false,
      migrate: true,
    });
    this.#boss.on('error', (err) => {
      opts.log.warn({ err }, 'job queue maintenance failed');
    });
  }

  register<P>(kind: JobKind<P>): void {
    if (this.#started) throw new Error(`outbox: kind ${kind.name} registered after start`);
    if (!/^[a-z0-9_-]{1,50}$/.test(kind.name)) throw new Error(`outbox: bad kind name ${kind.name}`);
    if (!kind.retryDelaysSec.length) throw new Error(`outbox: kind ${kind.name} needs at least one retry delay`);
    this.#kinds.set(kind.name, kind);
  }

  /**
   * Queues a job. Pass the transaction of the write that causes it: the job commits or rolls back with it.
   * Returns the job's key. Call `wake()` after the transaction commits to have this node look at once.
   */
  async enqueue(q: Queryable, kindName: string, payload: unknown, options: EnqueueOptions = {}): Promise<string> {
    const kind = this.#kinds.get(kindName);
    if (!kind) throw new Error(`outbox: unknown kind ${kindName}`);
    const key = options.key ?? newObjectId(this.clock.now());
    const envelope: Envelope = { p: payload, key, n: 1, t0: this.clock.now() };
    await this.#send(q, kind, envelope, options.runAt);
    return key;
  }

  /** Installs or upgrades the queue's tables, creates a queue per kind, starts the worker (unless pollMs is 0). */
  async start(): Promise<void> {
    if (this.#started) return;
    // One attempt at a time: the boot's retry timer and a readiness probe may both ask.
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #start(): Promise<void> {
    // pg-boss checks, then installs; two nodes doing that at once on a new database collide. Take turns
    // (PostgreSQL only: embedded PGlite is one process, and its one connection is the one pg-boss needs).
    if (this.db.engine === 'pglite') await this.#install();
    else
      await this.db.kysely.connection().execute(async (conn) => {
        await lockStart(conn);
        try {
          await this.#install();
        } finally {
          await unlockStart(conn);
        }
      });
    this.#started = true;
    if (this.opts.pollMs > 0) this.#schedule(0);
  }

  async #install(): Promise<void> {
    await this.#boss.start();
    // One read of the existing queues instead of one create statement per kind at every start.
    const have = new Set((await this.#boss.getQueues()).map((q) => q.name));
    for (const kind of this.#kinds.values()) if (!have.has(kind.name)) await this.#boss.createQueue(kind.name);
  }

  /** True once start() has installed the queue (enqueueing works from then on). */
  get started(): boolean {
    return this.#started;
  }

  /** Starts no more attempts (a node that is shutting down); those in flight go on. */
  quiesce(): void {
    this.#stopping = true;
    clearTimeout(this.#timer);
  }

  /**
   * Stops fetching and waits up to `timeoutMs` for attempts in flight; those still running then go back to the
   * queue, due at once for any node (their attempt number unchanged), rather than waiting out their lease.
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.quiesce();
    const pending = Promise.allSettled([...this.#running.keys(), this.#pass]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([pending, new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
    // Successes whose batch is still waiting on a slower attempt are marked done now, or they would run again.
    const finished = new Map<string, string[]>();
    for (const { kind, id } of this.#succeeded.values()) finished.set(kind, [...(finished.get(kind) ?? []), id]);
    for (const [kind, ids] of finished) {
      await this.#complete(kind, ids).catch((err: unknown) => {
        this.opts.log.warn({ err, kind }, 'outbox: could not mark finished attempts done');
      });
    }
    this.#succeeded.clear();
    const unfinished = new Map<string, string[]>();
    for (const { kind, id } of this.#running.values()) unfinished.set(kind, [...(unfinished.get(kind) ?? []), id]);
    for (const [kind, ids] of unfinished) {
      const released = await releaseJobs(this.db.kysely, kind, ids).catch((err: unknown) => {
        this.opts.log.warn({ err, kind }, 'outbox: could not put unfinished attempts back; they run again after their lease');
        return 0;
      });
      this.opts.log.warn({ kind, released }, 'outbox: attempts still running at shutdown went back to the queue');
    }
    if (this.#started) await this.#boss.stop({ graceful: false, close: false, wait: false }).catch(() => {});
    this.#started = false;
  }

  /** Look for due jobs now (after a commit that queued one), instead of at the next poll. */
  wake(): void {
    if (this.#started && !this.#stopping && this.opts.pollMs > 0) this.#schedule(0);
  }

  /**
   * Runs the jobs that are due now, pass after pass while passes deliver something (a pass of only failures
   * ends it, so a server that is down is not hammered), and returns how many attempts it made. The worker loop
   * calls it; so can tests and benchmarks that run without the loop (pollMs 0).
   */
  async drain(): Promise<number> {
    if (!this.#started) throw new Error('outbox: not started');
    let total = 0;
    for (;;) {
      const { ran, ok } = await this.#passOnce();
      total += ran;
      if (ok === 0 || this.#stopping) return total;
    }
  }

  /** Every stored attempt of a kind's jobs, by key, latest attempt first (for tests, operations and the deliveries list). */
  async jobs(kindName: string, key?: string): Promise<JobRow[]> {
    const rows = await findJobs(this.db.kysely, kindName, key);
    return rows.map((r) => ({
      id: r.id,
      key: r.data.key,
      attempt: r.data.n,
      state: r.state,
      startAfter: new Date(r.start_after),
      error: r.data.err,
      output: r.output,
    }));
  }

  /** Jobs in the queue by kind and state (GET /metrics); none before the queue is installed. */
  async counts(): Promise<{ kind: string; state: string; count: number }[]> {
    if (!this.#started) return [];
    return (await countJobs(this.db.kysely)).map((r) => ({ kind: r.name, state: r.state, count: r.count }));
  }

  #schedule(ms: number) {
    if (this.#stopping) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#loop(), ms);
    this.#timer.unref();
  }

  async #loop() {
    if (this.#pass) {
      // A pass is running: let it look once more when it ends, so a wake is never lost.
      this.#again = true;
      return;
    }
    try {
      await this.drain();
    } catch (err) {
      this.opts.log.warn({ err }, 'outbox worker pass failed; retrying at the next poll');
    }
    if (this.#again) {
      this.#again = false;
      this.#schedule(0);
    } else {
      this.#schedule(this.opts.pollMs);
    }
  }

  /** One pass: every kind's lane at once, so a kind whose attempts hang (a mail server that does not answer) delays no other. */
  async #passOnce(): Promise<{ ran: number; ok: number }> {
    const run = async () => {
      const lanes = await Promise.all([...this.#kinds.values()].map((kind) => this.#lane(kind)));
      return lanes.reduce((a, b) => ({ ran: a.ran + b.ran, ok: a.ok + b.ok }), { ran: 0, ok: 0 });
    };
    const pass = (this.#pass = run().finally(() => (this.#pass = undefined)));
    return pass;
  }

  /**
   * One kind's lane: keeps up to its concurrency attempts in flight, taking more due jobs as each slot frees, until
   * none are due and every attempt has ended. A slow or hung attempt holds its own slot only: the others go on being
   * fetched and marked done. Successes that end together are marked done in one statement.
   */
  async #lane(kind: JobKind): Promise<{ ran: number; ok: number }> {
    const limit = kind.concurrency ?? this.opts.concurrency;
    const inFlight = new Set<Promise<void>>();
    let finished: { kind: string; id: string }[] = [];
    let ran = 0;
    let ok = 0;
    let due = true;
    const markDone = async () => {
      if (!finished.length) return;
      const batch = finished;
      finished = [];
      const marked = await this.#complete(
        kind.name,
        batch.map((j) => j.id),
      );
      for (const j of batch) this.#succeeded.delete(j.id);
      if (marked.affected < batch.length)
        this.opts.log.warn({ kind: kind.name, late: batch.length - marked.affected }, 'outbox jobs finished after their lease ran out; they may run again');
      ok += batch.length;
    };
    for (;;) {
      if (due && !this.#stopping && inFlight.size < limit) {
        const jobs = await this.#boss.fetch<Envelope>(kind.name, { batchSize: limit - inFlight.size, includeMetadata: true });
        if (!jobs.length) due = false;
        for (const job of jobs) {
          ran++;
          const running = { kind: kind.name, id: job.id };
          const attempt = this.#attempt(kind, job);
          this.#running.set(attempt, running);
          const settled: Promise<void> = attempt
            .then((succeeded) => {
              // A failure ends this lane's fetching: a retry may be due at once (by an injected clock), and a server
              // that is down must not be hammered; the next pass (the worker's next turn) takes what is due.
              if (!succeeded) {
                due = false;
                return;
              }
              this.#succeeded.set(job.id, running);
              finished.push(running);
            })
            .finally(() => {
              this.#running.delete(attempt);
              inFlight.delete(settled);
            });
          inFlight.add(settled);
        }
      }
      if (!inFlight.size) break;
      await Promise.race(inFlight);
      await markDone();
    }
    await markDone();
    return { ran, ok };
  }

  /** One attempt; true when the handler succeeded (the caller marks it done). A failure is handled here. */
  async #attempt(kind: JobKind, job: PgBoss.JobWithMetadata<Envelope>): Promise<boolean> {
    const env = job.data;
    const info: JobInfo = { jobId: job.id, kind: kind.name, key: env.key, attempt: env.n, queuedAt: env.t0, ...(env.err ? { previousError: env.err } : {}) };
    try {
      await withTimeout(kind.handle(env.p, info), (kind.timeoutSec ?? 60) * 1000);
    } catch (err) {
      await this.#failed(kind, job, info, err);
      return false;
    }
    return true;
  }

  async #failed(kind: JobKind, job: PgBoss.JobWithMetadata<Envelope>, info: JobInfo, err: unknown) {
    const env = job.data;
    const message = err instanceof AttemptTimeout ? err.message : err instanceof Error ? err.message : String(err);
    const delays = kind.retryDelaysSec;
    const scheduled = delays[Math.min(env.n - 1, delays.length - 1)];
    // register() refuses a kind without delays, and attempts count from 1.
    if (scheduled === undefined) throw new Error(`outbox: no retry delay for attempt ${env.n} of kind ${kind.name}`);
    const delaySec = err instanceof RetryAfter ? Math.max(scheduled, err.seconds) : scheduled;
    const now = this.clock.now();
    const next = now + delaySec * 1000;
    const giveUpAt = env.t0 + (kind.giveUpAfterSec ?? DAY_SEC) * 1000;
    if (next > giveUpAt) {
      await this.#complete(kind.name, job.id, { attempt: env.n, error: message, gaveUp: true });
      this.opts.log.error({ kind: kind.name, key: env.key, attempts: env.n, err: message }, 'outbox job gave up');
      try {
        await kind.onGiveUp?.(env.p, info, message);
      } catch (e) {
        this.opts.log.error({ err: e, kind: kind.name, key: env.key }, 'outbox onGiveUp failed');
      }
      return;
    }
    this.opts.log.warn(
      { kind: kind.name, key: env.key, attempt: env.n, retryAt: new Date(next).toISOString(), err: message },
      'outbox attempt failed; will retry',
    );
    try {
      // Closing this attempt and queueing the next is one transaction: a crash in between loses nothing and
      // doubles nothing. If the lease already ran out (pg-boss requeued the job), this attempt adds no other.
      await this.db.kysely.transaction().execute(async (trx) => {
        const closed = await this.#complete(kind.name, job.id, { attempt: env.n, error: message, retryAt: new Date(next).toISOString() }, trx);
        if (closed.affected === 0) throw new LeaseLost();
        await this.#send(trx, kind, { ...env, n: env.n + 1, err: message }, next);
      });
    } catch (e) {
      if (!(e instanceof LeaseLost)) throw e;
    }
  }

  /** pg-boss's complete(): it answers `{ affected }`, though its type declarations say void. */
  #complete(name: string, ids: string | string[], output?: object, q?: Queryable): Promise<Affected> {
    const complete = this.#boss.complete.bind(this.#boss) as unknown as (n: string, i: string | string[], d?: object, o?: object) => Promise<Affected>;
    return complete(name, ids, output, q ? { db: bossDb(q) } : {});
  }

  async #send(q: Queryable, kind: JobKind, envelope: Envelope, runAt: number | undefined) {
    const timeout = kind.timeoutSec ?? 60;
    const id = await this.#boss.send(
      kind.name,
      envelope as object,
      {
        db: bossDb(q),
        ...(runAt !== undefined ? { startAfter: new Date(runAt) } : {}),
        // A node that dies mid-attempt: after the lease pg-boss makes the job due again (its own retries).
        expireInSeconds: timeout + 30,
        retryLimit: 5,
        retryDelay: 30,
        retryBackoff: true,
        // A job not yet run is kept this long (well past the 24 h schedule); finished attempts are archived by
        // pg-boss's maintenance after 12 h and deleted after 7 days (its defaults).
        retentionDays: 14,
      } as PgBoss.SendOptions & { db: ReturnType<typeof bossDb> },
    );
    if (!id) throw new Error(`outbox: queue ${kind.name} refused a job`);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new AttemptTimeout(`attempt exceeded ${ms} ms`));
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => {
    clearTimeout(timer);
  });
}
