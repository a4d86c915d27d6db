import { createHmac, randomBytes } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Addresses a webhook may not reach (unless WEBHOOK_ALLOW_PRIVATE): loopback, private, link-local, shared,
 * multicast and reserved ranges, so a hook cannot be pointed at the service's own network.
 */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family !== 6) return true;
  // IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged by its IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return PRIVATE.check(mapped[1], 'ipv4');
  return PRIVATE.check(address, 'ipv6');
}

export class RefusedTarget extends Error {}

/** Every address the host resolves to; refused when any is private (unless allowed). */
export async function checkTarget(url: URL, allowPrivate: boolean): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : await resolveAll(host);
  if (!allowPrivate) {
    const bad = addresses.find(isPrivateAddress);
    if (bad) throw new RefusedTarget(`${url.hostname} resolves to ${bad}, a loopback or private address`);
  }
}

function resolveAll(host: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => {
      if (err) reject(new RefusedTarget(`${host} does not resolve (${err.code ?? err.message})`));
      else resolve(addresses.map((a) => a.address));
    });
  });
}

/**
 * The lookup the request uses: resolves once, refuses private answers, and connects to exactly the address it
 * checked — a name that resolves to a public address for the check and a private one for the connection
 * (DNS rebinding) cannot slip through.
 */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true, verbatim: true }, (err, addresses: LookupAddress[]) => {
      if (err) {
        callback(err, '', 4);
        return;
      }
      const bad = allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a.address));
      if (bad) {
        callback(new RefusedTarget(`${hostname} resolves to ${bad.address}, a loopback or private address`), '', 4);
        return;
      }
      if ((options as { all?: boolean }).all) {
        (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        return;
      }
      const first = addresses[0];
      if (!first) {
        callback(new RefusedTarget(`${hostname} has no address`), '', 4);
        return;
      }
      callback(null, first.address, first.family);
    });
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
export function postSigned(
  target: string,
  opts: { secret: string; id: string; timestampSec: number; body: string; timeoutMs: number; allowPrivate: boolean },
): Promise<SendResult> {
  const started = performance.now();
  const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({ ...r, durationMs: Math.round(performance.now() - started) });
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      resolve(done({ ok: false, error: 'invalid URL' }));
      return;
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !opts.allowPrivate && isPrivateAddress(host)) {
      resolve(done({ ok: false, error: `${host} is a loopback or private address` }));
      return;
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: 'POST',
        lookup: guardedLookup(opts.allowPrivate),
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
