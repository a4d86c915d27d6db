import { createHash } from 'node:crypto';
import type { Ctx } from '../context.ts';
import { compress, type Encoding } from '../http/encoding.ts';
import { notFound } from '../http/errors.ts';
import { Allocations } from '../modules/allocations/allocations.service.ts';
import { isPublished, previewSigner } from '../modules/projects/drafts.ts';
import { BundleCache, buildBundle, bundleEtag, type BundleSite } from './bundle.ts';
import type { BundleMemo, CheckedBundle } from './bundle-memo.ts';
import { findBundleHead } from './bundle.repo.ts';
import { findProjectByNamespace } from './public.repo.ts';

/** Which presentation: by its namespace (`/public/projects/{namespace}`) or by the host name it is served on. */
export type BundleKey = { namespace: string } | { hostName: string };

/** What a bundle request brings: the draft's preview token, a realtor's allocation token, and the validator it has. */
export interface BundleAsk {
  previewToken: string | undefined;
  allocationToken: string | undefined;
  ifNoneMatch: string | undefined;
  /** The content coding the client takes (`chosenEncoding` of its Accept-Encoding); undefined: the JSON as it is. */
  encoding: Encoding | undefined;
}

/** A bundle as one request gets it: its validator, how it may be cached, and the body unless the caller has it (304). */
export interface BundleAnswer {
  etag: string;
  cacheControl: string;
  noindex: boolean;
  body: Buffer | string | undefined;
  /** How `body` is compressed (its Content-Encoding). */
  encoding: Encoding | undefined;
}

/**
 * Each coding of a version has its own strong validator (RFC 9110: the bytes differ), `"<version>-br"` and
 * `"<version>-gzip"`; a client holding any coding of the current version is answered 304.
 */
