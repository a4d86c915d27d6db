import type { Connector, Credentials, CrmLead, VendorDeps } from './connector.ts';
import { leadDescription, tokenKey, vendorWords } from './crm-text.ts';
import { callVendor, rateLimited, VendorError, type VendorAnswer } from './vendor-http.ts';

const VENDOR = 'Salesforce';
/** The REST API version the calls are written against. */
export const SALESFORCE_API = 'v62.0';
/** Salesforce's token answer has no lifetime; a session lasts at least this long (its shortest timeout is 15 min, refreshed on 401). */
const TOKEN_CACHE_MS = 15 * 60 * 1000;
const CREDENTIALS = ['sfKey', 'sfSecret'] as const;

interface Session {
  accessToken: string;
  instanceUrl: string;
}

/** The sales team's statuses as Salesforce's default Lead Status values. */
const STATUS: Record<string, string> = {
  new: 'Open - Not Contacted',
  contacted: 'Working - Contacted',
  qualified: 'Working - Contacted',
  lost: 'Closed - Not Converted',
};

function failure(answer: VendorAnswer, doing: string, now: number): VendorError {
  if (answer.status === 429) return rateLimited(VENDOR, answer, now);
  const words = vendorWords(answer.json, ['errorCode', 'message']) ?? vendorWords(answer.json, ['error', 'error_description']) ?? `answered ${answer.status}`;
  if (words.startsWith('REQUEST_LIMIT_EXCEEDED')) return new VendorError(`${VENDOR} ${doing}: ${words}`, answer.status, 3600);
  return new VendorError(`${VENDOR} ${doing}: ${words}`, answer.status);
}

/** OAuth 2.0 client credentials: the connected app's consumer key and secret for an access token and the org's address. */
async function session(creds: Credentials, deps: VendorDeps): Promise<Session> {
  const key = tokenKey('salesforce', creds, CREDENTIALS);
  const cached = deps.tokens.get(key, deps.clock.now()) as Session | undefined;
  if (cached) return cached;
  const answer = await callVendor({
    method: 'POST',
    url: `${deps.config.salesforceLoginUrl}/services/oauth2/token`,
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: creds.sfKey ?? '', client_secret: creds.sfSecret ?? '' }),
    timeoutMs: deps.config.timeoutMs,
    allowPrivate: deps.allowPrivate,
    vendor: VENDOR,
  });
  if (answer.status !== 200)
    throw failure(answer, 'refused the connected app (check sfKey and sfSecret, and that the app allows the client credentials flow)', deps.clock.now());
  const json = answer.json as { access_token?: unknown; instance_url?: unknown } | undefined;
  if (typeof json?.access_token !== 'string' || typeof json.instance_url !== 'string')
    throw new VendorError(`${VENDOR} answered no access token`, answer.status);
  const s = { accessToken: json.access_token, instanceUrl: json.instance_url.replace(/\/+$/, '') };
  deps.tokens.set(key, s, deps.clock.now() + TOKEN_CACHE_MS);
  return s;
}

const sessionExpired = (answer: VendorAnswer) => answer.status === 401 && vendorWords(answer.json, ['errorCode']) === 'INVALID_SESSION_ID';

/** One REST call with the cached session; an expired session (401 INVALID_SESSION_ID) is fetched again once. */
async function rest(creds: Credentials, deps: VendorDeps, method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<VendorAnswer> {
  for (let attempt = 1; ; attempt++) {
    const s = await session(creds, deps);
    const answer = await callVendor({
      method,
      url: `${s.instanceUrl}/services/data/${SALESFORCE_API}${path}`,
      headers: { authorization: `Bearer ${s.accessToken}` },
      body,
      timeoutMs: deps.config.timeoutMs,
      allowPrivate: deps.allowPrivate,
      vendor: VENDOR,
    });
    if (!sessionExpired(answer) || attempt > 1) return answer;
    deps.tokens.drop(tokenKey('salesforce', creds, CREDENTIALS));
  }
}

function leadFields(lead: CrmLead) {
  return {
    FirstName: lead.firstName,
    LastName: lead.lastName,
    // Required on a Lead; a buyer is a person, so their name.
    Company: `${lead.firstName} ${lead.lastName}`.trim(),
    Email: lead.email,
    ...(lead.phone ? { Phone: lead.phone } : {}),
    LeadSource: lead.source,
    Status: STATUS[lead.status] ?? STATUS.new,
    Description: leadDescription(lead),
  };
}

/** `sfProjectId` names a Campaign: the lead becomes its member (already one: nothing to do). */
async function attach(creds: Credentials, leadId: string, deps: VendorDeps): Promise<void> {
  const campaign = (creds.sfProjectId ?? '').trim();
  if (!campaign) return;
  const answer = await rest(creds, deps, 'POST', '/sobjects/CampaignMember', { CampaignId: campaign, LeadId: leadId });
  if (answer.status === 201) return;
  if (answer.status === 400 && vendorWords(answer.json, ['errorCode']) === 'DUPLICATE_VALUE') return;
  throw failure(answer, `did not add the lead to campaign ${campaign} (sfProjectId)`, deps.clock.now());
}

export const salesforce: Connector = {
  name: 'salesforce',
  label: VENDOR,
  fields: ['sfKey', 'sfSecret', 'sfProjectId'],
  required: CREDENTIALS,
  async test(creds, deps) {
    const answer = await rest(creds, deps, 'GET', '/sobjects/Lead');
    if (answer.status !== 200) throw failure(answer, 'did not describe Leads', deps.clock.now());
  },
  crm: {
    async create(creds, lead, deps) {
      const answer = await rest(creds, deps, 'POST', '/sobjects/Lead', leadFields(lead));
      if (answer.status !== 201) throw failure(answer, 'refused the lead', deps.clock.now());
      const id = (answer.json as { id?: unknown } | undefined)?.id;
      if (typeof id !== 'string') throw new VendorError(`${VENDOR} created the lead but answered no id`, answer.status);
      return id;
    },
    async update(creds, externalId, lead, deps) {
      const answer = await rest(creds, deps, 'PATCH', `/sobjects/Lead/${encodeURIComponent(externalId)}`, leadFields(lead));
      if (answer.status !== 204 && answer.status !== 200) throw failure(answer, 'refused the update', deps.clock.now());
    },
    attach,
  },
};
