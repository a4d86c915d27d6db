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
 * The console writes its URLs as the service reads them (`/units/${id}/history`) and puts the query, the body and
 * the headers beside them; these types hold the URL to a path of the OpenAPI document, segment by segment (`{id}`
 * takes any text), and the query (`{ 'options[limit]': 1 }`), the JSON body and the answer to that path's
 * operation for the method, so a renamed path, a changed record or a field the operation does not take breaks the
 * build, not the console. Types only: nothing of this reaches the bundle.
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
/** The document's paths that have an operation for a method. */
type PathsFor<M extends Method> = { [P in keyof paths]: paths[P][M] extends undefined ? never : P }[keyof paths];
/** The statuses that are an answer rather than a problem. */
type Ok = 200 | 201 | 202 | 204;
type Answers<O> = O extends { responses: infer R } ? R[Extract<keyof R, Ok>] : never;
type Kinds<A> = A extends { content: infer C } ? keyof C : never;
/** A spreadsheet (Excel's own type), as the document names it. */
type Sheet = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
/** The paths whose GET answers a file: CSV or a spreadsheet (exports, templates). */
type FilePaths = { [P in PathsFor<'get'>]: [Extract<Kinds<Answers<paths[P]['get']>>, 'text/csv' | Sheet>] extends [never] ? never : P }[PathsFor<'get'>];
/**
 * The document's path a URL is, among the paths that have the method: itself when it is one (`/units`, not
 * `/units/{id}`), else the paths whose holes it fills (`/units/${string}/history` → `/units/{id}/history`). A URL
 * with a query (`?`) is none: the query goes in `query`, where it is checked.
 */
type PathOf<U extends string, Among extends keyof paths> = U extends `${string}?${string}`
  ? never
  : U extends Among
    ? U
    : { [P in Among]: Fits<Split<U>, Holes<Split<P>>> extends true ? P : never }[Among];
/** The URLs (of a union) that are no path of the document. */
type Stray<U extends string, Among extends keyof paths> = U extends string ? ([PathOf<U, Among>] extends [never] ? U : never) : never;
/** A URL the document has among these paths; anything else does not compile. */
type UrlAmong<U extends string, Among extends keyof paths> = [Stray<U, Among>] extends [never]
  ? U
  : U & { 'not a path of the API for this method': Stray<U, Among> };
/** A URL the document has for this method. */
export type Url<U extends string, M extends Method> = UrlAmong<U, PathsFor<M>>;
/** The operation a method on a URL is (a union where the URL is a union). */
type Operation<U extends string, M extends Method> =
  PathOf<U, PathsFor<M>> extends infer P ? (P extends keyof paths ? NonNullable<paths[P][M]> : never) : never;
/** The JSON body where the answer has one; an answer of text only (CSV) gives that. */
type Content<A> = A extends { content: infer C } ? (C extends { 'application/json': infer J } ? J : C[keyof C]) : undefined;
/** What a method on a URL answers (its 2xx body). */
export type Reply<U extends string, M extends Method> = Content<Answers<Operation<U, M>>>;
type Item<T> = T extends (infer I)[] ? I : never;

/** What a call may say besides its URL, whatever the operation. */
interface Common {
  ifMatch?: string | null;
  headers?: Record<string, string>;
  /** No silent refresh for these (the sign-in and refresh calls themselves). */
  noRefresh?: boolean;
}
type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Raw<R> = R extends { content: infer C } ? Exclude<keyof C, 'application/json'> & string : never;
/** `query` as the operation has it: required where a parameter is, absent where the operation takes none. */
type QueryPart<O> = O extends { parameters: infer P } ? { [K in keyof P as K extends 'query' ? K : never]: P[K] } : unknown;
/** `body`, the operation's JSON body: required where the operation requires one, absent where it takes none. */
type JsonPart<O> = O extends { requestBody: infer R }
  ? { body: Json<R> }
  : O extends { requestBody?: infer R }
    ? [Json<R>] extends [never]
      ? { body?: never }
      : { body?: Json<R> }
    : { body?: never };
