import { createHmac, randomBytes } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveTarget, RefusedTarget, type ResolvedTarget } from '../../lib/outbound.ts';

export { isPrivateAddress, RefusedTarget } from '../../lib/outbound.ts';

/** Every address the host resolves to must be public (unless allowed): the setting's check when a hook is saved. */
export async function checkTarget(url: URL, allowPrivate: boolean): Promise<void> {
  await resolveTarget(url.hostname, allowPrivate);
}

/** A lookup that answers the one address already resolved and checked, whatever the name resolves to now. */
function pinnedLookup(target: ResolvedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [target]);
      return;
    }
    callback(null, target.address, target.family);
  };
}

/** `whsec_` and 32 random bytes in base64: the Standard Webhooks secret format. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** Standard Webhooks: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with the base64 after `whsec_`. */
export function sign(secret: string, id: string, timestampSec: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSec}.${body}`).digest('base64')}`;
}

export interface SendResult {
  ok: boolean;
  status?: number;
  error?: string;
  durationMs: number;
}

/** One POST; never follows redirects; gives up after `timeoutMs`. Resolves (never rejects) with what happened. */
export async function postSigned(
  target: string,
  opts: { secret: string; id: string; timestampSec: number; body: string; timeoutMs: number; allowPrivate: boolean },
): Promise<SendResult> {
  const started = performance.now();
  const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({ ...r, durationMs: Math.round(performance.now() - started) });
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return done({ ok: false, error: 'invalid URL' });
  }
  // Resolved and checked once, before any connection; the request connects to exactly that address.
  let address: ResolvedTarget;
  try {
    address = await resolveTarget(url.hostname, opts.allowPrivate);
  } catch (err) {
    if (err instanceof RefusedTarget) return done({ ok: false, error: err.message });
    throw err;
  }
  return new Promise((resolve) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: 'POST',
        lookup: pinnedLookup(address),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Showsuite-Webhooks/1',
          'webhook-id': opts.id,
          'webhook-timestamp': String(opts.timestampSec),
          'webhook-signature': sign(opts.secret, opts.id, opts.timestampSec, opts.body),
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        // The answer's body is not needed; read it away so the socket is freed.
        res.resume();
        res.on('end', () => {
          resolve(done(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, error: `answered ${status}` }));
        });
        res.on('error', (err) => {
          resolve(done({ ok: false, status, error: err.message }));
        });
      },
    );
    // The whole exchange, not just idle time, is bounded: a receiver answering a byte at a time is cut off too.
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
    req.on('close', () => {
      clearTimeout(timer);
    });
    req.on('error', (err) => {
      resolve(done({ ok: false, error: err.message }));
    });
    req.end(opts.body);
  });
}
