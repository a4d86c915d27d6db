import { availabilityReader } from '../inventory/import.fields.ts';
import type { Connector, Credentials, VendorDeps } from './connector.ts';
import { callVendor, rateLimited, VendorError, type VendorAnswer } from './vendor-http.ts';

const VENDOR = 'RENTCafé';

/** One apartment as RENTCafé's availability call lists it (the fields read; it sends more). */
export interface RentcafeApartment {
  ApartmentName?: unknown;
  UnitStatus?: unknown;
  AvailableDate?: unknown;
  MinimumRent?: unknown;
  MaximumRent?: unknown;
}

/**
 * RENTCafé statuses (Yardi Voyager's unit statuses as RENTCafé passes them on) read as ours when the project's
 * `yiStatusMapping` does not name them. A status named nowhere is a row error, as an unknown status in a file is.
 */
export const RENTCAFE_STATUS_DEFAULTS: Readonly<Record<string, string>> = {
  'vacant unrented ready': 'available',
  'vacant unrented not ready': 'available',
  'notice unrented': 'available',
  'vacant rented ready': 'leased',
  'vacant rented not ready': 'leased',
  'vacant rented': 'leased',
  'notice rented': 'leased',
  'occupied no notice': 'leased',
  occupied: 'leased',
  model: 'unavailable',
  down: 'unavailable',
  admin: 'unavailable',
};

/**
 * The apartment availability call: `GET {RENTCAFE_API_URL}/rentcafeapi.aspx?requestType=apartmentavailability` with
 * the API token, company code and property code as query parameters, as RENTCafé documents it (no header carries
 * them). `showallunit=1` asks for occupied apartments too, so a unit that was leased is seen as such.
 */
async function availabilityCall(creds: Credentials, deps: VendorDeps): Promise<VendorAnswer> {
  const url = new URL('/rentcafeapi.aspx', deps.config.rentcafeApiUrl.replace(/\/+$/, '') + '/');
  url.search = new URLSearchParams({
    requestType: 'apartmentavailability',
    apiToken: creds.yiApiToken ?? '',
    companyCode: creds.yiCompanyCode ?? '',
    propertyCode: creds.yiPropertyCode ?? '',
    showallunit: '1',
  }).toString();
  return callVendor({ method: 'GET', url: url.toString(), timeoutMs: deps.config.timeoutMs, allowPrivate: deps.allowPrivate, vendor: VENDOR });
}

/**
 * RENTCafé answers a refusal (a wrong token, company or property code) with HTTP 200 and `[{ "Error": "<code>" }]`;
 * other failures with an HTTP status. The code is shown as it comes; 1020 is the one integrators report for refused
 * credentials (RENTCafé's list of codes is not public).
 */
const ERROR_WORDS: Record<string, string> = {
  '1020': 'the API token, company code or property code was refused (check yiApiToken, yiCompanyCode, yiPropertyCode)',
};

function failure(answer: VendorAnswer, now: number): VendorError {
  if (answer.status === 429) return rateLimited(VENDOR, answer, now);
  if (answer.status === 401 || answer.status === 403)
    return new VendorError(`${VENDOR} refused the API token (${answer.status}): check yiApiToken`, answer.status);
  const code = errorCode(answer.json);
  if (code !== undefined)
    return new VendorError(`${VENDOR} refused the availability call: error ${code}${ERROR_WORDS[code] ? `, ${ERROR_WORDS[code]}` : ''}`, answer.status);
  if (answer.status >= 200 && answer.status < 300) return new VendorError(`${VENDOR} answered something other than a list of apartments`, answer.status);
  return new VendorError(`${VENDOR} answered ${answer.status}`, answer.status);
}

function errorCode(json: unknown): string | undefined {
  const first = Array.isArray(json) ? (json[0] as unknown) : json;
  if (!first || typeof first !== 'object') return undefined;
  const error = (first as Record<string, unknown>).Error;
  return typeof error === 'string' || typeof error === 'number' ? String(error) : undefined;
}

/** The property's apartments, or a VendorError in words. */
export async function rentcafeAvailability(creds: Credentials, deps: VendorDeps): Promise<RentcafeApartment[]> {
  const answer = await availabilityCall(creds, deps);
  const json = answer.json;
  if (answer.status !== 200 || !Array.isArray(json) || errorCode(json) !== undefined) throw failure(answer, deps.clock.now());
  return json.filter((a): a is RentcafeApartment => a !== null && typeof a === 'object' && !Array.isArray(a));
}

const cell = (v: unknown) => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');

/**
 * Our status of a RENTCafé status: the project's `yiStatusMapping` first (as for a file: each value one RENTCafé status
 * or several separated by commas, any case), our own status names, then RENTCAFE_STATUS_DEFAULTS. Unknown: the status
 * as RENTCafé wrote it (the import then reports it as a row error).
 */
export function rentcafeStatusReader(mapping: unknown): (status: string) => string {
  const read = availabilityReader(mapping && typeof mapping === 'object' ? (mapping as Record<string, string | undefined>) : {});
  return (status) => read(status) ?? RENTCAFE_STATUS_DEFAULTS[status.trim().toLowerCase()] ?? status;
}

/**
 * The apartments as import rows in the sales team's words: `Name` (the apartment's number, `ApartmentName`), `Status`
 * (its `UnitStatus` read as ours; without one, a listed apartment with an `AvailableDate` is available) and `Price`
 * (`MinimumRent`, else `MaximumRent`). An empty value leaves the unit's field as it is.
 */
export function rentcafeRows(apartments: readonly RentcafeApartment[], mapping: unknown): Record<string, string>[] {
  const statusOf = rentcafeStatusReader(mapping);
  return apartments.map((a) => {
    const status = cell(a.UnitStatus);
    const rent = [cell(a.MinimumRent), cell(a.MaximumRent)].find((r) => r !== '' && !/^\$?\s*0+(\.0+)?$/.test(r)) ?? '';
    return {
      Name: cell(a.ApartmentName),
      Status: status ? statusOf(status) : cell(a.AvailableDate) ? 'available' : '',
      Price: rent,
    };
  });
}

/**
 * Yardi RENTCafé: availability and prices pulled into the inventory through the import (RENTCAFE_API_URL): on the feed
 * schedule and on `POST /projects/{id}/integrations/rentcafe/sync`. The connection test is the availability call.
 */
export const rentcafe: Connector = {
  name: 'rentcafe',
  label: VENDOR,
  fields: ['yiApiToken', 'yiCompanyCode', 'yiPropertyCode', 'yiStatusMapping'],
  required: ['yiApiToken', 'yiCompanyCode', 'yiPropertyCode'],
  async test(creds, deps) {
    await rentcafeAvailability(creds, deps);
  },
};
