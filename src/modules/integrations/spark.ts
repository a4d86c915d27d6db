import type { Connector, Credentials, CrmLead, VendorDeps } from './connector.ts';
import { leadDescription, vendorWords } from './crm-text.ts';
import { callVendor, rateLimited, VendorError, type VendorAnswer } from './vendor-http.ts';

const VENDOR = 'Spark';

/**
 * Spark (spark.re), API v2: `srBaseUrl` is the API's root (`https://api.spark.re/v2`), `srToken` the API key, sent as
 * `Authorization: Token token="…"`. A lead is a contact: POST /contacts, then PUT /contacts/{id}.
 */
function call(creds: Credentials, deps: VendorDeps, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) {
  const base = (creds.srBaseUrl ?? '').replace(/\/+$/, '');
  return callVendor({
    method,
    url: `${base}${path}`,
    headers: { authorization: `Token token="${creds.srToken ?? ''}"` },
    body,
    timeoutMs: deps.config.timeoutMs,
    allowPrivate: deps.allowPrivate,
    vendor: VENDOR,
  });
}

function failure(answer: VendorAnswer, doing: string, now: number): VendorError {
  if (answer.status === 429) return rateLimited(VENDOR, answer, now);
  if (answer.status === 401 || answer.status === 403) return new VendorError(`${VENDOR} refused the token (${answer.status}): check srToken`, answer.status);
  const json = answer.json as { errors?: unknown } | undefined;
  const errors = json?.errors;
  const detail =
    errors && typeof errors === 'object' && !Array.isArray(errors)
      ? Object.entries(errors as Record<string, unknown>)
          .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(', ') : String(v)}`)
          .join('; ')
      : (vendorWords(errors ?? answer.json, ['message', 'error']) ?? `answered ${answer.status}`);
  return new VendorError(`${VENDOR} ${doing}: ${detail}`, answer.status);
}

function contact(lead: CrmLead) {
  return {
    first_name: lead.firstName,
    last_name: lead.lastName,
    email: lead.email,
    ...(lead.phone ? { phone: lead.phone } : {}),
    marketing_source: lead.source,
    ...(lead.utm.source ? { utm_source: lead.utm.source } : {}),
    ...(lead.utm.medium ? { utm_medium: lead.utm.medium } : {}),
    ...(lead.utm.campaign ? { utm_campaign: lead.utm.campaign } : {}),
    ...(lead.utm.term ? { utm_term: lead.utm.term } : {}),
    ...(lead.utm.content ? { utm_content: lead.utm.content } : {}),
    status: lead.status,
    notes: leadDescription(lead),
  };
}

export const spark: Connector = {
  name: 'spark',
  label: VENDOR,
  fields: ['srBaseUrl', 'srToken'],
  required: ['srBaseUrl', 'srToken'],
  async test(creds, deps) {
    const answer = await call(creds, deps, 'GET', '/contacts?per_page=1');
    if (answer.status !== 200) throw failure(answer, 'did not list contacts', deps.clock.now());
  },
  crm: {
    async create(creds, lead, deps) {
      const answer = await call(creds, deps, 'POST', '/contacts', contact(lead));
      if (answer.status !== 200 && answer.status !== 201) throw failure(answer, 'refused the contact', deps.clock.now());
      const id = (answer.json as { id?: unknown } | undefined)?.id;
      if (typeof id !== 'number' && typeof id !== 'string') throw new VendorError(`${VENDOR} created the contact but answered no id`, answer.status);
      return String(id);
    },
    async update(creds, externalId, lead, deps) {
      const answer = await call(creds, deps, 'PUT', `/contacts/${encodeURIComponent(externalId)}`, contact(lead));
      if (answer.status < 200 || answer.status > 299) throw failure(answer, 'refused the update', deps.clock.now());
    },
  },
};
