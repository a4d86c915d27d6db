/** The public API the page uses, and nothing else: a third-party page could do the same (docs/public-api.md). */
import createClient from 'openapi-fetch';
import type { paths } from './api-schema.d.ts';
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

/** The page's client: typed from the OpenAPI document (web/api-schema.d.ts, `npm run gen:api`), same-origin. */
const client = createClient<paths>();

/** What a request may send as its JSON body, by path (POST). */
type PostBody<P extends keyof paths> = paths[P] extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never;

interface Sent {
  response: Response;
  data?: unknown;
  error?: unknown;
}

/** The status, the JSON body (nothing when it had none: a proxy's HTML error page, an empty 502) and Retry-After. Status 0: the network failed. */
async function answerOf(send: () => Promise<Sent>, withRetry: boolean): Promise<PostAnswer> {
  try {
    const { response, data, error } = await send();
    const body = data ?? error;
    const retry = withRetry ? Number(response.headers.get('Retry-After')) : 0;
    return {
      status: response.status,
      // The service answers JSON objects (a record or a problem); anything else is no body.
      body: typeof body === 'object' && body !== null ? (body as PostAnswer['body']) : {},
      ...(Number.isFinite(retry) && retry > 0 ? { retryAfter: retry } : {}),
    };
  } catch {
    return { status: 0, body: {} };
  }
}

/** A POST's headers: a fresh Idempotency-Key (a new submission; the browser does not retry it), and the realtor's token. */
const postHeaders = () => withToken({ 'idempotency-key': crypto.randomUUID() });
const post = (send: (headers: Record<string, string>) => Promise<Sent>) => answerOf(() => send(postHeaders()), true);

export const sendLead = (body: PostBody<'/public/leads'>) => post((headers) => client.POST('/public/leads', { body, headers }));
export const sendWaitlist = (body: PostBody<'/public/waitlist'>) => post((headers) => client.POST('/public/waitlist', { body, headers }));
export const sendHold = (unitId: string, body: PostBody<'/public/units/{id}/hold'>) =>
  post((headers) => client.POST('/public/units/{id}/hold', { params: { path: { id: unitId } }, body, headers }));
export const openAllocation = (namespace: string, password: string) =>
  post((headers) => client.POST('/public/allocations/open', { body: { namespace, password }, headers }));
export const sendWorksheet = (body: PostBody<'/public/worksheets'>) => post((headers) => client.POST('/public/worksheets', { body, headers }));

/** A hold token's request (GET the hold, DELETE it, POST …/extend). Status 0: the network failed. */
export function holdRequest(method: 'GET' | 'DELETE' | 'POST', token: string): Promise<PostAnswer> {
  const init = { params: { path: { holdToken: token } }, cache: 'no-store' as const };
  return answerOf(
    () =>
      method === 'GET'
        ? client.GET('/public/holds/{holdToken}', init)
        : method === 'DELETE'
          ? client.DELETE('/public/holds/{holdToken}', init)
          : client.POST('/public/holds/{holdToken}/extend', init),
    false,
  );
}
