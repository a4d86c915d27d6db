import type { paths } from '../api-schema.d.ts';
import { fieldText } from './csv.ts';

/** The console's only way to the service: same-origin fetch with the session cookies, refreshed silently. */

export interface Problem {
  status: number;
  code?: string;
  detail?: string;
  title?: string;
  errors?: { path: string; message: string }[];
}

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail || problem.title || `HTTP ${problem.status}`);
  }
  get status() {
    return this.problem.status;
  }
  /** The message for one field (`/name`), when the service named it. */
  field(path: string): string | undefined {
    return this.problem.errors?.find((e) => e.path === path)?.message;
  }
}

/*
 * The console writes its URLs as the service reads them (`/units/${id}/history?limit=1`); these types hold each
 * one to a path of the OpenAPI document, segment by segment (`{id}` takes any text), and give the answer the
 * type that path's method says it has, so a renamed path or a changed record breaks the build, not the console.
 */
type Method = 'get' | 'post' | 'patch' | 'delete';
type Split<S extends string> = S extends `${infer A}/${infer B}` ? [A, ...Split<B>] : [S];
type Holes<T extends string[]> = { [K in keyof T]: T[K] extends `{${string}}` ? string : T[K] };
type Fits<U extends string[], P extends string[]> = U extends [infer U0, ...infer UR extends string[]]
  ? P extends [infer P0, ...infer PR extends string[]]
    ? U0 extends P0
      ? Fits<UR, PR>
      : false
    : false
  : P extends []
    ? true
    : false;
type Bare<U extends string> = U extends `${infer P}?${string}` ? P : U;
/** The document's path a URL is, for a method: `/units/${string}/history` → `/units/{id}/history`. */
type PathOf<U extends string, M extends Method> = U extends string
  ? { [P in keyof paths]: Fits<Split<Bare<U>>, Holes<Split<P>>> extends true ? (paths[P][M] extends undefined ? never : P) : never }[keyof paths]
  : never;
/** The URLs (of a union) that are no path of the document. */
type Stray<U extends string, M extends Method> = U extends string ? ([PathOf<U, M>] extends [never] ? U : never) : never;
type Responses<P, M extends Method> = P extends keyof paths ? (NonNullable<paths[P][M]> extends { responses: infer R } ? R : never) : never;
/** The JSON body where the path has one; a path that answers only text (CSV) gives that. */
type Content<R> = R extends { content: infer C } ? (C extends { 'application/json': infer J } ? J : C[keyof C]) : undefined;
type Success<R> = R extends { 200: infer A } ? Content<A> : R extends { 201: infer A } ? Content<A> : undefined;
/** What a method on a URL answers (its 200 or 201 body). */
export type Reply<U extends string, M extends Method> = Success<Responses<PathOf<U, M>, M>>;
/** A URL the document has for this method; anything else does not compile. */
export type Url<U extends string, M extends Method> = [Stray<U, M>] extends [never] ? U : U & { 'not a path of the API for this method': Stray<U, M> };
type Item<T> = T extends (infer I)[] ? I : never;

export interface Answer<T> {
  data: T;
  etag: string | null;
  total: number | null;
  headers: Headers;
}

type Body = unknown;
interface Options {
  body?: Body;
  ifMatch?: string | null;
  headers?: Record<string, string>;
  /** Raw body (a FormData, a CSV text); `contentType` names it (FormData sets its own). */
  raw?: BodyInit;
  contentType?: string;
  /** No silent refresh for these (the sign-in and refresh calls themselves). */
  noRefresh?: boolean;
}

let onSignedOut: () => void = () => {};
export const whenSignedOut = (fn: () => void) => {
  onSignedOut = fn;
};

let refreshing: Promise<boolean> | undefined;
/** One refresh at a time: concurrent 401s wait for the same one. */
export function refresh(): Promise<boolean> {
  refreshing ??= fetch('/users/refresh', { method: 'POST', credentials: 'same-origin' })
    .then((r) => r.ok)
    .catch(() => false)
    .finally(() => setTimeout(() => (refreshing = undefined), 0));
  return refreshing;
}

/** A call the document types: the answer's body is what the path says it is. */
export function request<U extends string, M extends Method>(method: M, url: Url<U, M>, opts?: Options): Promise<Answer<Reply<U, M>>> {
  return send(method, url, opts) as Promise<Answer<Reply<U, M>>>;
}

