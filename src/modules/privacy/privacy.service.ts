import { createHmac } from 'node:crypto';
import { readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Ctx } from '../../context.ts';
import type { Principal } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import type { Mail } from '../../mail/mailer.ts';
import { MAIL_KIND } from '../../mail/mail.ts';
import { recordAudit } from '../audit/audit.repo.ts';
import { redactPersonalEvents, toEvent } from '../events/events.repo.ts';
import { findLeadWithTeam, toLead } from '../leads/leads.repo.ts';
import { findProjectMembership } from '../projects/projects.repo.ts';
import { authorize } from '../shared/access.ts';
import { parseIfMatch } from '../shared/records.ts';
import { deleteWorksheets, toWorksheet } from '../worksheets/worksheets.repo.ts';
import { deleteJobs, mailJobsPage } from '../../outbox/outbox.repo.ts';
import { forgetPublicAnswers } from '../shared/idempotency.repo.ts';
import {
  eraseLeads,
  findBuyerLeads,
  findBuyerWorksheets,
  findEventDeliveries,
  findLeadHolds,
  findLeadsBefore,
  findPersonalEvents,
  leadProjects,
  type ProjectScope,
} from './privacy.repo.ts';

const MAIL_PAGE = 500;
const RETENTION_BATCH = 500;

/** A stored message about the buyer: what the export shows of it. */
interface BuyerMail {
  id: string;
  key: string;
  state: string;
  mail: Mail;
}

/**
 * A buyer's data: everything held about one e-mail address, exported as one document or erased, by the owner
 * or an administrator of the projects it was left with (a service administrator: every project); each logged.
 * Also DELETE /leads/{id} and the leads retention.
 */
export class PrivacyService {
  constructor(private readonly ctx: Pick<Ctx, 'db' | 'clock' | 'config' | 'secrets'>) {}

