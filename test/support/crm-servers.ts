import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * Local servers speaking each CRM's documented protocol, as far as Showsuite uses it: the vendor's authentication (and
 * its refusal), the calls (create, update, a read for the connection test), the vendor's error shapes, a 429 with
 * Retry-After on demand, tokens that expire on demand, and a vendor that is down (connections dropped).
 */

export interface Call {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When it arrived (ms since epoch). */
  at: number;
}

export type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

export abstract class VendorServer {
  readonly calls: Call[] = [];
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  /** Drop every connection, as a vendor that is down. */
  down = false;
  /** Every answer waits this long, as a slow vendor (the load benchmark's 2 s). */
  delayMs = 0;
  /** The vendor's rate limit: API calls accepted per second (a sliding second); more answer 429 with Retry-After: 1. */
  ratePerSec: number | undefined;
  /** API calls answered 429 by the rate limit. */
  rateLimited = 0;
  /** The most API calls accepted within any one second. */
  peakPerSec = 0;
  readonly #accepted: number[] = [];
  #limitNext: { after: number; match: (call: Call) => boolean } | undefined;

  constructor() {
    this.#server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        if (this.down) {
          req.socket.destroy();
          return;
        }
        const call = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, at: Date.now() };
        this.calls.push(call);
        const answer = this.#limited(call) ?? this.#overRate(call) ?? this.answer(call, req);
        if (this.delayMs > 0) setTimeout(() => send(res, answer), this.delayMs);
        else send(res, answer);
      });
    });
    this.#server.on('connection', (s) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
  }

  /** The vendor's 429 body. */
  protected abstract tooMany(): unknown;
  protected abstract isAuthCall(call: Call): boolean;
  protected abstract answer(call: Call, req: IncomingMessage): Answer;

  /** The next API call (`match`ing, when given) answers 429 with `Retry-After: retryAfterSec`. */
  limitNext(retryAfterSec: number, match: (call: Call) => boolean = () => true) {
    this.#limitNext = { after: retryAfterSec, match };
  }

  #limited(call: Call): Answer | undefined {
    if (this.#limitNext === undefined || this.isAuthCall(call) || !this.#limitNext.match(call)) return undefined;
    const { after } = this.#limitNext;
    this.#limitNext = undefined;
    return { status: 429, headers: { 'retry-after': String(after) }, body: this.tooMany() };
  }

  #overRate(call: Call): Answer | undefined {
    if (this.isAuthCall(call)) return undefined;
    const now = Date.now();
    while (this.#accepted.length && this.#accepted[0]! <= now - 1000) this.#accepted.shift();
    if (this.ratePerSec !== undefined && this.#accepted.length >= this.ratePerSec) {
      this.rateLimited++;
      return { status: 429, headers: { 'retry-after': '1' }, body: this.tooMany() };
    }
    this.#accepted.push(now);
    this.peakPerSec = Math.max(this.peakPerSec, this.#accepted.length);
    return undefined;
  }

  async listen() {
    await new Promise<void>((r) => this.#server.listen(0, '127.0.0.1', r));
    return this;
  }

  get url() {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close() {
    for (const s of this.#sockets) s.destroy();
    await new Promise((r) => this.#server.close(r));
  }

  /** Calls to paths starting with this (method optional). */
  callsTo(prefix: string, method?: string) {
    return this.calls.filter((c) => c.path.startsWith(prefix) && (!method || c.method === method));
  }
}

function send(res: ServerResponse, a: Answer) {
  const text = a.body === undefined ? '' : JSON.stringify(a.body);
  res.writeHead(a.status, { ...(text ? { 'content-type': 'application/json;charset=UTF-8' } : {}), ...a.headers });
  res.end(text);
}

const json = (call: Call) => JSON.parse(call.body || '{}') as Record<string, any>;
const form = (call: Call) => Object.fromEntries(new URLSearchParams(call.body));

/** Spark API v2: `Authorization: Token token="…"`; contacts created (201) and updated (200); 401 with `error`; 422 with `errors`. */
export class SparkServer extends VendorServer {
  readonly contacts = new Map<number, Record<string, any>>();
  #next = 1000;
  constructor(readonly token: string) {
    super();
  }
  get baseUrl() {
    return `${this.url}/v2`;
  }
  protected isAuthCall() {
    return false;
  }
  protected tooMany() {
    return { error: 'Rate limit exceeded' };
  }
  protected answer(call: Call): Answer {
    if (call.headers.authorization !== `Token token="${this.token}"`) return { status: 401, body: { error: 'HTTP Token: Access denied.' } };
    const path = call.path.split('?')[0] ?? '';
    if (call.method === 'GET' && path === '/v2/contacts') return { status: 200, body: [...this.contacts.values()].slice(0, 1) };
    if (call.method === 'POST' && path === '/v2/contacts') {
      const body = json(call);
      if (!body.email) return { status: 422, body: { errors: { email: ["can't be blank"] } } };
      const id = this.#next++;
      this.contacts.set(id, { id, ...body });
      return { status: 201, body: { id, ...body } };
    }
    const m = /^\/v2\/contacts\/(\d+)$/.exec(path);
    if (call.method === 'PUT' && m) {
      const id = Number(m[1]);
      const current = this.contacts.get(id);
      if (!current) return { status: 404, body: { error: 'Not Found' } };
      this.contacts.set(id, { ...current, ...json(call) });
      return { status: 200, body: this.contacts.get(id) };
    }
    return { status: 404, body: { error: 'Not Found' } };
  }
}

/**
 * Salesforce: OAuth 2.0 client credentials at /services/oauth2/token (form; 400 invalid_client), the org at
 * `instance_url` (this server), REST sObjects Lead (201 `{ id, success, errors }`, PATCH 204) and CampaignMember
 * (400 DUPLICATE_VALUE for a second), errors as `[{ message, errorCode }]`, 401 INVALID_SESSION_ID for a dead session.
 */
export class SalesforceServer extends VendorServer {
  readonly leads = new Map<string, Record<string, any>>();
  readonly members = new Set<string>();
  readonly #sessions = new Set<string>();
  #next = 1;
  constructor(
    readonly key: string,
    readonly secret: string,
  ) {
    super();
  }
  /** Every session issued so far stops working (Salesforce's session timeout). */
  expireSessions() {
    this.#sessions.clear();
  }
  protected isAuthCall(call: Call) {
    return call.path === '/services/oauth2/token';
  }
  protected tooMany() {
    return [{ message: 'Too many requests', errorCode: 'REQUEST_LIMIT_EXCEEDED' }];
  }
  protected answer(call: Call): Answer {
    if (call.method === 'POST' && call.path === '/services/oauth2/token') {
      const f = form(call);
      if (f.grant_type !== 'client_credentials')
        return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'grant type not supported' } };
      if (f.client_id !== this.key || f.client_secret !== this.secret)
        return { status: 400, body: { error: 'invalid_client', error_description: 'invalid client credentials' } };
      const token = `00D!${randomBytes(12).toString('hex')}`;
      this.#sessions.add(token);
      return {
        status: 200,
        body: {
          access_token: token,
          instance_url: this.url,
          id: `${this.url}/id/00D/005`,
          token_type: 'Bearer',
          issued_at: String(Date.now()),
          signature: 'x',
        },
      };
    }
    const bearer = /^Bearer (.+)$/.exec(call.headers.authorization ?? '')?.[1];
    if (!bearer || !this.#sessions.has(bearer)) return { status: 401, body: [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }] };
    const path = call.path.replace(/^\/services\/data\/v\d+\.\d+/, '');
    if (call.method === 'GET' && path === '/sobjects/Lead')
      return { status: 200, body: { objectDescribe: { name: 'Lead', createable: true }, recentItems: [] } };
    if (call.method === 'POST' && path === '/sobjects/Lead') {
      const body = json(call);
      const missing = ['LastName', 'Company'].filter((f) => !body[f]);
      if (missing.length)
        return {
          status: 400,
          body: [{ message: `Required fields are missing: [${missing.join(', ')}]`, errorCode: 'REQUIRED_FIELD_MISSING', fields: missing }],
        };
      const id = `00Q${String(this.#next++).padStart(15, '0')}`;
      this.leads.set(id, body);
      return { status: 201, body: { id, success: true, errors: [] } };
    }
    const m = /^\/sobjects\/Lead\/(\w+)$/.exec(path);
    if (call.method === 'PATCH' && m?.[1]) {
      const current = this.leads.get(m[1]);
      if (!current) return { status: 404, body: [{ message: 'The requested resource does not exist', errorCode: 'NOT_FOUND' }] };
      this.leads.set(m[1], { ...current, ...json(call) });
      return { status: 204 };
    }
    if (call.method === 'POST' && path === '/sobjects/CampaignMember') {
      const { CampaignId, LeadId } = json(call);
      const key = `${CampaignId}/${LeadId}`;
      if (this.members.has(key)) return { status: 400, body: [{ message: 'Already a campaign member.', errorCode: 'DUPLICATE_VALUE', fields: [] }] };
      this.members.add(key);
      return { status: 201, body: { id: `00v${this.members.size}`, success: true, errors: [] } };
    }
    return { status: 404, body: [{ message: 'The requested resource does not exist', errorCode: 'NOT_FOUND' }] };
  }
}

/**
 * Zoho: the accounts server's /oauth/v2/token (grant_type=refresh_token; a refused one answers 200 with `error`), and
 * CRM API v7: `Authorization: Zoho-oauthtoken …`, Leads inserted (201) and updated (200) as `{ data: [...] }` with a
 * per-record `status`, 401 INVALID_TOKEN for an expired token, GET /crm/v7/org for the connection test.
 */
export class ZohoServer extends VendorServer {
  readonly leads = new Map<string, Record<string, any>>();
  readonly #tokens = new Set<string>();
  #next = 1;
  constructor(
    readonly clientId: string,
    readonly clientSecret: string,
    readonly refreshToken: string,
  ) {
    super();
  }
  /** Every access token issued so far expires. */
  expireTokens() {
    this.#tokens.clear();
  }
  protected isAuthCall(call: Call) {
    return call.path.startsWith('/oauth/v2/token');
  }
  protected tooMany() {
    return { code: 'TOO_MANY_REQUESTS', details: {}, message: 'The API call limit has been exceeded', status: 'error' };
  }
  protected answer(call: Call): Answer {
    if (call.method === 'POST' && call.path.startsWith('/oauth/v2/token')) {
      const f = { ...form(call), ...Object.fromEntries(new URL(call.path, this.url).searchParams) };
      if (f.grant_type !== 'refresh_token') return { status: 200, body: { error: 'unsupported_grant_type' } };
      if (f.client_id !== this.clientId || f.client_secret !== this.clientSecret) return { status: 200, body: { error: 'invalid_client' } };
      if (f.refresh_token !== this.refreshToken) return { status: 200, body: { error: 'invalid_code' } };
      const token = `1000.${randomBytes(12).toString('hex')}`;
      this.#tokens.add(token);
      return { status: 200, body: { access_token: token, api_domain: this.url, token_type: 'Bearer', expires_in: 3600, scope: 'ZohoCRM.modules.ALL' } };
    }
    const token = /^Zoho-oauthtoken (.+)$/.exec(call.headers.authorization ?? '')?.[1];
    if (!token || !this.#tokens.has(token))
      return { status: 401, body: { code: 'INVALID_TOKEN', details: {}, message: 'invalid oauth token', status: 'error' } };
    if (call.method === 'GET' && call.path === '/crm/v7/org') return { status: 200, body: { org: [{ id: '111', company_name: 'Test Org' }] } };
    if (call.method === 'POST' && call.path === '/crm/v7/Leads') {
      const rec = (json(call).data as Record<string, any>[] | undefined)?.[0] ?? {};
      if (!rec.Last_Name)
        return {
          status: 400,
          body: { data: [{ code: 'MANDATORY_NOT_FOUND', details: { api_name: 'Last_Name' }, message: 'required field not found', status: 'error' }] },
        };
      const id = String(5_000_000 + this.#next++);
      this.leads.set(id, rec);
      return {
        status: 201,
        body: { data: [{ code: 'SUCCESS', details: { id, Created_Time: new Date().toISOString() }, message: 'record added', status: 'success' }] },
      };
    }
    const m = /^\/crm\/v7\/Leads\/(\d+)$/.exec(call.path);
    if (call.method === 'PUT' && m?.[1]) {
      const current = this.leads.get(m[1]);
      if (!current)
        return {
          status: 400,
          body: { data: [{ code: 'INVALID_DATA', details: { api_name: 'id' }, message: 'the related id given seems to be invalid', status: 'error' }] },
        };
      const rec = (json(call).data as Record<string, any>[] | undefined)?.[0] ?? {};
      this.leads.set(m[1], { ...current, ...rec });
      return { status: 200, body: { data: [{ code: 'SUCCESS', details: { id: m[1] }, message: 'record updated', status: 'success' }] } };
    }
    return {
      status: 404,
      body: { code: 'INVALID_URL_PATTERN', details: {}, message: 'Please check if the URL trying to access is a correct one', status: 'error' },
    };
  }
}
