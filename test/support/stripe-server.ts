import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { billingApi, type BillingApi } from './stripe-billing.ts';

/**
 * A local server speaking the part of Stripe's API the deposits use, as Stripe documents it
 * (https://docs.stripe.com/api): form-encoded request bodies with nested keys (`line_items[0][price_data][currency]`,
 * https://docs.stripe.com/api/request_ids and the SDK's encoding), Bearer authentication (401 otherwise,
 * https://docs.stripe.com/api/authentication), the `Stripe-Account` header for calls on a connected account
 * (https://docs.stripe.com/connect/authentication), idempotent requests (the same key and parameters replay the
 * first answer, other parameters → 400 `idempotency_error`, https://docs.stripe.com/api/idempotent_requests), and
 * errors as `{ error: { type, code, message, param } }` (https://docs.stripe.com/api/errors). Objects: accounts
 * (https://docs.stripe.com/api/accounts/create, /retrieve, with their `requirements`), account links (https://docs.stripe.com/api/account_links/create),
 * Checkout Sessions (https://docs.stripe.com/api/checkout/sessions/create, /retrieve, /expire), PaymentIntents
 * (https://docs.stripe.com/api/payment_intents/retrieve) and refunds (https://docs.stripe.com/api/refunds/create).
 * The plans' part (customers, prices, subscriptions, their items, invoices, Checkout in subscription mode, customer
 * portal sessions) is ./stripe-billing.ts. Events are signed as Stripe signs them (https://docs.stripe.com/webhooks#verify-manually): `Stripe-Signature:
 * t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" with the endpoint secret>`.
 */

type Obj = Record<string, unknown>;

interface Account extends Obj {
  id: string;
  object: 'account';
  type: string;
  email: string | null;
  charges_enabled: boolean;
  details_submitted: boolean;
  metadata: Obj;
  requirements: {
    currently_due: string[];
    eventually_due: string[];
    past_due: string[];
    pending_verification: string[];
    disabled_reason: string | null;
    current_deadline: number | null;
    errors: Obj[];
  };
}

/** An account's requirements: `due` still to collect; none due and charges off is Stripe verifying what it has. */
const requirements = (due: string[], enabled: boolean): Account['requirements'] => ({
  currently_due: due,
  eventually_due: due,
  past_due: [],
  pending_verification: [],
  disabled_reason: enabled ? null : due.length ? 'requirements.past_due' : 'requirements.pending_verification',
  current_deadline: null,
  errors: [],
});
/** What a new Express account needs before Stripe enables charges (a subset of what Stripe asks for). */
const NEW_ACCOUNT_DUE = ['business_type', 'external_account', 'tos_acceptance.date', 'tos_acceptance.ip'];

interface Session extends Obj {
  id: string;
  object: 'checkout.session';
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid';
  amount_total: number;
  currency: string;
  url: string | null;
  payment_intent: string | null;
}

interface PaymentIntent extends Obj {
  id: string;
  object: 'payment_intent';
  amount: number;
  currency: string;
  status: string;
  amount_refunded?: number;
}

export interface StripeRequest {
  method: string;
  path: string;
  account: string | undefined;
  idempotencyKey: string | undefined;
  params: Obj;
}

class StripeError extends Error {
  constructor(
    readonly status: number,
    readonly body: { type: string; code?: string; message: string; param?: string },
  ) {
    super(body.message);
  }
}

const invalid = (message: string, param?: string, code?: string) =>
  new StripeError(400, { type: 'invalid_request_error', message, ...(param ? { param } : {}), ...(code ? { code } : {}) });
