import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { compress, type Encoding } from '../http/encoding.ts';
import type { Database } from '../db/schema.ts';
import { isIntegrationField } from '../modules/projects/projects.schemas.ts';
import { hiddenSold, toUnit, type UnitRow } from '../modules/units/units.record.ts';
import { listBundleFloors, listBundleUnits, type BundleHead } from './bundle.repo.ts';
import { listAllocatedUnits } from '../modules/allocations/allocations.repo.ts';
import { allocatedAvailability, hasAllocations } from '../modules/allocations/allocated.ts';
import { bookingPageUrl } from '../modules/integrations/cal.ts';

type Q = Kysely<Database>;

/**
 * Project fields a visitor never sees, beyond the secrets, which are not in `data` at all.
 * Integration settings are matched by prefix, except the two a payment button needs.
 */
const PRIVATE = new Set(['formsSendTo', 'reportSendTo', 'allocations', 'invites', 'internalURL', 'plan', 'subscriptionItem', 'lastSync', 'eventsBlockList']);
const PUBLIC_INTEGRATION = new Set(['payProviderCurrency', 'payProviderDeposit']);
const GTM = new Set(['gtmHeadCode', 'gtmBodyCode']);

/**
 * The strong validator of a bundle: any write bumps content_version; a hold lapsing bumps `lapsed` (with no write,
 * the count only grows until the sweeper's write bumps content_version). The project id is part of it because a
 * namespace or host name can pass to a new project whose content_version starts again at 1: without the id, a
 * browser holding the old project's bundle would be told 304.
 */
export const bundleEtag = (head: Pick<BundleHead, 'id' | 'content_version' | 'lapsed'>) => `"${head.id}-${head.content_version}-${head.lapsed}"`;

/** What of the server's own settings a bundle shows: whether payments are on, and where Cal.com's booking pages are. */
export interface BundleSite {
  paymentsOn: boolean;
  calUrl?: string | undefined;
}

export function publicProject(head: BundleHead, site: BundleSite = { paymentsOn: false }): Record<string, unknown> {
  // Whether a hold may ask for a deposit here: the page says nothing of one otherwise.
  const out: Record<string, unknown> = { _id: head.id, name: head.name, deposits: site.paymentsOn && head.owner_payments };
  // "Book a visit": the Cal.com booking page of `calUsername` (the username itself stays among the integration's fields).
  const booking = site.calUrl ? bookingPageUrl(site.calUrl, head.data.calUsername) : undefined;
  if (booking) out.bookingUrl = booking;
  if (head.namespace !== null) out.namespace = head.namespace;
  if (head.host_name !== null) out.hostName = head.host_name;
  if (head.project_type !== null) out.projectType = head.project_type;
  // The page offers "Realtor access" only where there is something to open; the allocations themselves stay private.
  if (hasAllocations(head.data)) out.realtorAccess = true;
  const gtm = head.data.gtmEnabled === true;
  for (const [key, value] of Object.entries(head.data)) {
    if (PRIVATE.has(key) || (GTM.has(key) && !gtm)) continue;
    if (isIntegrationField(key) && !PUBLIC_INTEGRATION.has(key)) continue;
    out[key] = value;
  }
  return out;
}

/** A unit as a visitor sees it: expired holds as available, no price unless the project shows prices. */
export function publicUnit(row: UnitRow, settings: Record<string, unknown>, now: number): Record<string, unknown> {
  const unit = toUnit(row, now);
  if (settings.showPrices === false) delete unit.price;
  return unit;
}

const visibleUnit = (settings: Record<string, unknown>, unit: Record<string, unknown>) => !hiddenSold(settings, unit.availability);

/**
 * A unit as the bundle shows it with realtors' allocations: to the public, an allocated unit that is free reads
 * `unavailable`; to the allocation's own realtor (`viewer`), its units read as they are, marked `allocated: true`.
 */
export function allocatedView(unit: Record<string, unknown>, owner: string | undefined, viewer: string | undefined): Record<string, unknown> {
  if (owner === undefined) return unit;
  if (owner === viewer) unit.allocated = true;
  else unit.availability = allocatedAvailability(unit.availability);
  return unit;
}

/**
 * The whole presentation: public project fields, floors in position order, each with its units in order. `viewer`
 * is the allocation a token request opened, if any.
 */
