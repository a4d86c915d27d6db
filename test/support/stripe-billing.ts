/**
 * The subscription part of the local Stripe server (test/support/stripe-server.ts), as Stripe documents it:
 * customers (https://docs.stripe.com/api/customers/create, /retrieve), prices with inline product data
 * (https://docs.stripe.com/api/prices/create), subscriptions (https://docs.stripe.com/api/subscriptions/create,
 * /retrieve, /cancel) whose period is on their items since the 2025 API versions, subscription items
 * (https://docs.stripe.com/api/subscription_items/update), invoices (https://docs.stripe.com/api/invoices/retrieve,
 * `parent.subscription_details.subscription`), Checkout in subscription mode
 * (https://docs.stripe.com/api/checkout/sessions/create with `mode=subscription`, `subscription_data`) and customer
 * portal sessions (https://docs.stripe.com/api/customer_portal/sessions/create). What a customer does on Stripe's
 * pages (finish Checkout, a renewal failing or paid, a cancellation) the tests do through the helpers.
 */

type Obj = Record<string, unknown>;

export interface Price extends Obj {
  id: string;
  object: 'price';
  currency: string;
  unit_amount: number;
  recurring: { interval: string; interval_count: number } | null;
  product: string;
}

export interface SubscriptionItem extends Obj {
  id: string;
  object: 'subscription_item';
  price: Price;
  quantity: number;
  subscription: string;
  current_period_start: number;
  current_period_end: number;
}

export interface Subscription extends Obj {
  id: string;
  object: 'subscription';
  customer: string;
  status: string;
  /** When it was made (seconds). */
  created: number;
  cancel_at_period_end: boolean;
  trial_end: number | null;
  metadata: Obj;
  items: { object: 'list'; data: SubscriptionItem[]; has_more: false; url: string };
  latest_invoice: string | null;
}

export interface Invoice extends Obj {
  id: string;
  object: 'invoice';
  customer: string;
  status: 'open' | 'paid';
  amount_due: number;
  parent: { type: 'subscription_details'; subscription_details: { subscription: string; metadata: Obj } } | null;
}

/** What the main server lends: Stripe's error shapes, ids, the clock and its own address. */
export interface BillingHost {
  invalid(message: string, param?: string, code?: string): Error;
  missing(what: string, id: string, param?: string): Error;
  id(prefix: string): string;
  now(): number;
  base(): string;
}

const DAY = 24 * 3600;
const PERIOD = 30 * DAY;

