import { createHash } from 'node:crypto';
import type { CrmLead, Credentials } from './connector.ts';

/** The lead's message, how it came (source, unit, UTM) and the team's notes, as lines for a CRM's free-text field. */
export function leadDescription(lead: CrmLead): string {
  const utm = Object.entries(lead.utm)
    .filter(([, v]) => v)
    .map(([k, v]) => `utm_${k}=${v}`)
    .join(' ');
  return [
    lead.message,
    `Source: ${lead.source}${lead.unit ? `; unit ${lead.unit}` : ''} (Showsuite lead ${lead.id}, ${lead.projectName})`,
    lead.booking ? `Visit: ${lead.booking.startTime ?? 'time not given'} (${lead.booking.status}, Cal.com)` : undefined,
    utm ? `Campaign: ${utm}` : undefined,
    lead.deposit ? `Deposit: ${lead.deposit.status}, ${lead.deposit.amount} ${lead.deposit.currency}` : undefined,
    lead.notes ? `Notes: ${lead.notes}` : undefined,
  ]
    .filter((l) => l)
    .join('\n');
}

/** A token cache key for one project's credentials: a change of any credential is another key. */
export const tokenKey = (integration: string, creds: Credentials, fields: readonly string[]) =>
  `${integration}:${createHash('sha256')
    .update(JSON.stringify(fields.map((f) => creds[f] ?? '')))
    .digest('base64url')}`;

/** The vendor's own words from an error answer: the first of the keys it uses that holds text. */
export function vendorWords(json: unknown, keys: readonly string[]): string | undefined {
  const first = Array.isArray(json) ? (json[0] as unknown) : json;
  if (!first || typeof first !== 'object') return undefined;
  const record = first as Record<string, unknown>;
  const words = keys.map((k) => record[k]).filter((v): v is string => typeof v === 'string' && v !== '');
  return words.length ? words.join(': ') : undefined;
}
