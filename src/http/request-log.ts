import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** The path without the query: query strings can carry credentials (`/users/login?password=`), logs must not. */
const pathOf = (url: string) => {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

/**
 * One log line per request, at its end (method, path, status, time), instead of Fastify's two with full
 * request and response objects: at LOG_LEVEL=info that pair was a measurable share of a cheap request's CPU
 * (docs/performance.md). The arrival is logged at debug.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(request: FastifyRequest) {
    request.log.debug({ method: request.method, url: pathOf(request.url) }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    const line = { method: request.method, url: pathOf(request.url), statusCode: reply.statusCode, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