export function billingApi(host: BillingHost) {
  const customers = new Map<string, Obj>();
  const prices = new Map<string, Price>();
  const subscriptions = new Map<string, Subscription>();
  const items = new Map<string, SubscriptionItem>();
  const invoices = new Map<string, Invoice>();
  /** Checkout Sessions in subscription mode (on the platform's account), by id. */
  const sessions = new Map<string, Obj>();

  const customerOf = (id: unknown) => {
    if (typeof id !== 'string' || !customers.has(id)) throw host.missing('customer', String(id), 'customer');
    return id;
  };
  const priceOf = (id: unknown, param: string) => {
    const price = typeof id === 'string' ? prices.get(id) : undefined;
    if (!price) throw host.missing('price', String(id), param);
    if (!price.recurring) throw host.invalid('The price specified is a one-time price; a subscription needs a recurring one.', param);
    return price;
  };
  const quantityOf = (v: unknown, param: string, min: number) => {
    const q = v === undefined ? 1 : Number(v);
    if (!Number.isInteger(q) || q < min) throw host.invalid('Invalid integer', param);
    return q;
  };

  function invoiceFor(sub: Subscription, paid: boolean): Invoice {
    const amount = sub.status === 'trialing' ? 0 : sub.items.data.reduce((n, i) => n + i.price.unit_amount * i.quantity, 0);
    const invoice: Invoice = {
      id: host.id('in'),
      object: 'invoice',
      customer: sub.customer,
      status: paid ? 'paid' : 'open',
      amount_due: amount,
      parent: { type: 'subscription_details', subscription_details: { subscription: sub.id, metadata: sub.metadata } },
    };
    invoices.set(invoice.id, invoice);
    sub.latest_invoice = invoice.id;
    return invoice;
  }

  /** A subscription as Stripe starts one: trialing with a trial, else active with its first invoice paid. */
  function subscribe(customer: string, lines: { price: Price; quantity: number }[], trialDays: number, metadata: Obj): Subscription {
    const start = host.now();
    const end = trialDays > 0 ? start + trialDays * DAY : start + PERIOD;
    const sub: Subscription = {
      id: host.id('sub'),
      object: 'subscription',
      customer,
      status: trialDays > 0 ? 'trialing' : 'active',
      created: start,
      cancel_at_period_end: false,
      trial_end: trialDays > 0 ? end : null,
      metadata,
      items: { object: 'list', data: [], has_more: false, url: '' },
      latest_invoice: null,
    };
    sub.items.url = `/v1/subscription_items?subscription=${sub.id}`;
    for (const line of lines) {
      const item: SubscriptionItem = {
        id: host.id('si'),
        object: 'subscription_item',
        price: line.price,
        quantity: line.quantity,
        subscription: sub.id,
        current_period_start: start,
        current_period_end: end,
      };
      items.set(item.id, item);
      sub.items.data.push(item);
    }
    subscriptions.set(sub.id, sub);
    invoiceFor(sub, true);
    return sub;
  }

  const periodEnd = (sub: Subscription) => sub.items.data[0]!.current_period_end;

  /** Answers a request of the subscription part, or undefined when the path is not one of its. */
  function route(method: string, path: string, account: string | undefined, p: Obj): Obj | undefined {
    let m: RegExpMatchArray | null;
    if (method === 'POST' && path === '/v1/customers') {
      const c = { id: host.id('cus'), object: 'customer', email: p.email ?? null, metadata: p.metadata ?? {}, created: host.now() };
      customers.set(c.id, c);
      return c;
    }
    if (method === 'GET' && (m = path.match(/^\/v1\/customers\/([^/]+)$/))) return customers.get(customerOf(m[1]))!;
    if (method === 'POST' && path === '/v1/prices') {
      const currency = String(p.currency ?? '');
      if (!/^[a-z]{3}$/.test(currency)) throw host.invalid('Missing required param: currency.', 'currency', 'parameter_missing');
      const recurring = p.recurring as Obj | undefined;
      const product = (p.product_data as Obj | undefined)?.name;
      if (typeof product !== 'string' && typeof p.product !== 'string') throw host.invalid('Missing required param: product.', 'product', 'parameter_missing');
      const price: Price = {
        id: host.id('price'),
        object: 'price',
        currency,
        unit_amount: quantityOf(p.unit_amount, 'unit_amount', 0),
        recurring: recurring ? { interval: String(recurring.interval ?? 'month'), interval_count: 1 } : null,
        product: typeof p.product === 'string' ? p.product : host.id('prod'),
      };
      prices.set(price.id, price);
      return price;
    }
    if (method === 'POST' && path === '/v1/subscriptions') {
      const lines = ((p.items as Obj[] | undefined) ?? []).map((it, i) => ({
        price: priceOf(it.price, `items[${i}][price]`),
        quantity: quantityOf(it.quantity, `items[${i}][quantity]`, 1),
      }));
      if (!lines.length) throw host.invalid('Missing required param: items.', 'items', 'parameter_missing');
      return subscribe(customerOf(p.customer), lines, p.trial_period_days === undefined ? 0 : Number(p.trial_period_days), (p.metadata as Obj) ?? {});
    }
    if (method === 'GET' && path === '/v1/subscriptions') {
      // https://docs.stripe.com/api/subscriptions/list: by customer; without `status` all but canceled ones, `all` every one.
      const customer = customerOf(p.customer);
      const status = typeof p.status === 'string' ? p.status : undefined;
      const data = [...subscriptions.values()]
        .filter((x) => x.customer === customer && (status === 'all' || (status ? x.status === status : x.status !== 'canceled')))
        .sort((x, y) => y.created - x.created);
      return { object: 'list', url: '/v1/subscriptions', has_more: false, data };
    }
    if ((m = path.match(/^\/v1\/subscriptions\/([^/]+)$/))) {
      const sub = subscriptions.get(m[1]!);
      if (!sub) throw host.missing('subscription', m[1]!);
      if (method === 'GET') return sub;
      if (method === 'DELETE') {
        if (sub.status === 'canceled') throw host.invalid('A canceled subscription can only update its cancellation_details and metadata.', 'subscription');
        sub.status = 'canceled';
        return sub;
      }
      if (method === 'POST') {
        if (p.cancel_at_period_end !== undefined) sub.cancel_at_period_end = p.cancel_at_period_end === 'true';
        return sub;
      }
    }
    if (method === 'POST' && (m = path.match(/^\/v1\/subscription_items\/([^/]+)$/))) {
      const item = items.get(m[1]!);
      if (!item) throw host.missing('subscription_item', m[1]!);
      if (p.quantity !== undefined) item.quantity = quantityOf(p.quantity, 'quantity', 0);
      return item;
    }
    if (method === 'GET' && (m = path.match(/^\/v1\/invoices\/([^/]+)$/))) {
      const invoice = invoices.get(m[1]!);
      if (!invoice) throw host.missing('invoice', m[1]!);
      return invoice;
    }
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      const customer = customerOf(p.customer);
      const id = host.id('bps');
      return { id, object: 'billing_portal.session', customer, return_url: p.return_url ?? null, url: `${host.base()}/p/session/${id}`, created: host.now() };
    }
    if (method === 'POST' && path === '/v1/checkout/sessions' && p.mode === 'subscription') {
      if (account) throw host.invalid('Subscription mode on a connected account is not what this server speaks', 'mode');
      const lines = ((p.line_items as Obj[] | undefined) ?? []).map((it, i) => ({
        price: priceOf(it.price, `line_items[${i}][price]`),
        quantity: quantityOf(it.quantity, `line_items[${i}][quantity]`, 1),
      }));
      if (!lines.length) throw host.invalid('Missing required param: line_items.', 'line_items', 'parameter_missing');
      const data = (p.subscription_data as Obj | undefined) ?? {};
      const s = {
        id: host.id('cs_test'),
        object: 'checkout.session',
        mode: 'subscription',
        status: 'open',
        payment_status: 'unpaid',
        customer: p.customer === undefined ? null : customerOf(p.customer),
        client_reference_id: p.client_reference_id ?? null,
        success_url: p.success_url ?? null,
        cancel_url: p.cancel_url ?? null,
        subscription: null,
        url: '',
        // Kept for the helper that finishes it; Stripe keeps them too (not shown here as in its answer).
        _lines: lines,
        _trialDays: data.trial_period_days === undefined ? 0 : Number(data.trial_period_days),
        _metadata: data.metadata ?? {},
      };
      s.url = `${host.base()}/c/pay/${s.id}`;
      sessions.set(s.id, s);
      return visible(s);
    }
    if (method === 'GET' && (m = path.match(/^\/v1\/checkout\/sessions\/([^/]+)$/)) && sessions.has(m[1]!)) {
      if (account) throw host.missing('checkout.session', m[1]!);
      return visible(sessions.get(m[1]!)!);
    }
    return undefined;
  }

  const visible = (s: Obj) => Object.fromEntries(Object.entries(s).filter(([k]) => !k.startsWith('_')));

  return {
    route,
    customers,
    prices,
    subscriptions,
    invoices,
    sessions,
    /** A recurring monthly price (what STRIPE_PRICE_STARTER and STRIPE_PRICE_PRO name). */
    price(unitAmount: number, currency = 'usd'): Price {
      return route('POST', '/v1/prices', undefined, {
        currency,
        unit_amount: String(unitAmount),
        recurring: { interval: 'month' },
        product_data: { name: 'Plan' },
      }) as Price;
    },
    /** The customer finishes Checkout: the session completes and its subscription starts (trialing with a trial). */
    completeCheckout(sessionId: string): { session: Obj; subscription: Subscription } {
      const s = sessions.get(sessionId);
      if (!s || s.status !== 'open') throw new Error(`no open subscription session ${sessionId}`);
      const customer = (s.customer as string | null) ?? (route('POST', '/v1/customers', undefined, {}) as { id: string }).id;
      const sub = subscribe(customer, s._lines as { price: Price; quantity: number }[], s._trialDays as number, s._metadata as Obj);
      Object.assign(s, { status: 'complete', payment_status: 'paid', customer, subscription: sub.id, url: null });
      return { session: visible(s), subscription: sub };
    },
    /** A renewal whose payment fails: a new period starts, its invoice stays open, the subscription is past due. */
    failRenewal(subscriptionId: string): Invoice {
      const sub = subscriptions.get(subscriptionId)!;
      for (const item of sub.items.data) {
        item.current_period_start = item.current_period_end;
        item.current_period_end += PERIOD;
      }
      sub.status = 'past_due';
      return invoiceFor(sub, false);
    },
    /** The open invoice is paid at last (a new card): the subscription is active again. */
    payInvoice(invoiceId: string): Invoice {
      const invoice = invoices.get(invoiceId)!;
      invoice.status = 'paid';
      subscriptions.get(invoice.parent!.subscription_details.subscription)!.status = 'active';
      return invoice;
    },
    /** Stripe gives up on the retries: the subscription turns `unpaid` (the account's setting), its period as it was. */
    markUnpaid(subscriptionId: string): Subscription {
      const sub = subscriptions.get(subscriptionId)!;
      sub.status = 'unpaid';
      return sub;
    },
    /** The customer switches plan in the portal: the item's price changes. */
    switchPrice(subscriptionId: string, price: Price): Subscription {
      const sub = subscriptions.get(subscriptionId)!;
      sub.items.data[0]!.price = price;
      return sub;
    },
    periodEnd,
  };
}

export type BillingApi = ReturnType<typeof billingApi>;
