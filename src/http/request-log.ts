import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'fastify/types/logger.js';
import { parseTraceparent } from './trace-context.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by tracing (http/tracing.ts) when traces are exported: the request's own trace. */
    traceId?: string;
  }
}

/** The trace this request belongs to: its exported span's, else the one its `traceparent` header names. */
const traceIdOf = (request: FastifyRequest) =>
  request.traceId ?? (request.headers.traceparent === undefined ? undefined : parseTraceparent(request.headers.traceparent)?.traceId);

/** The path without the query: query strings can carry credentials (`/users/login?password=`), logs must not. */
const pathOf = (url: string) => {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

/**
 * One log line per request, at its end (method, path, status, time), instead of Fastify's two with full
 * request and response objects: at LOG_LEVEL=info that pair was a measurable share of a cheap request's CPU
 * (docs/performance.md). The arrival is logged at debug. The line is written by the server's logger with the
 * request's id as a field, the same JSON a child logger bound to that id would write, so a request that logs
 * nothing else never builds its child logger (`RequestLogger`).
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(request: FastifyRequest) {
    request.log.debug({ method: request.method, url: pathOf(request.url) }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    const line: Record<string, unknown> = { method: request.method, url: pathOf(request.url), statusCode: reply.statusCode, responseTime: reply.elapsedTime };
    const traceId = traceIdOf(request);
    if (traceId !== undefined) line.traceId = traceId;
    const log = request.log;
    if (!(log instanceof RequestLogger)) {
      if (error) log.error({ ...line, err: error }, 'request errored');
      else log.info(line, 'request completed');
    } else if (error) log.line('error', { ...line, err: error }, 'request errored');
    else log.line('info', line, 'request completed');
  }
}

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogArgs = Parameters<FastifyBaseLogger['info']>;

/**
 * `request.log`: the child logger bound to the request's id, built when the request first logs at an enabled level.
 * Pino's `child()` copies the logger and rebinds every level method, a cost every request paid though most log
 * nothing but the closing line. What it writes is exactly what the child writes.
 */
export class RequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;
  /** The route keeps the server's level and serialisers (no `logLevel` of its own): the parent decides for the child. */
  readonly #inherits: boolean;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {
    this.#inherits = options.level === undefined && options.serializers === undefined;
  }

  #logger(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings, this.options));
  }

  /** Whether the request's logger drops this level, known without building it (a route with its own level builds it). */
  #drops(level: Level): boolean {
    const parent = this.parent as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
    return this.#child === undefined && this.#inherits && parent.isLevelEnabled?.(level) === false;
  }

  #write(level: Level, args: LogArgs) {
    if (this.#drops(level)) return;
    this.#logger()[level](...args);
  }

  /**
   * A line with the request's bindings (its id) first: written by the parent while no child exists and the route keeps
   * the server's level (the same JSON the child writes, without building it), else by the child.
   */
  line(level: Level, fields: Record<string, unknown>, msg: string) {
    if (this.#drops(level)) return;
    if (this.#child === undefined && this.#inherits) (this.parent[level] as (obj: object, msg: string) => void)({ ...this.bindings, ...fields }, msg);
    else (this.#logger()[level] as (obj: object, msg: string) => void)(fields, msg);
  }

  get level() {
    return (this.#child ?? this.parent).level;
  }
  set level(level: string) {
    this.#logger().level = level;
  }
  fatal(...args: LogArgs) {
    this.#write('fatal', args);
  }
  error(...args: LogArgs) {
    this.#write('error', args);
  }
  warn(...args: LogArgs) {
    this.#write('warn', args);
  }
  info(...args: LogArgs) {
    this.#write('info', args);
  }
  debug(...args: LogArgs) {
    this.#write('debug', args);
  }
  trace(...args: LogArgs) {
    this.#write('trace', args);
  }
  silent(...args: LogArgs) {
    this.#logger().silent(...args);
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: every request's `request.log` is a `RequestLogger`. */
export function requestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, options);
}
