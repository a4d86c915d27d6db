/** The public API the page uses, and nothing else: a third-party page could do the same (docs/public-api.md). */
import type { Bundle, Problem } from './types.ts';

/**
 * A realtor's allocation token (§18), once opened: sent on the bundle and every POST, so the bundle shows the
 * realtor's units and holds on them work. Kept per tab (sessionStorage) until it expires.
 */
let allocationToken: string | undefined;
export function setAllocationToken(token: string | undefined) {
  allocationToken = token;
}
const withToken = (headers: Record<string, string>) => (allocationToken ? { ...headers, 'X-Allocation-Token': allocationToken } : headers);
/** Called when the server no longer takes the token (expired, password replaced): the page forgets it. */
let onTokenRefused: () => void = () => {};
export function whenTokenRefused(handler: () => void) {
  onTokenRefused = handler;
}

export type BundleAnswer = { status: 200; etag: string | undefined; bundle: Bundle } | { status: number };

/** The bundle, revalidated with the ETag the page has (304: unchanged). Status 0: the network failed. */
export async function getBundle(url: string, etag: string | undefined): Promise<BundleAnswer> {
  try {
    let res = await fetch(url, { headers: withToken(etag ? { 'If-None-Match': etag } : {}) });
    if (res.status === 401 && allocationToken) {
      await res.arrayBuffer().catch(() => undefined);
      allocationToken = undefined;
      onTokenRefused();
      res = await fetch(url);
    }
    // Read to the end even when there is nothing to read (304): a response left unread is cancelled by the
    // browser, which reports every revalidation as an aborted request.
    if (res.status !== 200) {
      await res.arrayBuffer().catch(() => undefined);
      return { status: res.status };
    }
    return { status: 200, etag: res.headers.get('ETag') ?? undefined, bundle: (await res.json()) as Bundle };
  } catch {
    return { status: 0 };
  }
}

export interface PostAnswer {
  status: number;
  body: Problem & Record<string, unknown>;
  retryAfter?: number;
}

/** An answer's JSON body, or nothing when it has none (a proxy's HTML error page, an empty 502). */
const jsonBody = (res: Response): Promise<PostAnswer['body']> =>
  res.json().then(
    (b: PostAnswer['body']) => b,
    () => ({}),
  );

/** A POST with a fresh Idempotency-Key (a new submission; the browser does not retry it). */
export async function post(url: string, body: unknown): Promise<PostAnswer> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: withToken({ 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() }),
      body: JSON.stringify(body),
    });
    const retry = Number(res.headers.get('Retry-After'));
    return { status: res.status, body: await jsonBody(res), ...(Number.isFinite(retry) && retry > 0 ? { retryAfter: retry } : {}) };
  } catch {
    return { status: 0, body: {} };
  }
}

export const sendLead = (body: unknown) => post('/public/leads', body);
export const sendWaitlist = (body: unknown) => post('/public/waitlist', body);
export const sendHold = (unitId: string, body: unknown) => post(`/public/units/${encodeURIComponent(unitId)}/hold`, body);
export const openAllocation = (namespace: string, password: string) => post('/public/allocations/open', { namespace, password });
export const sendWorksheet = (body: unknown) => post('/public/worksheets', body);

/** A hold token's request (GET the hold, DELETE it, POST …/extend). Status 0: the network failed. */
export async function holdRequest(method: 'GET' | 'DELETE' | 'POST', token: string, action = ''): Promise<PostAnswer> {
  try {
    const res = await fetch(`/public/holds/${encodeURIComponent(token)}${action}`, { method, cache: 'no-store' });
    return { status: res.status, body: res.status === 204 ? {} : await jsonBody(res) };
  } catch {
    return { status: 0, body: {} };
  }
}