const codedEtag = (etag: string, encoding: Encoding | undefined) => (encoding ? etag.replace(/"$/, `-${encoding}"`) : etag);
const versionOf = (tag: string) => tag.replace(/^W\//, '').replace(/-(?:br|gzip)"$/, '"');

/** The address a bundle is asked for, as the node's memo knows it. */
const memoKey = (by: BundleKey) => ('namespace' in by ? `n:${by.namespace}` : `h:${by.hostName.toLowerCase()}`);

/** What of this server's settings every bundle it answers shows (payments on or off, where Cal.com's booking pages are). */
export const bundleSite = (ctx: Pick<Ctx, 'payments' | 'config'>): BundleSite => ({
  paymentsOn: ctx.payments.enabled,
  calUrl: ctx.config.integrations.calUrl,
});

/**
 * What anonymous presentation pages read: the bundle (a draft only with its preview token; a realtor's own view with
 * an allocation token) and the project a live feed streams. Published bundles are kept encoded per node, keyed by
 * their validator, and the head lookup is skipped while the memo's check is fresh.
 */
export class BundleService {
  readonly #cache: BundleCache;
  readonly #previews: ReturnType<typeof previewSigner>;
  readonly #allocations: Allocations;
  /** Payments configured on this server (STRIPE_SECRET_KEY): without them no project's bundle offers a deposit. */
  readonly #site: BundleSite;

  constructor(
    private readonly ctx: Ctx,
    private readonly memo: BundleMemo,
  ) {
    this.#cache = new BundleCache(ctx.config.bundleCacheMb * 1024 * 1024);
    this.#previews = previewSigner(ctx.config);
    this.#allocations = new Allocations(ctx);
    this.#site = bundleSite(ctx);
  }

  async answer(by: BundleKey, ask: BundleAsk): Promise<BundleAnswer> {
    const db = this.ctx.db.kysely;
    // One instant for both the validator and the document, so a hold lapsing in between cannot split them.
    const now = this.ctx.clock.now();
    const inm = ask.ifNoneMatch;
    const notModified = (etag: string) => inm !== undefined && inm.split(',').some((t) => t.trim() === '*' || versionOf(t.trim()) === etag);
    const { encoding } = ask;
    const { previewToken, allocationToken: token } = ask;
    if (token !== undefined && token !== '') {
      // A realtor's view (X-Allocation-Token) is theirs alone: its own validator, never shared or kept in the node's cache.
      const head = await findBundleHead(db, by, now);
      if (!head) throw notFound('Presentation');
      this.#requireVisible(head.id, isPublished(head.data), previewToken, now);
      const viewer = await this.#allocations.verify(db, token, head.id);
      if (viewer) {
        const etag = bundleEtag(head).replace(/"$/, `-a${createHash('sha256').update(viewer.name).digest('base64url').slice(0, 12)}"`);
        const noindex = head.data.previewMode === true || !isPublished(head.data);
        const json = notModified(etag) ? undefined : JSON.stringify(await buildBundle(db, head, now, viewer.name, this.#site));
        const body = json !== undefined && encoding ? await compress(json, encoding) : json;
        return { etag: codedEtag(etag, encoding), cacheControl: 'private, max-age=0', noindex, body, encoding };
      }
    }
    const key = memoKey(by);
    let checked = this.memo.bundles.fresh(key, now);
    let body = checked && this.#cache.get(checked.projectId, checked.etag);
    if (!checked || (body === undefined && !notModified(checked.etag))) {
      // The head read, and the body built when the node has none for that version. Requests that find the memo stale
      // at the same moment (a crowd right after a write) share one (`Checks.check`); a conditional request that already
      // has the version still builds it then, for the requests that follow it without.
      let built: Buffer | undefined;
      const read = async (): Promise<CheckedBundle | undefined> => {
        const head = await findBundleHead(db, by, now);
        if (!head) return undefined;
        const found = { projectId: head.id, etag: bundleEtag(head), preview: head.data.previewMode === true, published: isPublished(head.data) };
        if (this.#cache.get(head.id, found.etag) === undefined) {
          // Kept encoded: a string would be turned into UTF-8 bytes again (and its length counted) for every response,
          // a 560 kB allocation each that pushed the peak RSS under load.
          built = Buffer.from(JSON.stringify(await buildBundle(db, head, now, undefined, this.#site)));
          this.#cache.set(head.id, found.etag, built);
        }
        return found;
      };
      // Remembered and fresh, but its body let go from the cache to make room: read again all the same.
      checked = await this.memo.bundles.check(key, now, read, { evenIfFresh: checked !== undefined });
      if (!checked) throw notFound('Presentation');
      // `built` when this request's own read built it: a body larger than the whole cache is not kept there.
      body = this.#cache.get(checked.projectId, checked.etag) ?? built;
      if (body === undefined && !notModified(checked.etag)) {
        // Not kept, and the read that built it was another request's: built again for this one.
        checked = await read();
        if (!checked) throw notFound('Presentation');
        body = this.#cache.get(checked.projectId, checked.etag) ?? built;
      }
    }
    this.#requireVisible(checked.projectId, checked.published, previewToken, now);
    // Previews and drafts are for the sales team's eyes: served, but never stored by shared caches or indexed.
    const unlisted = checked.preview || !checked.published;
    const sent = notModified(checked.etag) || body === undefined ? undefined : body;
    return {
      etag: codedEtag(checked.etag, encoding),
      cacheControl: unlisted ? 'private, no-store' : 'public, max-age=5',
      noindex: unlisted,
      body: sent && encoding ? await this.#cache.encoded(checked.projectId, checked.etag, sent, encoding) : sent,
      encoding,
    };
  }

  /** The project whose live feed a namespace names: 404 when there is none, or it is a draft and `previewToken` does not open it. */
  async liveProjectId(namespace: string, previewToken: string | undefined): Promise<string> {
    const now = this.ctx.clock.now();
    // The page has usually just fetched the bundle: what that answered is trusted as the bundle's own check is; so is
    // what the last stream opened on this namespace found (a crowd of streams opening reads it once per interval).
    const key = memoKey({ namespace });
    const project =
      this.memo.bundles.fresh(key, now) ??
      (await this.memo.projects.check(key, now, async () => {
        const row = await findProjectByNamespace(this.ctx.db.kysely, namespace);
        return row && { projectId: row.id, published: row.published };
      }));
    if (!project) throw notFound('Presentation');
    this.#requireVisible(project.projectId, project.published, previewToken, now);
    return project.projectId;
  }

  /** A draft is not there for anyone without its preview token: the bundle, the realtor's view and the live feed alike. */
  #requireVisible(projectId: string, published: boolean, previewToken: string | undefined, now: number) {
    if (!published && !this.#previews.verify(projectId, previewToken, now)) throw notFound('Presentation');
  }
}
