import type { Ctx } from '../context.ts';
import { notFound } from '../http/errors.ts';
import { isBot } from '../modules/insights/bots.ts';
import { EventsBlockList } from '../modules/insights/blocklist.ts';
import { findEventsProject, recordEvent } from '../modules/insights/ingest.repo.ts';
import type { EventInput } from '../modules/insights/insights.schemas.ts';
import { VisitorHasher } from '../modules/insights/visitors.ts';
import { ERRORS } from '../http/errors.catalogue.ts';

/** How long a node trusts what it read of a project (its id and block list): a changed block list applies within this. */
const PROJECT_TTL_MS = 10_000;
const MAX_CACHED = 1000;

interface EventsProject {
  id: string;
  blockList: EventsBlockList;
  until: number;
}

export type Counted = 'counted' | 'bot' | 'blocked';

/**
 * POST /public/events: one page event, counted in the day's totals. The project is read once per PROJECT_TTL_MS per
 * node; the event, the visitor's day and the daily totals are then one statement.
 */
export class EventIngest {
  readonly #projects = new Map<string, EventsProject>();
  readonly #hasher: VisitorHasher;

  constructor(private readonly ctx: Pick<Ctx, 'db' | 'clock'>) {
    this.#hasher = new VisitorHasher(ctx.db.kysely, ctx.clock);
  }

  async record(input: EventInput, client: { address: string; userAgent: string | undefined }): Promise<Counted> {
    const project = await this.#project(input.namespace);
    // Accepted either way (a bot or a listed address learns nothing), but not counted.
    if (isBot(client.userAgent)) return 'bot';
    if (project.blockList.hasAddress(client.address)) return 'blocked';
    const now = this.ctx.clock.now();
    const { day, hash } = await this.#hasher.visitor(project.id, client.address, client.userAgent ?? '');
    const referrer = hostOf(input.referrer);
    const utm = input.utm ?? {};
    const ok = await recordEvent(this.ctx.db.kysely, {
      projectId: project.id,
      day,
      at: new Date(now),
      visitor: hash,
      type: input.type,
      unitId: input.unit ?? null,
      path: input.path ? input.path.replace(/[?#].*$/s, '') || '/' : null,
      referrer,
      utmSource: utm.source?.trim() || null,
      utmMedium: utm.medium?.trim() || null,
      utmCampaign: utm.campaign?.trim() || null,
      source: (utm.source?.trim().toLowerCase() || referrer || 'direct').slice(0, 200),
    });
    if (!ok) throw ERRORS.invalidBody('unit is not a unit of this project', { errors: [{ path: '/unit', message: 'is not a unit of this project' }] });
    return 'counted';
  }

  async #project(namespace: string): Promise<EventsProject> {
    const now = this.ctx.clock.now();
    const cached = this.#projects.get(namespace);
    if (cached && cached.until > now) return cached;
    const row = await findEventsProject(this.ctx.db.kysely, namespace);
    if (!row) {
      this.#projects.delete(namespace);
      throw notFound('Presentation');
    }
    if (this.#projects.size >= MAX_CACHED) this.#projects.clear();
    const project = { id: row.id, blockList: new EventsBlockList(row.block_list), until: now + PROJECT_TTL_MS };
    this.#projects.set(namespace, project);
    return project;
  }
}

/** The referring page's host, lower-case and without `www.`; nothing else of the address is kept. */
function hostOf(referrer: string | undefined): string | null {
  if (!referrer) return null;
  try {
    const host = new URL(referrer).hostname.toLowerCase().replace(/^www\./, '');
    return host || null;
  } catch {
    return null;
  }
}
