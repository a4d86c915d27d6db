import { parse, serialize, type SerializeOptions } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's cookies once `cookieOf` has read them. */
    cookies: Record<string, string | undefined> | undefined;
  }
}

/**
 * One cookie of the request. The header is parsed on first use, by the few routes that read cookies (the
 * bearer-less sign-in, refresh, logout), instead of in a hook on every request: a global parse hook and its
 * `onSend` companion were two more steps of every answer (@fastify/cookie, replaced for that; docs/performance.md).
 */
export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  request.cookies ??= parse(header);
  return request.cookies[name];
}

/** Sets these cookies on the answer (`Set-Cookie`, one line each), after any set before. */
export function setCookies(reply: FastifyReply, cookies: readonly (readonly [name: string, value: string, options: SerializeOptions])[]) {
  // An answer that sets a session's cookies carries its tokens: never kept by a cache.
  reply.header('Cache-Control', 'no-store');
  // Fastify appends to a Set-Cookie already set rather than replacing it.
  reply.header(
    'set-cookie',
    cookies.map(([name, value, options]) => serialize(name, value, options)),
  );
}

/** Clears these cookies: empty, expired, with the attributes they were set with (a browser matches name, path and domain). */
export function clearCookies(reply: FastifyReply, cookies: readonly (readonly [name: string, options: SerializeOptions])[]) {
  setCookies(
    reply,
    cookies.map(([name, options]) => [name, '', { ...options, expires: new Date(0), maxAge: 0 }] as const),
  );
}
