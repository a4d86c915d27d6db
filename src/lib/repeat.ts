/**
 * Runs `tick` every `intervalMs`, never two at once on this node (a tick still running when the next is due makes
 * that one skip), with the timer unref'd so it keeps no process alive. A failed tick is handed to `onError`; the
 * next one runs as usual. Periodic background work (the feed schedule, the media sweep) shares this.
 */
export function repeatWithoutOverlap(intervalMs: number, tick: () => Promise<unknown>, onError: (err: unknown) => void): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    tick()
      .catch(onError)
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
    },
  };
}