export async function buildBundle(db: Q, head: BundleHead, now: number, viewer?: string, site: BundleSite = { paymentsOn: false }) {
  const settings = head.data;
  const [floors, units, allocated] = await Promise.all([
    listBundleFloors(db, head.id),
    listBundleUnits(db, head.id),
    hasAllocations(settings) ? listAllocatedUnits(db, head.id) : [],
  ]);
  const ownerOf = new Map(allocated.map((a) => [a.unit_id, a.allocation]));
  const byFloor = new Map<string | null, Record<string, unknown>[]>();
  // A hidden sold unit still occupies its room on the plan: its floor lists the room's shape only, so a page can
  // draw it as sold instead of a blank hole. Nothing names the unit: no id, no name, no details.
  const soldByFloor = new Map<string, string[]>();
  // Where each of those rooms stands in its floor's order (a position, nothing more), so a page draws it in its place.
  const soldPositions = new Map<string, number[]>();
  for (const row of units) {
    const unit = allocatedView(publicUnit(row, settings, now), ownerOf.get(row.id), viewer);
    if (!visibleUnit(settings, unit)) {
      if (row.floor_id !== null && typeof unit.path === 'string' && unit.path !== '') {
        const list = soldByFloor.get(row.floor_id) ?? [];
        list.push(unit.path);
        soldByFloor.set(row.floor_id, list);
        soldPositions.set(row.floor_id, [...(soldPositions.get(row.floor_id) ?? []), row.position]);
      }
      continue;
    }
    const list = byFloor.get(row.floor_id) ?? [];
    list.push(unit);
    byFloor.set(row.floor_id, list);
  }
  return {
    project: publicProject(head, site),
    floors: floors.map((f) => ({
      ...f.data,
      _id: f.id,
      project: head.id,
      name: f.name,
      position: f.position,
      units: byFloor.get(f.id) ?? [],
      ...(soldByFloor.has(f.id) ? { soldShapes: soldByFloor.get(f.id), soldPositions: soldPositions.get(f.id) } : {}),
    })),
    unassignedUnits: byFloor.get(null) ?? [],
  };
}

/** One version of a bundle as kept: its JSON bytes and the compressed copies asked for so far. */
interface Kept {
  body: Buffer;
  encoded: Partial<Record<Encoding, Buffer>>;
}

/**
 * Serialised bundles by project and validator: least recently used out first, bounded in bytes (compressed copies
 * counted); safe to lose. A compressed copy is made once per version, on the first request that takes it.
 */
export class BundleCache {
  readonly #entries: LRUCache<string, Kept>;
  /** The one key kept per project, so storing a new version drops the old without scanning. */
  readonly #current = new Map<string, string>();
  /** Compressions under way, so a crowd asking at once for a new version compresses it once. */
  readonly #pending = new Map<string, Promise<Buffer>>();
  constructor(maxBytes = 64 * 1024 * 1024) {
    this.#entries = new LRUCache<string, Kept>({
      maxSize: maxBytes,
      sizeCalculation: (kept) => Math.max(1, kept.body.length + (kept.encoded.br?.length ?? 0) + (kept.encoded.gzip?.length ?? 0)),
      dispose: (_kept, key, reason) => {
        const projectId = key.slice(0, key.indexOf(':'));
        if (reason !== 'set' && this.#current.get(projectId) === key) this.#current.delete(projectId);
      },
    });
  }
  get(projectId: string, etag: string) {
    return this.#entries.get(`${projectId}:${etag}`)?.body;
  }
  set(projectId: string, etag: string, body: Buffer) {
    // Only the current version of a project is worth keeping.
    const old = this.#current.get(projectId);
    if (old !== undefined) this.#entries.delete(old);
    if (body.length > this.#entries.maxSize) return;
    const key = `${projectId}:${etag}`;
    this.#entries.set(key, { body, encoded: {} });
    this.#current.set(projectId, key);
  }

  /** `body` (this version's bytes) compressed with `encoding`: kept with the version, made once. */
  async encoded(projectId: string, etag: string, body: Buffer, encoding: Encoding): Promise<Buffer> {
    const key = `${projectId}:${etag}`;
    const done = this.#entries.get(key)?.encoded[encoding];
    if (done) return done;
    const pendingKey = `${key}:${encoding}`;
    let pending = this.#pending.get(pendingKey);
    if (!pending) {
      pending = compress(body, encoding).finally(() => this.#pending.delete(pendingKey));
      this.#pending.set(pendingKey, pending);
      const made = await pending;
      const kept = this.#entries.peek(key);
      // Stored again (a new object) so its size is counted anew; dropped if the version left meanwhile.
      if (kept?.body === body) this.#entries.set(key, { body, encoded: { ...kept.encoded, [encoding]: made } });
      return made;
    }
    return pending;
  }
}
