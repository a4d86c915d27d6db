/** The public API the page uses, and nothing else: a third-party page could do the same (docs/public-api.md). */
import type { paths } from './api-schema.d.ts';
import type { Bundle, Problem } from './types.ts';

/**
 * A realtor's allocation token, once opened: sent on the bundle and every POST, so the bundle shows the
 * realtor's units and holds on them work. Kept per tab (sessionStorage) until it expires; realtor-session.ts hands it to new tabs.
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

/** A path of the OpenAPI document (web/api-schema.d.ts, `npm run gen:api`) that takes a POST. */
type PostPath = { [P in keyof paths]: paths[P] extends { post: object } ? P : never }[keyof paths];

/** What a request may send as its JSON body, by path (POST). */
type PostBody<P extends PostPath> = paths[P] extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never;

/** A path of the document with its `{…}` parameters filled in. */
const fill = (path: keyof paths, params: Record<string, string> = {}) => path.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(params[k] ?? ''));

/** The status, the JSON body (nothing when it had none: a proxy's HTML error page, an empty 502) and Retry-After. */
async function answerOf(res: Response, withRetry: boolean): Promise<PostAnswer> {
  const body: unknown = res.status === 204 ? {} : await res.json().catch(() => ({}));
  const retry = withRetry ? Number(res.headers.get('Retry-After')) : 0;
  return {
    status: res.status,
    // The service answers JSON objects (a record or a problem); anything else is no body.
    body: typeof body === 'object' && body !== null ? (body as PostAnswer['body']) : {},
    ...(Number.isFinite(retry) && retry > 0 ? { retryAfter: retry } : {}),
  };
}

/**
 * The page's client, typed by the OpenAPI document: a POST to one of its paths with that path's body, a fresh
 * Idempotency-Key (a new submission; the browser does not retry it) and the realtor's token. Status 0: the network
 * failed. Plain `fetch` underneath: the page's first paint carries no client library.
 */
async function post<P extends PostPath>(path: P, body: PostBody<P>, params?: Record<string, string>): Promise<PostAnswer> {
  try {
    const res = await fetch(fill(path, params), {
      method: 'POST',
      headers: withToken({ 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() }),
      body: JSON.stringify(body),
    });
    return await answerOf(res, true);
  } catch {
    return { status: 0, body: {} };
  }
}

export const sendLead = (body: PostBody<'/public/leads'>) => post('/public/leads', body);
export const sendWaitlist = (body: PostBody<'/public/waitlist'>) => post('/public/waitlist', body);
export const sendHold = (unitId: string, body: PostBody<'/public/units/{id}/hold'>) => post('/public/units/{id}/hold', body, { id: unitId });
export const openAllocation = (namespace: string, password: string) => post('/public/allocations/open', { namespace, password });
export const sendWorksheet = (body: PostBody<'/public/worksheets'>) => post('/public/worksheets', body);

/** Where a deposit stands (the return from Stripe Checkout). Status 0: the network failed. */
export async function getDeposit(id: string): Promise<PostAnswer> {
  try {
    return await answerOf(await fetch(fill('/public/deposits/{id}', { id }), { cache: 'no-store' }), false);
  } catch {
    return { status: 0, body: {} };
  }
}

/** A hold token's request (GET the hold, DELETE it, POST …/extend). Status 0: the network failed. */
export async function holdRequest(method: 'GET' | 'DELETE' | 'POST', token: string): Promise<PostAnswer> {
  const path: keyof paths = method === 'POST' ? '/public/holds/{holdToken}/extend' : '/public/holds/{holdToken}';
  try {
    return await answerOf(await fetch(fill(path, { holdToken: token }), { method, cache: 'no-store' }), false);
  } catch {
    return { status: 0, body: {} };
  }
}
