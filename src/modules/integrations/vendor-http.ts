import type { LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveTarget, RefusedTarget, type ResolvedTarget } from '../../lib/outbound.ts';

/** The most of a vendor's answer read: JSON answers of the calls used are a few kilobytes. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * A vendor's failure in words, safe to show the sales team and to store: never a credential (the connectors build
 * these messages from the vendor's error codes and texts, and `scrub` takes out any credential a vendor echoed).
 */
export class VendorError extends Error {
  constructor(
    message: string,
    /** The vendor's own status code, when it answered. */
    readonly status?: number,
    /** The vendor asked for no call before this many seconds (429 with Retry-After). */
    readonly retryAfterSec?: number,
  ) {
    super(message);
  }
}

export interface VendorAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export interface VendorCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  url: string;
  headers?: Record<string, string>;
  /** A JSON value (sent as application/json) or a form (`URLSearchParams`, sent url-encoded). */
  body?: unknown;
  timeoutMs: number;
  allowPrivate: boolean;
  /** How the vendor is named in an error ("Salesforce"). */
  vendor: string;
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

/**
 * One call to a vendor under the private-target rule every project setting follows: the host is resolved once and
 * refused when private (unless ALLOW_PRIVATE_TARGETS), and the connection goes to exactly the address checked.
 * Redirects are not followed. Any answer resolves (the connector reads the status); no answer rejects with a VendorError.
 */
export async function callVendor(call: VendorCall): Promise<VendorAnswer> {
  let url: URL;
  try {
    url = new URL(call.url);
  } catch {
    throw new VendorError(`${call.vendor}: the address is not a valid URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new VendorError(`${call.vendor}: the address must be http(s)`);
  let address: ResolvedTarget;
  try {
    address = await resolveTarget(url.hostname, call.allowPrivate);
  } catch (err) {
    if (err instanceof RefusedTarget) throw new VendorError(`${call.vendor}: ${err.message}`);
    throw err;
  }
  const form = call.body instanceof URLSearchParams ? call.body : undefined;
  const payload = call.body === undefined ? undefined : form ? form.toString() : JSON.stringify(call.body);
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': 'Showsuite-Integrations/1',
    ...(payload !== undefined ? { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' } : {}),
    ...call.headers,
  };
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: call.method, lookup: pinnedLookup(address), headers }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) req.destroy(new Error('answer too large'));
        else chunks.push(chunk);
      });
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', (err) => {
        reject(new VendorError(`${call.vendor} could not be reached: ${err.message}`));
      });
    });
    // The whole exchange is bounded, not just idle time.
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${call.timeoutMs} ms`)), call.timeoutMs);
    req.on('close', () => {
      clearTimeout(timer);
    });
    req.on('error', (err) => {
      reject(new VendorError(`${call.vendor} could not be reached: ${err.message}`));
    });
    req.end(payload);
  });
}

/** Seconds of a Retry-After header (delta-seconds or an HTTP date), at least 1; undefined without one. */
export function retryAfterSec(headers: VendorAnswer['headers'], now: number): number | undefined {
  const raw = headers['retry-after'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Math.max(1, Number(value.trim()));
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(1, Math.ceil((at - now) / 1000));
}

/** A 429: the vendor's limit, with when it may be called again. */
export function rateLimited(vendor: string, answer: VendorAnswer, now: number): VendorError {
  const after = retryAfterSec(answer.headers, now);
  return new VendorError(`${vendor} asked to slow down (too many requests)${after ? `; retry after ${after} s` : ''}`, 429, after ?? 60);
}

/** Takes out of a message every credential value that may have been echoed (at least 4 characters long). */
export function scrub(message: string, secrets: readonly string[]): string {
  let out = message;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[credential]');
  return out.length > 500 ? `${out.slice(0, 497)}...` : out;
}
