/**
 * Where the service's log lines go: stdout, written in batches. Pino writes each line with its own synchronous
 * write(2); at LOG_LEVEL=info that is one system call per request, which profiling `GET /units/{id}` under load
 * put among the largest costs of a cheap request (docs/performance.md). Lines are gathered and written together
 * when 16 kB are waiting or 50 ms after the first of them, and whatever is left when the process exits (also on
 * process.exit after a fatal error). A process killed with SIGKILL can lose its last 50 ms of lines.
 */
export class BatchedStdout {
  #pending: string[] = [];
  #size = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: { write(chunk: string): unknown } = process.stdout,
    private readonly maxBytes = 16 * 1024,
    private readonly maxDelayMs = 50,
  ) {
    process.once('exit', () => {
      this.flush();
    });
  }

  write(line: string): void {
    this.#pending.push(line);
    this.#size += line.length;
    if (this.#size >= this.maxBytes) this.flush();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => {
        this.flush();
      }, this.maxDelayMs);
      this.#timer.unref();
    }
  }

  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (!this.#pending.length) return;
    const chunk = this.#pending.join('');
    this.#pending = [];
    this.#size = 0;
    this.out.write(chunk);
  }
}