  /** Which projects the request covers: `project` alone (its owner or administrators), or all the caller's. */
  async #scope(principal: Principal, project: string | undefined): Promise<ProjectScope> {
    const db = this.ctx.db.kysely;
    if (project !== undefined) {
      authorize(principal, await findProjectMembership(db, project), 'read-leads');
      return { ids: [project] };
    }
    return principal.role === 'admin' ? { all: true } : { ids: await leadProjects(db, principal.id) };
  }

  /** The address as a keyed digest: the audit log says which request it was without keeping the address. */
  #digest(email: string): string {
    return createHmac('sha256', this.ctx.config.secretKey).update('showsuite buyer address v1\u0000').update(email).digest('base64url').slice(0, 22);
  }

  async #gather(email: string, scope: ProjectScope) {
    const db = this.ctx.db.kysely;
    const leads = await findBuyerLeads(db, email, scope);
    const worksheets = await findBuyerWorksheets(db, email, scope);
    const leadIds = leads.map((l) => l.id);
    const holds = await findLeadHolds(db, leadIds);
    const events = await findPersonalEvents(db, [...leadIds, ...worksheets.map((w) => w.id)]);
    const deliveries = await findEventDeliveries(
      db,
      events.map((e) => e.id),
    );
    const mail = await this.#mail(email, scope);
    return { leads, worksheets, holds, events, deliveries, mail };
  }

  /** Stored mail (queued, sent or given up) to or about the address, of the projects in scope. */
  async #mail(email: string, scope: ProjectScope): Promise<BuyerMail[]> {
    const found: BuyerMail[] = [];
    let after = '';
    for (;;) {
      const page = await mailJobsPage(this.ctx.db.kysely, MAIL_KIND, after, MAIL_PAGE);
      for (const job of page) {
        const mail = this.#open(job.sealed);
        if (!mail || !JSON.stringify(mail).toLowerCase().includes(email)) continue;
        if (!('all' in scope) && (mail.project === undefined || !scope.ids.includes(mail.project))) continue;
        found.push({ id: job.id, key: job.key, state: job.state, mail });
      }
      const last = page.at(-1);
      if (!last || page.length < MAIL_PAGE) return found;
      after = last.id;
    }
  }

  #open(sealed: string | null): Mail | null {
    if (!sealed) return null;
    try {
      return JSON.parse(this.ctx.secrets.open(sealed)) as Mail | null;
    } catch {
      return null; // sealed under a key no longer known: nothing can be read from it
    }
  }

  /** Everything held about `email` in the projects the caller may read leads of, as one document. */
  async export(principal: Principal, emailIn: string, project: string | undefined) {
    const email = emailIn.trim().toLowerCase();
    const scope = await this.#scope(principal, project);
    const data = await this.#gather(email, scope);
    const now = new Date(this.ctx.clock.now());
    const waitlisted = (l: { data: Record<string, unknown> }) => l.data.source === 'waitlist';
    const document = {
      email,
      exportedAt: now.toISOString(),
      leads: data.leads.filter((l) => !waitlisted(l)).map(toLead),
      waitlist: data.leads.filter(waitlisted).map(toLead),
      holds: data.holds.map((h) => ({
        _id: h.id,
        project: h.project_id,
        unit: h.unit_id,
        lead: h.lead_id,
        createdAt: h.created_at.toISOString(),
        extendedAt: h.extended_at ? new Date(h.extended_at).toISOString() : null,
        releasedAt: h.released_at ? new Date(h.released_at).toISOString() : null,
      })),
      worksheets: data.worksheets.map(toWorksheet),
      mail: data.mail.map(({ key, state, mail }) => ({
        _id: key,
        state,
        to: mail.to,
        subject: mail.subject,
        date: new Date(mail.date).toISOString(),
        text: mail.text,
      })),
      events: data.events.map((e) => toEvent(e)),
      webhookDeliveries: data.deliveries.map((d) => ({
        _id: d.id,
        webhook: d.webhook_id,
        event: d.event_id,
        seq: Number(d.seq),
        status: d.status,
        createdAt: d.created_at.toISOString(),
        deliveredAt: d.delivered_at ? d.delivered_at.toISOString() : null,
      })),
    };
    await recordAudit(this.ctx.db.kysely, {
      actor: principal,
      action: 'buyer_data_exported',
      projectId: project ?? null,
      detail: { address: this.#digest(email), ...counts(document) },
      at: now,
    });
    return document;
  }

  /**
   * Erases what is held about `email` in one transaction: leads and waitlist entries deleted (their ended holds with
   * them), worksheets deleted, events about them redacted (a pending webhook delivery then sends the redacted event),
   * stored mail deleted (a queued message is never sent), stored answers of public forms forgotten; then the mail
   * files written without SMTP. Insights hold no address and are left as they are.
   */
  async erase(principal: Principal, emailIn: string, project: string | undefined) {
    const email = emailIn.trim().toLowerCase();
    const scope = await this.#scope(principal, project);
    const data = await this.#gather(email, scope);
    const now = new Date(this.ctx.clock.now());
    const leadIds = data.leads.map((l) => l.id);
    const erased = await this.ctx.db.kysely.transaction().execute(async (trx) => {
      const worksheetEvents = await eraseLeadsAndWorksheets(
        trx,
        leadIds,
        data.worksheets.map((w) => w.id),
      );
      const mail = await deleteJobs(
        trx,
        data.mail.map((m) => m.id),
      );
      const answers = 'all' in scope || leadIds.length ? await forgetPublicAnswers(trx, email) : 0;
      const result = {
        leads: data.leads.filter((l) => l.data.source !== 'waitlist').length,
        waitlist: data.leads.filter((l) => l.data.source === 'waitlist').length,
        holds: data.holds.length,
        worksheets: worksheetEvents.worksheets,
        events: worksheetEvents.events,
        webhookDeliveries: data.deliveries.length,
        mail,
        storedAnswers: answers,
      };
      await recordAudit(trx, {
        actor: principal,
        action: 'buyer_data_erased',
        projectId: project ?? null,
        detail: { address: this.#digest(email), ...result },
        at: now,
      });
      return result;
    });
    await this.#forgetMailFiles(
      email,
      data.mail.map((m) => m.key),
      'all' in scope,
    );
    return { erased };
  }

  /** Without SMTP_URL each message is also a file: those of the erased jobs go, and for a service-wide erasure any naming the address. */
  async #forgetMailFiles(email: string, keys: string[], everyFile: boolean) {
    if (this.ctx.config.mail.smtpUrl) return;
    const dir = join(this.ctx.config.dataDir, 'mail');
    const names = new Set(keys.map((k) => `${k}.eml`));
    if (everyFile) {
      const files = await readdir(dir).catch(() => [] as string[]);
      for (const name of files) {
        if (!name.endsWith('.eml') || names.has(name)) continue;
        const text = await readFile(join(dir, name), 'utf8').catch(() => '');
        if (text.toLowerCase().includes(email)) names.add(name);
      }
    }
    for (const name of names) await unlink(join(dir, name)).catch(() => undefined);
  }

  /** DELETE /leads/{id}: the lead goes, with its ended holds; its events are redacted. Owner and administrators. */
  async deleteLead(principal: Principal, id: string, ifMatch: string | undefined): Promise<void> {
    const db = this.ctx.db.kysely;
    const { row } = authorize(principal, await findLeadWithTeam(db, id), 'read-leads', 'Lead');
    parseIfMatch(ifMatch, row.version);
    await db.transaction().execute(async (trx) => {
      const { leads } = await eraseLeads(trx, [id]);
      if (!leads) throw notFound('Lead');
      await recordAudit(trx, { actor: principal, action: 'lead_deleted', subjectId: id, projectId: row.project_id, at: new Date(this.ctx.clock.now()) });
    });
  }

  /** LEADS_RETENTION_MONTHS: leads older than that are erased as DELETE /leads/{id} would, a batch at a time. */
  async pruneLeads(): Promise<number> {
    const months = this.ctx.config.leadsRetentionMonths;
    if (!months) return 0;
    const cutoff = new Date(this.ctx.clock.now());
    cutoff.setUTCMonth(cutoff.getUTCMonth() - months);
    const byProject = new Map<string, number>();
    for (;;) {
      const rows = await findLeadsBefore(this.ctx.db.kysely, cutoff, RETENTION_BATCH);
      if (!rows.length) break;
      await this.ctx.db.kysely.transaction().execute((trx) =>
        eraseLeads(
          trx,
          rows.map((r) => r.id),
        ),
      );
      for (const r of rows) byProject.set(r.project_id, (byProject.get(r.project_id) ?? 0) + 1);
      if (rows.length < RETENTION_BATCH) break;
    }
    // One entry per project, so each owner reads what left their project.
    for (const [projectId, leads] of byProject) {
      await recordAudit(this.ctx.db.kysely, {
        actor: null,
        action: 'leads_expired',
        projectId,
        detail: { leads, olderThanMonths: months },
        at: new Date(this.ctx.clock.now()),
      });
    }
    let total = 0;
    for (const n of byProject.values()) total += n;
    return total;
  }
}

async function eraseLeadsAndWorksheets(trx: Parameters<typeof eraseLeads>[0], leadIds: string[], worksheetIds: string[]) {
  const { events } = await eraseLeads(trx, leadIds);
  const worksheetEvents = await redactPersonalEvents(trx, worksheetIds);
  const worksheets = await deleteWorksheets(trx, worksheetIds);
  return { events: events + worksheetEvents, worksheets };
}

function counts(document: Record<string, unknown>): Record<string, number> {
  return Object.fromEntries(Object.entries(document).flatMap(([k, v]) => (Array.isArray(v) ? [[k, v.length]] : [])));
}