/** `raw` (a CSV text, a spreadsheet) with its type, where the operation takes one besides JSON. */
type RawPart<O> = O extends { requestBody?: infer R } ? ([Raw<R>] extends [never] ? never : { raw: BodyInit; contentType: Raw<R>; body?: never }) : never;
type OptionsOf<O> = O extends unknown ? Common & QueryPart<O> & ((JsonPart<O> & { raw?: never; contentType?: never }) | RawPart<O>) : never;
/** The JSON body an operation of the document takes, by its path: `RequestBody<'/units/{id}', 'patch'>`. */
export type RequestBody<P extends PathsFor<M>, M extends Method> = NonNullable<paths[P][M]> extends { requestBody?: infer R } ? Json<R> : never;
/** The query an operation of the document takes, by its path: `Query<'/leads', 'get'>`. */
export type Query<P extends PathsFor<M>, M extends Method> = NonNullable<paths[P][M]> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** The options of a method on a URL: a required one (a body, a required query parameter) makes them required. */
export type Options<U extends string, M extends Method> = OptionsOf<Operation<U, M>>;
type OptionsArg<T> = Partial<T> extends T ? [opts?: T] : [opts: T];

export interface Answer<T> {
  data: T;
  etag: string | null;
  total: number | null;
  headers: Headers;
}

/** What `send` takes: the typed options of any call. */
interface Loose extends Common {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Raw body (a CSV text, a spreadsheet); `contentType` names it. */
  raw?: BodyInit;
  contentType?: string;
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

/** A call the document types: the options are the operation's, the answer's body is what the path says it is. */
export function request<U extends string, M extends Method>(method: M, url: Url<U, M>, ...opts: OptionsArg<Options<U, M>>): Promise<Answer<Reply<U, M>>>;
export function request(method: Method, url: string, opts?: Loose): Promise<Answer<unknown>> {
  return send(method, url, opts);
}

async function send(method: Method, path: string, opts: Loose = {}): Promise<Answer<unknown>> {
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
  const url = path + query(opts.query ?? {});
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

/** The calls by method, answering the body: `api.patch(`/units/${id}`, { body, ifMatch })`. */
export const api = {
  get: <U extends string>(url: Url<U, 'get'>, ...opts: OptionsArg<Options<U, 'get'>>) => request('get', url, ...opts).then((a) => a.data),
  post: <U extends string>(url: Url<U, 'post'>, ...opts: OptionsArg<Options<U, 'post'>>) => request('post', url, ...opts).then((a) => a.data),
  patch: <U extends string>(url: Url<U, 'patch'>, ...opts: OptionsArg<Options<U, 'patch'>>) => request('patch', url, ...opts).then((a) => a.data),
  del: <U extends string>(url: Url<U, 'delete'>, ...opts: OptionsArg<Options<U, 'delete'>>) => request('delete', url, ...opts).then(() => undefined),
};

/** `?a=1&filters[name]=x` (the bracket form the service reads, keys as the document names them), or nothing. */
export function query(params: Record<string, string | number | boolean | undefined>): '' | `?${string}` {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** A URL whose GET answers a file (CSV, a spreadsheet), and that operation's options (its query). */
type FileUrl<U extends string> = UrlAmong<U, FilePaths>;
type FileOptions<U extends string> = Common & QueryPart<PathOf<U, FilePaths> extends infer P ? (P extends FilePaths ? paths[P]['get'] : never) : never>;

/** A file's text (a CSV export): the URL and query are checked, the body is the text as it came. */
export function requestText<U extends string>(url: FileUrl<U>, ...opts: OptionsArg<FileOptions<U>>): Promise<Answer<string>>;
export async function requestText(url: string, opts?: Loose): Promise<Answer<string>> {
  const answer = await send('get', url, opts);
  return { ...answer, data: typeof answer.data === 'string' ? answer.data : JSON.stringify(answer.data) };
}

/** Every record of a list: one request, then more pages while `X-Total-Count` says there are more. */
export function all<U extends string>(url: Url<U, 'get'>, ...opts: OptionsArg<Options<U, 'get'>>): Promise<Item<Reply<U, 'get'>>[]>;
export async function all(url: string, opts: Loose = {}): Promise<unknown[]> {
  const first = await send('get', url, opts);
  const out = [...records(first.data)];
  const total = first.total;
  while (total !== null && out.length < total) {
    const page = records((await send('get', url, { ...opts, query: { ...opts.query, 'options[skip]': out.length, 'options[limit]': 500 } })).data);
    if (!page.length) break;
    out.push(...page);
  }
  return out;
}
const records = (data: unknown): unknown[] => (Array.isArray(data) ? data : []);

export const etagOf = (record: { __v?: number } | undefined) => (record?.__v === undefined ? null : `"${record.__v}"`);

/** GET a file (a spreadsheet, a template) as it is, refreshing a lapsed session once. */
export function fetchFile<U extends string>(url: FileUrl<U>, ...opts: OptionsArg<FileOptions<U>>): Promise<Blob>;
export async function fetchFile(path: string, opts: Loose = {}): Promise<Blob> {
  const url = path + query(opts.query ?? {});
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
