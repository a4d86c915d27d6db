import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The service's access-token contract (src/http/auth.ts): HS256 only, fixed issuer and audience. */
export const ISSUER = 'showsuite';
export const AUDIENCE = 'showsuite-api';

export interface AccessClaims {
  sub: string;
  sid: string;
  jti: string;
  iat: number;
  exp: number;
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/** Signs an access token the service accepts, so the benchmark needs no login (and no argon2) to get one. */
export function signAccess(secret: string, sub: string, sid: string, ttlSec: number): string {
  const iat = Math.floor(Date.now() / 1000);
  const payload = { sub, sid, jti: randomBytes(12).toString('hex'), iat, exp: iat + ttlSec, iss: ISSUER, aud: AUDIENCE };
  const body = `${HEADER}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

/**
 * Verifies with node:crypto alone: the header must say HS256 (no `none`, no RS/HS confusion), the signature is
 * compared in constant time, then expiry, issuer, audience and the required claims. Undefined for anything else.
 */
export function verifyAccess(secret: string, token: string, nowMs = Date.now()): AccessClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [h, p, s] = parts as [string, string, string];
  let header: { alg?: unknown };
  let claims: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
    if (header.alg !== 'HS256') return undefined;
    const expected = createHmac('sha256', secret).update(`${h}.${p}`).digest();
    const given = Buffer.from(s, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const { sub, sid, jti, iat, exp, iss, aud } = claims;
  if (typeof sub !== 'string' || typeof sid !== 'string' || typeof jti !== 'string') return undefined;
  if (typeof iat !== 'number' || typeof exp !== 'number' || exp * 1000 <= nowMs) return undefined;
  if (iss !== ISSUER) return undefined;
  if (Array.isArray(aud) ? !aud.includes(AUDIENCE) : aud !== AUDIENCE) return undefined;
  return { sub, sid, jti, iat, exp };
}