const missing = (what: string, id: string, param = 'id') =>
  new StripeError(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${what}: '${id}'`, param });

/** Parses `a[b][0][c]=v&…` into nested objects; keys that are all numeric indices become arrays. */
export function parseForm(body: string): Obj {
  const root: Obj = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const parts = key.replace(/\]/g, '').split('[');
    let node: Obj = root;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Obj;
    });
  }
  const arrays = (v: unknown): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    const o = v as Obj;
    const keys = Object.keys(o);
    const mapped = Object.fromEntries(keys.map((k) => [k, arrays(o[k])]));
    return keys.length && keys.every((k) => /^\d+$/.test(k)) ? keys.sort((a, b) => Number(a) - Number(b)).map((k) => mapped[k]) : mapped;
  };
  return arrays(root) as Obj;
}

/** Stripe's currencies for this server: a few of them, the ones the tests use, with their minimums (minor units). */
const CURRENCIES: Record<string, number> = { usd: 50, cad: 50, eur: 50, gbp: 30, jpy: 50, aud: 50 };

export interface StripeServer {
  url: string;
  apiKey: string;
  webhookSecret: string;
  /** Every API request, in order. */
  requests: StripeRequest[];
  accounts: Map<string, Account>;
  /** Sessions by id, each with the account it was made on. */
  sessions: Map<string, { account: string | undefined; session: Session }>;
  /** The plans' objects and what a customer does on Stripe's pages (./stripe-billing.ts). */
  billing: BillingApi;
  /** The buyer pays at Checkout: the session completes and its PaymentIntent succeeds. */
  pay(sessionId: string): Session;
  /** Stripe enables charges on an account (its owner finished onboarding). */
  enableCharges(accountId: string): Account;
  /** The owner submitted Stripe's form but Stripe still needs `stillDue` (none: it is verifying); charges stay off. */
  submitDetails(accountId: string, stillDue: string[]): Account;
  /** An event as Stripe sends it: `object` is the object as it stands now (a copy). */
  event(type: string, object: Obj, account?: string): Obj & { id: string };
  /** The body and headers of a webhook request carrying `event`, signed with `secret` (the server's by default) at `t`. */
  signed(event: Obj, opts?: { secret?: string; t?: number }): { payload: string; headers: Record<string, string> };
  stop(): Promise<void>;
}

export async function startStripe(opts: { apiKey?: string; webhookSecret?: string } = {}): Promise<StripeServer> {
  const apiKey = opts.apiKey ?? `sk_test_${randomBytes(12).toString('hex')}`;
  const webhookSecret = opts.webhookSecret ?? `whsec_${randomBytes(16).toString('hex')}`;
  const requests: StripeRequest[] = [];
  const accounts = new Map<string, Account>();
  const sessions = new Map<string, { account: string | undefined; session: Session }>();
  const intents = new Map<string, { account: string | undefined; intent: PaymentIntent }>();
  const refunds = new Map<string, Obj>();
  const idempotent = new Map<string, { digest: string; status: number; body: string }>();
  let base = '';
  const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
  const now = () => Math.floor(Date.now() / 1000);
  const billing = billingApi({ invalid, missing, id, now, base: () => base });

  const scoped = <T>(map: Map<string, { account: string | undefined } & T>, key: string, account: string | undefined, what: string) => {
    const found = map.get(key);
    if (!found || found.account !== account) throw missing(what, key);
    return found;
  };

  function route(method: string, path: string, account: string | undefined, p: Obj): { status: number; body: Obj } {
    const ok = (body: Obj) => ({ status: 200, body });
    if (account !== undefined && !accounts.has(account)) {
      throw new StripeError(403, {
        type: 'invalid_request_error',
        code: 'account_invalid',
        message: `The provided key does not have access to account '${account}' (or that account does not exist).`,
      });
    }
    const plans = billing.route(method, path, account, p);
    if (plans) return ok(plans);
    let m: RegExpMatchArray | null;
    if (method === 'POST' && path === '/v1/accounts') {
      if (account) throw invalid('Connected accounts cannot create accounts');
      const type = p.type;
      if (type !== 'express' && type !== 'standard' && type !== 'custom') throw invalid('Invalid type: must be one of custom, express, or standard', 'type');
      const a: Account = {
        id: id('acct'),
        object: 'account',
        type,
        email: typeof p.email === 'string' ? p.email : null,
        charges_enabled: false,
        details_submitted: false,
        metadata: (p.metadata as Obj) ?? {},
        requirements: requirements(NEW_ACCOUNT_DUE, false),
      };
      accounts.set(a.id, a);
      return ok(a);
    }
    if (method === 'GET' && (m = path.match(/^\/v1\/accounts\/([^/]+)$/))) {
      const a = accounts.get(m[1]!);
      if (!a) throw missing('account', m[1]!, 'account');
      return ok(a);
    }
    if (method === 'POST' && path === '/v1/account_links') {
      for (const k of ['account', 'type'] as const) if (typeof p[k] !== 'string') throw invalid(`Missing required param: ${k}.`, k, 'parameter_missing');
      if (!accounts.has(p.account as string)) throw missing('account', p.account as string, 'account');
      if (p.type !== 'account_onboarding' && p.type !== 'account_update') throw invalid('Invalid type', 'type');
      if (typeof p.refresh_url !== 'string' || typeof p.return_url !== 'string')
        throw invalid('Missing required param: refresh_url.', 'refresh_url', 'parameter_missing');
      return ok({
        object: 'account_link',
        created: now(),
        expires_at: now() + 300,
        url: `${base}/setup/e/${p.account as string}/${randomBytes(8).toString('hex')}`,
      });
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      if (p.mode !== 'payment') throw invalid('Missing required param: mode.', 'mode', 'parameter_missing');
      const items = p.line_items;
      if (!Array.isArray(items) || !items.length) throw invalid('Missing required param: line_items.', 'line_items', 'parameter_missing');
      let total = 0;
      let currency = '';
      items.forEach((raw, i) => {
        const item = raw as Obj;
        const pd = item.price_data as Obj | undefined;
        const at = `line_items[${i}][price_data]`;
        if (!pd) throw invalid('Missing required param: price_data.', at, 'parameter_missing');
        const c = String(pd.currency ?? '');
        if (!(c in CURRENCIES)) throw invalid(`Invalid currency: ${c}.`, `${at}[currency]`, 'invalid_currency');
        const amount = Number(pd.unit_amount);
        if (!Number.isInteger(amount) || amount < 0) throw invalid('Invalid integer', `${at}[unit_amount]`);
        if (typeof (pd.product_data as Obj | undefined)?.name !== 'string')
          throw invalid('Missing required param: name.', `${at}[product_data][name]`, 'parameter_missing');
        total += amount * Number(item.quantity ?? 1);
        currency = c;
      });
      if (total < CURRENCIES[currency]!)
        throw invalid("The Checkout Session's total amount due must add up to at least the minimum charge.", undefined, 'amount_too_small');
      const s: Session = {
        id: id('cs_test'),
        object: 'checkout.session',
        mode: 'payment',
        status: 'open',
        payment_status: 'unpaid',
        amount_total: total,
        currency,
        customer_email: p.customer_email ?? null,
        client_reference_id: p.client_reference_id ?? null,
        metadata: p.metadata ?? {},
        success_url: p.success_url ?? null,
        cancel_url: p.cancel_url ?? null,
        payment_intent: null,
        expires_at: now() + 24 * 3600,
        url: '',
      };
      s.url = `${base}/c/pay/${s.id}`;
      sessions.set(s.id, { account, session: s });
      return ok(s);
    }
    if (method === 'GET' && (m = path.match(/^\/v1\/checkout\/sessions\/([^/]+)$/))) {
      return ok(scoped(sessions, m[1]!, account, 'checkout.session').session);
    }
    if (method === 'POST' && (m = path.match(/^\/v1\/checkout\/sessions\/([^/]+)\/expire$/))) {
      const { session } = scoped(sessions, m[1]!, account, 'checkout.session');
      if (session.status !== 'open') throw invalid(`Only Checkout Sessions with a status in ["open"] can be expired.`);
      session.status = 'expired';
      session.url = null;
      return ok(session);
    }
    if (method === 'GET' && (m = path.match(/^\/v1\/payment_intents\/([^/]+)$/))) {
      return ok(scoped(intents, m[1]!, account, 'payment_intent').intent);
    }
    if (method === 'POST' && path === '/v1/refunds') {
      if (typeof p.payment_intent !== 'string') throw invalid('Missing required param: payment_intent.', 'payment_intent', 'parameter_missing');
      const { intent } = scoped(intents, p.payment_intent, account, 'payment_intent');
      if ((intent.amount_refunded ?? 0) >= intent.amount) {
        throw invalid(`Charge for payment intent ${intent.id} has already been refunded.`, undefined, 'charge_already_refunded');
      }
      const amount = p.amount === undefined ? intent.amount - (intent.amount_refunded ?? 0) : Number(p.amount);
      intent.amount_refunded = (intent.amount_refunded ?? 0) + amount;
      const refund = { id: id('re'), object: 'refund', amount, currency: intent.currency, payment_intent: intent.id, status: 'succeeded', created: now() };
      refunds.set(refund.id, refund);
      return ok(refund);
    }
    throw new StripeError(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` });
  }

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: string, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req'), ...headers });
        res.end(body);
      };
      const url = new URL(req.url ?? '/', base);
      const text = Buffer.concat(chunks).toString('utf8');
      const method = req.method ?? 'GET';
      // Stripe's clients send the parameters of GET and DELETE in the query string.
      const params = method === 'GET' || method === 'DELETE' ? parseForm(url.searchParams.toString()) : parseForm(text);
      const account = typeof req.headers['stripe-account'] === 'string' ? req.headers['stripe-account'] : undefined;
      const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : undefined;
      requests.push({ method, path: url.pathname, account, idempotencyKey: key, params });
      const auth = req.headers.authorization ?? '';
      if (auth !== `Bearer ${apiKey}`) {
        const message = auth ? 'Invalid API Key provided: ' + auth.replace(/^Bearer\s+/, '').slice(0, 8) + '****' : 'You did not provide an API key.';
        send(401, JSON.stringify({ error: { type: 'invalid_request_error', message } }), { 'www-authenticate': 'Bearer realm="Stripe"' });
        return;
      }
      // Keys are per account (the platform's own and each connected one), as Stripe keeps them.
      const slot = key && method === 'POST' ? `${account ?? ''}:${key}` : undefined;
      const digest = createHash('sha256').update(`${method} ${url.pathname} ${text}`).digest('hex');
      if (slot) {
        const seen = idempotent.get(slot);
        if (seen && seen.digest !== digest) {
          const message = `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`;
          send(400, JSON.stringify({ error: { type: 'idempotency_error', message } }));
          return;
        }
        if (seen) {
          send(seen.status, seen.body, { 'idempotent-replayed': 'true', 'idempotency-key': key! });
          return;
        }
      }
      let status: number;
      let body: string;
      try {
        const answer = route(method, url.pathname, account, params);
        status = answer.status;
        body = JSON.stringify(answer.body);
      } catch (err) {
        if (!(err instanceof StripeError)) throw err;
        status = err.status;
        body = JSON.stringify({ error: err.body });
      }
      // Stripe keeps the answer of a request that ran (success or a 400), not of one refused before running.
      if (slot && status !== 401 && status !== 429) idempotent.set(slot, { digest, status, body });
      send(status, body, key ? { 'idempotency-key': key } : {});
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    apiKey,
    webhookSecret,
    requests,
    accounts,
    sessions,
    billing,
    pay(sessionId) {
      const found = sessions.get(sessionId);
      if (!found) throw new Error(`no session ${sessionId}`);
      const s = found.session;
      const intent: PaymentIntent = { id: id('pi'), object: 'payment_intent', amount: s.amount_total, currency: s.currency, status: 'succeeded' };
      intents.set(intent.id, { account: found.account, intent });
      Object.assign(s, { status: 'complete', payment_status: 'paid', payment_intent: intent.id, url: null });
      return s;
    },
    enableCharges(accountId) {
      const a = accounts.get(accountId);
      if (!a) throw new Error(`no account ${accountId}`);
      Object.assign(a, { charges_enabled: true, details_submitted: true, requirements: requirements([], true) });
      return a;
    },
    submitDetails(accountId, stillDue) {
      const a = accounts.get(accountId);
      if (!a) throw new Error(`no account ${accountId}`);
      Object.assign(a, { charges_enabled: false, details_submitted: true, requirements: requirements(stillDue, false) });
      return a;
    },
    event(type, object, account) {
      return {
        id: id('evt'),
        object: 'event',
        api_version: '2026-10-28.endive',
        created: now(),
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type,
        ...(account ? { account } : {}),
        data: { object: structuredClone(object) },
      };
    },
    signed(event, o = {}) {
      const payload = JSON.stringify(event);
      const t = o.t ?? now();
      const v1 = createHmac('sha256', o.secret ?? webhookSecret)
        .update(`${t}.${payload}`)
        .digest('hex');
      return { payload, headers: { 'content-type': 'application/json', 'stripe-signature': `t=${t},v1=${v1}` } };
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The settings a node needs to bill plans through `stripe` (two recurring prices made on it). */
export const billingEnv = (stripe: StripeServer, prices: { starter: string; pro: string }) => ({
  ...stripeEnv(stripe),
  BILLING: 'stripe',
  STRIPE_PRICE_STARTER: prices.starter,
  STRIPE_PRICE_PRO: prices.pro,
});

/** The settings a node needs to take deposits through `stripe`. */
export const stripeEnv = (stripe: StripeServer) => ({
  STRIPE_SECRET_KEY: stripe.apiKey,
  STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
  STRIPE_API_BASE: stripe.url,
});
