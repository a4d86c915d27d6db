/**
 * Bulk writes to many sockets, spread over turns of the event loop: each turn runs queued writes in arrival order
 * until `bytesPerTurn` have been written, then lets the loop take its I/O (new requests, database answers) before
 * the next turn. Without it, a few hundred streams each writing a page at once can all land in one turn, so the work
 * one turn takes (building, encoding and sending megabytes) grows with the number of streams (docs/events.md).
 */
export class WriteTurns {
  readonly #queue: { write: () => number; done: () => void; fail: (err: unknown) => void }[] = [];
  #scheduled = false;

  constructor(private readonly bytesPerTurn: number) {}

  /** Writes queued now (waiting for a turn). */
  get waiting() {
    return this.#queue.length;
  }

  /**
   * Runs `write` in a later turn, after the writes queued before it; it returns the bytes it wrote. Resolves once it
   * has run (rejects with what it threw; the writes after it run regardless). A write larger than the budget runs
   * alone in its turn.
   */
  run(write: () => number): Promise<void> {
    return new Promise((done, fail) => {
      this.#queue.push({ write, done, fail });
      this.#schedule();
    });
  }

  #schedule() {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#turn();
    });
  }

  #turn() {
    this.#scheduled = false;
    let budget = this.bytesPerTurn;
    while (budget > 0) {
      const next = this.#queue.shift();
      if (!next) break;
      try {
        budget -= next.write();
        next.done();
      } catch (err) {
        next.fail(err);
      }
    }
    if (this.#queue.length) this.#schedule();
  }
}
