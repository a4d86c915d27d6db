/**
 * At most `size` holders at once; the others wait in arrival order. A waiter may give up after a while (it then
 * gets `undefined` and holds nothing), so a queue that is too long to be worth waiting in costs the caller nothing.
 */
export class Semaphore {
  #free: number;
  readonly #waiting: ((release: () => void) => void)[] = [];

  constructor(size: number) {
    this.#free = size;
  }

  /** Callers waiting for a place now. */
  get waiting() {
    return this.#waiting.length;
  }

  /** Resolves with the function that gives the place back, or with undefined when none was free within `waitMs`. */
  acquire(waitMs: number): Promise<(() => void) | undefined> {
    if (this.#free > 0) {
      this.#free -= 1;
      return Promise.resolve(this.#releaser());
    }
    if (waitMs <= 0) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const take = (release: () => void) => {
        clearTimeout(timer);
        resolve(release);
      };
      const timer = setTimeout(() => {
        const i = this.#waiting.indexOf(take);
        if (i >= 0) this.#waiting.splice(i, 1);
        resolve(undefined);
      }, waitMs);
      this.#waiting.push(take);
    });
  }

  #releaser() {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The place goes straight to the longest waiter, so a newcomer cannot take it first.
      const next = this.#waiting.shift();
      if (next) next(this.#releaser());
      else this.#free += 1;
    };
  }
}
