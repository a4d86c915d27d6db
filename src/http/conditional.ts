import type { FastifyInstance } from 'fastify';
import { ERRORS } from './errors.catalogue.ts';

/** Whether an If-None-Match header (a list of ETags, weak or strong, or `*`) names this ETag: the weak comparison. */
export function etagListed(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const strong = etag.replace(/^W\//, '');
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === strong;
  });
}

const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;

/**
 * Whether an If-Match header lets a write at `etag` go ahead, by the strong comparison a write needs: `*`, or a listed
 * tag equal to `etag` and not weak. An entry that is not an entity tag (`4` without quotes) → 400 naming the header;
 * `name` is where it came from: the header, or a body pointer such as a bulk item's `/3/ifMatch`.
 */
export function ifMatchAllows(header: string, etag: string, name = 'if-match'): boolean {
  const tags = header
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const bad = tags.find((t) => t !== '*' && !ENTITY_TAG.test(t));
  if (bad !== undefined || tags.length === 0) {
    const message = `must be "*" or entity tags in double quotes, such as "4" (got ${JSON.stringify(bad ?? header)})`;
    const inBody = name.startsWith('/');
    const path = inBody ? name : `/${name}`;
    throw (inBody ? ERRORS.invalidBody : ERRORS.invalidQuery)(`${path.slice(1)} ${message}`, { errors: [{ path, message }] });
  }
  return tags.some((t) => t === '*' || t === etag);
}

/**
 * The one conditional GET: a 200 answer to GET or HEAD that carries an ETag, asked with an If-None-Match naming it,
 * becomes 304 with no body and the same ETag (and every other header). Routes only set their ETag.
 */
export function notModifiedOnMatch(app: FastifyInstance) {
  app.addHook('onSend', async (request, reply, payload) => {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200) return payload;
    const etag = reply.getHeader('etag');
    if (typeof etag !== 'string' || !etagListed(request.headers['if-none-match'], etag)) return payload;
    reply.code(304);
    reply.removeHeader('content-length');
    reply.removeHeader('content-type');
    return null;
  });
}

/**
 * JSON bodies, with one allowance: an empty body is no body. Client generators send `Content-Type: application/json`
 * with nothing after it on creates whose inputs are all query parameters; that is a create without a body. A
 * non-empty body that is not JSON stays 400 invalid_json, and `__proto__`/`constructor` keys are still refused.
 */
export function jsonWithEmptyAsNone(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') {
      done(null, undefined);
      return;
    }
    void parseJson(request, body as string, done);
  });
}
