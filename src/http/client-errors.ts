import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { problem, sendProblem, statusOf, type ErrorCode } from './errors.ts';

/**
 * Errors Fastify answers before a route runs, as problem+json like every other refusal: a path that is not
 * valid percent-encoded UTF-8 (400), a path segment over the router's length limit (414).
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      void sendProblem(
        reply,
        problem('invalid_params', 'The path is not valid percent-encoded UTF-8', {
          errors: [{ path: '/', message: 'is not valid percent-encoded UTF-8' }],
        }),
      );
      return;
    case 'FST_ERR_MAX_PARAM_LENGTH':
      void sendProblem(reply, problem('uri_too_long', 'A path segment is longer than 100 characters'));
      return;
    default:
      void sendProblem(reply, problem('invalid_request', 'The request could not be routed'));
  }
}

/**
 * What Node's HTTP parser refuses before Fastify sees a request (malformed request line or headers, headers
 * too large, headers not complete within HEADERS_TIMEOUT_SEC or the whole request within REQUEST_TIMEOUT_SEC),
 * answered as problem+json on the raw socket, which is then closed. A client that reset its connection is
 * logged at debug: it is not our fault.
 */
export function clientErrorHandler(headersTimeoutMs: number, requestTimeoutMs: number) {
  return function (this: { log: FastifyBaseLogger }, err: NodeJS.ErrnoException, socket: Socket) {
    const log = this.log;
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || socket.destroyed) {
      log.debug({ code: err.code }, 'client reset the connection');
      return;
    }
    const [code, detail]: [ErrorCode, string] =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['request_timeout', `The request did not arrive in time (headers within ${headersTimeoutMs / 1000} s, all of it within ${requestTimeoutMs / 1000} s)`]
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? ['headers_too_large', 'The request headers are too large']
          : ['invalid_request', 'The request is not well-formed HTTP'];
    const status = statusOf(code);
    log.info({ code: err.code, status }, 'refused a malformed or slow request');
    // A response already under way on this socket cannot be replaced; only closing is left.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify(problem(code, detail));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
