import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ERRORS } from './errors.catalogue.ts';

/**
 * For a plugin whose routes check a signature over the exact bytes sent (a vendor's webhook): JSON bodies are parsed
 * as usual and their raw bytes kept beside them, up to `bodyLimit` (beyond it, 413). Only the calling plugin's routes
 * are affected (Fastify's encapsulation). Answers how a route reads a request's raw bytes.
 */
export function keepRawJson(app: FastifyInstance, bodyLimit: number): (request: FastifyRequest) => Buffer {
  const raw = new WeakMap<FastifyRequest, Buffer>();
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, (request, body: Buffer, done) => {
    raw.set(request, body);
    try {
      done(null, JSON.parse(body.toString('utf8')));
    } catch {
      done(ERRORS.invalidJson('The body is not JSON'), undefined);
    }
  });
  return (request) => raw.get(request) ?? Buffer.alloc(0);
}
