import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { RetryAfter, type Outbox } from '../../outbox/outbox.ts';
import { toMajor } from '../deposits/amounts.ts';
import { findLead, recordSentTo, type LeadRow } from '../leads/leads.repo.ts';
import { complete, INTEGRATION_NAMES, TokenCache, type Connector, type CrmLead, type IntegrationName, type VendorDeps } from './connector.ts';
import { CONNECTORS } from './connectors.ts';
import { findWorksheetToPush } from '../worksheets/worksheets.repo.ts';
import { claimPush, findProjectSettings, keepExternalId, recordFailure, recordSuccess, releasePush, type PushSubject } from './integrations.repo.ts';
import { credentialsOf } from './credentials.ts';
import { scrub, VendorError } from './vendor-http.ts';

type Q = Kysely<Database>;

export const CRM_KIND = 'crm-push';
/** About 30 s, 2 min, 10 min, 30 min, then hourly, for 3 days after the lead's change. */
export const CRM_RETRY_DELAYS_SEC = [30, 120, 600, 1800, 3600] as const;
const GIVE_UP_SEC = 3 * 24 * 3600;

/** One push: a lead's, or a worksheet's (`worksheetId`; pushed as a lead with source `worksheet`). */
export type CrmJob = ({ leadId: string } | { worksheetId: string }) & { integration: IntegrationName };

/** The push could not start: another push of the same lead to the same CRM holds its claim. */
class Busy extends Error {}

const CRMS = INTEGRATION_NAMES.map((n) => CONNECTORS[n]).filter((c) => c.crm !== undefined);

/**
 * Pushes leads to the project's CRMs through the outbox. `queue` runs in the transaction that creates or changes the
 * lead, so a lead's 201 never waits for a vendor; each CRM's push is its own job with its own retries. A push sends the
 * lead as it is when it runs (created at the vendor the first time, updated after), one at a time per lead and CRM on
 * any node (a claim in `crm_pushes`); the vendor's id is kept as soon as it answers, so a lead is never created twice.
 */
export class CrmPusher {
  readonly #tokens = new TokenCache();
  constructor(private readonly deps: { db: Q; clock: Clock; secrets: SecretBox; config: Config; outbox: Outbox; log: FastifyBaseLogger }) {}

  /** What a connector reaches its vendor with. */
  get vendorDeps(): VendorDeps {
    const { config, clock } = this.deps;
    return { config: config.integrations, clock, allowPrivate: config.allowPrivateTargets, tokens: this.#tokens };
  }

  /** The longest a push may take: a token, the call and a link, each bounded by INTEGRATION_TIMEOUT_MS. */
  get #timeoutSec() {
    return Math.ceil((4 * this.deps.config.integrations.timeoutMs) / 1000) + 5;
  }

  register() {
    this.deps.outbox.register<CrmJob>({
      name: CRM_KIND,
      retryDelaysSec: CRM_RETRY_DELAYS_SEC,
      giveUpAfterSec: GIVE_UP_SEC,
      timeoutSec: this.#timeoutSec,
      handle: (job) => this.#push(job),
    });
  }

  /** In the lead's transaction: a job per CRM whose credentials the project has complete. Answers how many. */
  queue(trx: Q, projectId: string, leadId: string): Promise<number> {
    return this.#queue(trx, projectId, { leadId });
  }

  /** In the worksheet's transaction: as `queue`, for a worksheet a realtor submitted. */
  queueWorksheet(trx: Q, projectId: string, worksheetId: string): Promise<number> {
    return this.#queue(trx, projectId, { worksheetId });
  }

