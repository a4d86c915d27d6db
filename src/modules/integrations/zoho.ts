import type { Connector, Credentials, CrmLead, VendorDeps } from './connector.ts';
import { leadDescription, tokenKey, vendorWords } from './crm-text.ts';
import { callVendor, rateLimited, VendorError, type VendorAnswer } from './vendor-http.ts';

const VENDOR = 'Zoho CRM';
const CREDENTIALS = ['zhClientId', 'zhClientSecret', 'zhAccessToken'] as const;

/** The sales team's statuses as Zoho CRM's default Lead Status values. */
const STATUS: Record<string, string> = {
  new: 'Not Contacted',
  contacted: 'Contacted',
  qualified: 'Pre-Qualified',
  lost: 'Lost Lead',
};

function failure(answer: VendorAnswer, doing: string, now: number): VendorError {
  if (answer.status === 429) return rateLimited(VENDOR, answer, now);
  const json = answer.json as { data?: unknown } | undefined;
  const record = Array.isArray(json?.data) ? (json.data[0] as unknown) : json;
  const words = vendorWords(record, ['code', 'message']) ?? vendorWords(record, ['error']) ?? `answered ${answer.status}`;
  const field = (record as { details?: { api_name?: unknown } } | undefined)?.details?.api_name;
  return new VendorError(`${VENDOR} ${doing}: ${words}${typeof field === 'string' ? ` (${field})` : ''}`, answer.status);
}

/**
 * An access token from the refresh token (`zhAccessToken` holds the refresh token a self client's grant gave): Zoho's
 * accounts server, grant_type=refresh_token, cached for its `expires_in`.
 */
async function accessToken(creds: Credentials, deps: VendorDeps): Promise<string> {
  const key = tokenKey('zoho', creds, CREDENTIALS);
  const cached = deps.tokens.get(key, deps.clock.now()) as string | undefined;
  if (cached) return cached;
  const answer = await callVendor({
    method: 'POST',
    url: `${deps.config.zohoAccountsUrl}/oauth/v2/token`,
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: creds.zhClientId ?? '',
      client_secret: creds.zhClientSecret ?? '',
      refresh_token: creds.zhAccessToken ?? '',
    }),
    timeoutMs: deps.config.timeoutMs,
    allowPrivate: deps.allowPrivate,
    vendor: VENDOR,
  });
  const json = answer.json as { access_token?: unknown; expires_in?: unknown; error?: unknown } | undefined;
  // Zoho answers a refused refresh with 200 and an `error` (invalid_code, invalid_client).
  if (answer.status !== 200 || typeof json?.access_token !== 'string') {
    if (answer.status === 429) throw rateLimited(VENDOR, answer, deps.clock.now());
    const words = typeof json?.error === 'string' ? json.error : `answered ${answer.status}`;
    throw new VendorError(`${VENDOR} refused the refresh token (check zhClientId, zhClientSecret and zhAccessToken): ${words}`, answer.status);
  }
  const lifeSec = typeof json.expires_in === 'number' ? json.expires_in : 3600;
  // A minute early, so a token is never sent in its last seconds.
  deps.tokens.set(key, json.access_token, deps.clock.now() + Math.max(60, lifeSec - 60) * 1000);
  return json.access_token;
}

const tokenExpired = (answer: VendorAnswer) => answer.status === 401 && vendorWords(answer.json, ['code']) === 'INVALID_TOKEN';

/** One API call; an expired access token (401 INVALID_TOKEN) is refreshed once. */
async function api(creds: Credentials, deps: VendorDeps, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<VendorAnswer> {
  for (let attempt = 1; ; attempt++) {
    const token = await accessToken(creds, deps);
    const org = (creds.zhOrgId ?? '').trim();
    const answer = await callVendor({
      method,
      url: `${deps.config.zohoApiUrl}/crm/v7${path}`,
      headers: { authorization: `Zoho-oauthtoken ${token}`, ...(org ? { 'x-crm-org': org } : {}) },
      body,
      timeoutMs: deps.config.timeoutMs,
      allowPrivate: deps.allowPrivate,
      vendor: VENDOR,
    });
    if (!tokenExpired(answer) || attempt > 1) return answer;
    deps.tokens.drop(tokenKey('zoho', creds, CREDENTIALS));
  }
}

function record(lead: CrmLead) {
  return {
    First_Name: lead.firstName,
    Last_Name: lead.lastName,
    Email: lead.email,
    ...(lead.phone ? { Phone: lead.phone } : {}),
    Lead_Source: lead.source,
    Lead_Status: STATUS[lead.status] ?? STATUS.new,
    Description: leadDescription(lead),
  };
}

/** The record's outcome in a 2xx answer: `data[0].status` is `success`, or the record was refused. */
function recordOutcome(answer: VendorAnswer, doing: string, now: number): { id?: string } {
  const first = (answer.json as { data?: { status?: unknown; details?: { id?: unknown } }[] } | undefined)?.data?.[0];
  if (answer.status < 200 || answer.status > 299 || first?.status !== 'success') throw failure(answer, doing, now);
  const id = first.details?.id;
  return typeof id === 'string' || typeof id === 'number' ? { id: String(id) } : {};
}

export const zoho: Connector = {
  name: 'zoho',
  label: VENDOR,
  fields: ['zhClientId', 'zhClientSecret', 'zhAccessToken', 'zhOrgId'],
  required: CREDENTIALS,
  async test(creds, deps) {
    const answer = await api(creds, deps, 'GET', '/org');
    if (answer.status !== 200) throw failure(answer, 'did not show the organisation', deps.clock.now());
  },
  crm: {
    async create(creds, lead, deps) {
      const answer = await api(creds, deps, 'POST', '/Leads', { data: [record(lead)], trigger: ['workflow'] });
      const { id } = recordOutcome(answer, 'refused the lead', deps.clock.now());
      if (!id) throw new VendorError(`${VENDOR} created the lead but answered no id`, answer.status);
      return id;
    },
    async update(creds, externalId, lead, deps) {
      const answer = await api(creds, deps, 'PUT', `/Leads/${encodeURIComponent(externalId)}`, { data: [record(lead)], trigger: ['workflow'] });
      recordOutcome(answer, 'refused the update', deps.clock.now());
    },
  },
};