async function send(method: Method, url: string, opts: Options = {}): Promise<Answer<unknown>> {
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  let body: BodyInit | undefined;
  if (opts.raw !== undefined) {
    body = opts.raw;
    if (opts.contentType) headers['content-type'] = opts.contentType;
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  if (opts.ifMatch) headers['if-match'] = opts.ifMatch;
  const attempt = () => fetch(url, { method: method.toUpperCase(), headers, body, credentials: 'same-origin' });
  let res = await attempt();
  if (res.status === 401 && !opts.noRefresh) {
    if (await refresh()) res = await attempt();
    if (res.status === 401) {
      onSignedOut();
      throw new ApiError({ status: 401, detail: 'Your session has ended; please sign in again.' });
    }
  }
  const type = res.headers.get('content-type') ?? '';
  const data: unknown = res.status === 204 ? undefined : type.includes('json') ? await res.json() : await res.text();
  if (!res.ok) {
    const problem: Problem = typeof data === 'object' && data ? (data as Problem) : { status: res.status, detail: fieldText(data) || res.statusText };
    throw new ApiError({ ...problem, status: res.status });
  }
  // A single record's version is its ETag; records also carry it as __v. Where a server does not
  // put __v in the body, take it from the ETag so If-Match can be sent from the record alone.
  const etag = res.headers.get('etag');
  if (data && typeof data === 'object' && !Array.isArray(data) && (data as { __v?: unknown }).__v === undefined && etag && /^"\d+"$/.test(etag)) {
    (data as { __v?: number }).__v = Number(etag.slice(1, -1));
  }
  const total = res.headers.get('x-total-count');
  return { data, etag: res.headers.get('etag'), total: total === null ? null : Number(total), headers: res.headers };
}

export const api = {
  get: <U extends string>(url: Url<U, 'get'>, opts?: Options) => request('get', url, opts).then((a) => a.data),
  post: <U extends string>(url: Url<U, 'post'>, body?: Body, opts?: Options) => request('post', url, { ...opts, body }).then((a) => a.data),
  patch: <U extends string>(url: Url<U, 'patch'>, body: Body, opts?: Options) => request('patch', url, { ...opts, body }).then((a) => a.data),
  del: <U extends string>(url: Url<U, 'delete'>, opts?: Options) => request('delete', url, opts).then(() => undefined),
};

/** `?a=1&filters[name]=x`: the bracket form the service reads. */
export function query(params: Record<string, string | number | undefined | Record<string, string | number | undefined>>): '' | `?${string}` {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === '') continue;
    if (typeof v === 'object') {
      for (const [k2, v2] of Object.entries(v)) if (v2 !== undefined && v2 !== '') q.set(`${k}[${k2}]`, String(v2));
    } else q.set(k, String(v));
  }
  const s = q.toString();
  return s ? (`?${s}` as const) : '';
}

/** A path's text answer (a CSV export): the path is checked, the body is the text as it came. */
export const requestText = <U extends string>(url: Url<U, 'get'>, opts?: Options) => send('get', url, opts) as Promise<Answer<string>>;

/** Every record of a list: one request, then more pages while `X-Total-Count` says there are more. */
export async function all<U extends string>(url: Url<U, 'get'>): Promise<Item<Reply<U, 'get'>>[]> {
  const first = (await send('get', url)) as Answer<Item<Reply<U, 'get'>>[]>;
  const out = [...first.data];
  const total = first.total;
  const sep = url.includes('?') ? '&' : '?';
  while (total !== null && out.length < total) {
    const page = (await send('get', `${url}${sep}options[skip]=${out.length}&options[limit]=500`)) as Answer<Item<Reply<U, 'get'>>[]>;
    if (!page.data.length) break;
    out.push(...page.data);
  }
  return out;
}

export const etagOf = (record: { __v?: number } | undefined) => (record?.__v === undefined ? null : `"${record.__v}"`);

/** GET a file (a spreadsheet, a template) as it is, refreshing a lapsed session once. */
export async function fetchFile(url: string): Promise<Blob> {
  const attempt = () => fetch(url, { credentials: 'same-origin' });
  let res = await attempt();
  if (res.status === 401 && (await refresh())) res = await attempt();
  if (!res.ok) {
    const type = res.headers.get('content-type') ?? '';
    const problem = type.includes('json') ? ((await res.json()) as Problem) : { status: res.status, detail: await res.text() };
    throw new ApiError({ ...problem, status: res.status });
  }
  return res.blob();
}

export function download(name: string, text: string | Blob, type = 'text/csv') {
  const url = URL.createObjectURL(typeof text === 'string' ? new Blob([text], { type }) : text);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