  async #queue(trx: Q, projectId: string, subject: PushSubject): Promise<number> {
    const project = await findProjectSettings(trx, projectId);
    if (!project) return 0;
    let n = 0;
    for (const crm of CRMS) {
      if (!complete(crm, credentialsOf(crm, project, this.deps.secrets))) continue;
      await this.deps.outbox.enqueue(trx, CRM_KIND, { ...subject, integration: crm.name } satisfies CrmJob);
      n++;
    }
    return n;
  }

  /** After the lead's transaction commits: look at once. */
  wake() {
    this.deps.outbox.wake();
  }

  /** The lead or worksheet as the CRM is sent it, with its project; undefined when it is gone (erased meanwhile). */
  async #subject(job: CrmJob): Promise<{ projectId: string; sent: (projectName: string) => CrmLead } | undefined> {
    const { db } = this.deps;
    if ('worksheetId' in job) {
      const ws = await findWorksheetToPush(db, job.worksheetId);
      return ws && { projectId: ws.project_id, sent: (name) => worksheetCrmLead(ws, name) };
    }
    const lead = await findLead(db, job.leadId);
    return lead && { projectId: lead.project_id, sent: (name) => toCrmLead(lead, name) };
  }

  async #push(job: CrmJob): Promise<void> {
    const { db, clock, secrets } = this.deps;
    const connector: Connector = CONNECTORS[job.integration];
    const crm = connector.crm;
    const subject: PushSubject = 'worksheetId' in job ? { worksheetId: job.worksheetId } : { leadId: job.leadId };
    const found = await this.#subject(job);
    // Erased meanwhile (retention, a buyer's request), or no longer a CRM: nothing to send.
    if (!found || !crm) return;
    const project = await findProjectSettings(db, found.projectId);
    if (!project) return;
    const creds = credentialsOf(connector, project, secrets);
    // Credentials removed since the lead changed: the integration no longer acts.
    if (!complete(connector, creds)) return;
    const now = clock.now();
    const claim = await claimPush(db, subject, connector.name, new Date(now), new Date(now + this.#timeoutSec * 1000));
    if (!claim) throw new Busy(`another push of this ${'leadId' in subject ? 'lead' : 'worksheet'} to ${connector.label} is under way`);
    const deps = this.vendorDeps;
    try {
      const sent = found.sent(project.name);
      let externalId = claim.external_id;
      if (externalId === null) {
        externalId = await crm.create(creds, sent, deps);
        await keepExternalId(db, subject, connector.name, externalId, new Date(clock.now()));
      } else {
        await crm.update(creds, externalId, sent, deps);
      }
      await crm.attach?.(creds, externalId, deps);
      const at = new Date(clock.now());
      if ('leadId' in subject) await recordSentTo(db, subject.leadId, { integration: connector.name, at: at.toISOString(), externalId });
      await recordSuccess(db, project.id, connector.name, at);
    } catch (err) {
      if (!(err instanceof VendorError)) throw err;
      const words = scrub(err.message, Object.values(creds));
      await recordFailure(db, project.id, connector.name, words, new Date(clock.now()), err.status === 429);
      throw err.retryAfterSec ? new RetryAfter(words, err.retryAfterSec) : new Error(words);
    } finally {
      await releasePush(db, subject, connector.name);
    }
  }
}

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/** The lead as a CRM is sent it. */
export function toCrmLead(lead: LeadRow, projectName: string): CrmLead {
  const d = lead.data;
  const utm = (d.utm && typeof d.utm === 'object' ? d.utm : {}) as Record<string, unknown>;
  const phone = text(d.phone);
  const message = text(d.message);
  const unit = text(d.unit);
  const pick = (k: string) => (text(utm[k]) ? { [k]: text(utm[k]) } : {});
  const booking = d.booking && typeof d.booking === 'object' ? (d.booking as Record<string, unknown>) : undefined;
  const visitAt = text(booking?.startTime);
  return {
    id: lead.id,
    projectName,
    firstName: text(d.firstName) ?? '',
    lastName: text(d.lastName) ?? '',
    email: text(d.email) ?? '',
    ...(phone ? { phone } : {}),
    ...(message ? { message } : {}),
    ...(unit ? { unit } : {}),
    source: text(d.source) ?? 'presentation',
    utm: { ...pick('source'), ...pick('medium'), ...pick('campaign'), ...pick('term'), ...pick('content') },
    status: lead.status,
    notes: lead.notes,
    ...depositOf(d.deposit),

    ...(booking ? { booking: { status: text(booking.status) ?? 'booked', ...(visitAt ? { startTime: visitAt } : {}) } } : {}),
    createdAt: lead.created_at.toISOString(),
  };
}

/** The deposit a lead carries (its hold's), as the CRMs are told of it. */
function depositOf(v: unknown): Pick<CrmLead, 'deposit'> {
  const d = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  const status = text(d.status);
  const currency = text(d.currency);
  if (!status || !currency || typeof d.amount !== 'number') return {};
  return { deposit: { status, amount: toMajor(d.amount, currency), currency: currency.toUpperCase() } };
}

/**
 * A worksheet as a lead: the buyer, source `worksheet`, the realtor's allocation and e-mail and the units chosen (by
 * name, in the buyer's order) in the message, status `new` (the sales team decides it in the worksheet inbox).
 */
export function worksheetCrmLead(
  ws: { id: string; allocation: string; buyer: unknown; notes: string | null; realtor_email: string | null; choice_names: string[]; created_at: Date | string },
  projectName: string,
): CrmLead {
  const buyer = (ws.buyer ?? {}) as Record<string, unknown>;
  const phone = text(buyer.phone);
  const message = [`Worksheet from ${ws.allocation}${ws.realtor_email ? ` (${ws.realtor_email})` : ''}: ${ws.choice_names.join(', ')}`, ws.notes ?? undefined]
    .filter((l) => l)
    .join('\n');
  const unit = ws.choice_names[0];
  return {
    id: ws.id,
    projectName,
    firstName: text(buyer.firstName) ?? '',
    lastName: text(buyer.lastName) ?? '',
    email: text(buyer.email) ?? '',
    ...(phone ? { phone } : {}),
    message,
    ...(unit ? { unit } : {}),
    source: 'worksheet',
    utm: {},
    status: 'new',
    notes: null,
    createdAt: new Date(ws.created_at).toISOString(),
  };
}
