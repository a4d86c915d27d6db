import type { Ctx } from '../context.ts';
import { notFound } from '../http/errors.ts';
import { isPublished, previewSigner, visible } from '../modules/projects/drafts.ts';
import { bundleSite, type BundleKey } from '../public/bundle.service.ts';
import { LRUCache } from 'lru-cache';
import { buildBundle, bundleEtag, publicProject, publicUnit } from '../public/bundle.ts';
import { hiddenSold } from '../modules/units/units.record.ts';
import { findBundleHead } from '../public/bundle.repo.ts';
import { groupModel, withSvgShapes, type GroupFilters, type GroupProjectBundle } from './group-model.ts';
import { middleOf } from './group-html.ts';
import { groupSvgShapes } from './group-svg.ts';
import { str } from './html-text.ts';
import type { Branding } from './html.ts';
import { findGroupByHost, findGroupByNamespace, findOwnerPreferences, findProjectUnit, listGroupCards } from './presentation.repo.ts';

const OBJECT_ID = /^[0-9a-f]{24}$/;

/** What the server-rendered pages show: a project's page (a draft only with its preview token), a unit's, a group's. */
export class PresentationService {
  readonly #previews: ReturnType<typeof previewSigner>;
  /**
   * The group page's projects' bundles, built once per version (the bundle's validator, as the bundle route keys its
   * bytes) rather than on every view of the group: bounded by count, safe to lose; the group page never changes them.
   */
  readonly #groupBundles = new LRUCache<string, GroupProjectBundle>({ max: 128 });

  constructor(private readonly ctx: Pick<Ctx, 'db' | 'clock' | 'config' | 'media' | 'payments'>) {
    this.#previews = previewSigner(ctx.config);
  }

  /** The project (and unit) a page shows, as visitors see them; 404 for an unknown one, a draft without its token, a hidden sold unit. */
  async projectPage(by: BundleKey, previewToken: string | undefined, unitId?: string) {
    const db = this.ctx.db.kysely;
    const now = this.ctx.clock.now();
    const head = await findBundleHead(db, by, now);
    // A draft is there only for whoever holds its preview link.
    if (!head || !visible(this.#previews, head, previewToken, now)) {
      throw notFound('namespace' in by ? 'Presentation' : `Presentation for host ${by.hostName || '(none)'}`);
    }
    const draft = !isPublished(head.data);
    // As the bundle shows it, so the HTML keeps room for what the script will draw from it (the Book-a-visit link).
    const project = publicProject(head, bundleSite(this.ctx)) as Record<string, unknown> & { name: string };
    let unit: (Record<string, unknown> & { _id: string; name: string }) | undefined;
    if (unitId !== undefined) {
      const row = OBJECT_ID.test(unitId) ? await findProjectUnit(db, head.id, unitId) : undefined;
      if (!row) throw notFound('Unit');
      unit = publicUnit(row, head.data, now) as typeof unit;
      // A sold unit the project hides answers as an unknown one: its name would be in the title and card tags.
      if (hiddenSold(head.data, unit?.availability)) throw notFound('Unit');
    }
    // A draft, or a project in preview mode: no search engine is to index its page (the bundle says the same).
    const noindex = draft || head.data.previewMode === true;
    return { namespace: head.namespace ?? '', draft, noindex, project, unit, branding: await this.#branding(head.data, head.id) };
  }

  /**
   * The code a unit's frame runs: its `embedCode` (a tour or video), or its `customButtonSnippet` (the custom button's
   * `snippet` action, only while the project offers that button). 404 when there is none to run.
   */
  async unitFrameCode(by: BundleKey, previewToken: string | undefined, unitId: string, frame: 'embed' | 'button'): Promise<string> {
    const { project, unit } = await this.projectPage(by, previewToken, unitId);
    const code =
      frame === 'embed'
        ? unit?.embedCode
        : project.customButtonEnabled === true && project.customButtonActionType === 'snippet'
          ? unit?.customButtonSnippet
          : undefined;
    if (typeof code !== 'string' || code.trim() === '') throw notFound(frame === 'embed' ? 'Embed' : 'Button snippet');
    return code;
  }

  /**
   * The service's marks on a project's page: none when the project turns `showBranding` off; else the line at its foot
   * with its icon unless the owner's `preferences.hideBrandingIcon`, and the logo while it loads unless `hideLoadingLogo`.
   */
  async #branding(settings: Record<string, unknown>, projectId: string): Promise<Branding> {
    if (settings.showBranding === false) return { line: false, icon: false, loadingLogo: false };
    const preferences = await findOwnerPreferences(this.ctx.db.kysely, projectId);
    return { line: true, icon: preferences.hideBrandingIcon !== true, loadingLogo: preferences.hideLoadingLogo !== true };
  }

  /**
   * A group's page, by its namespace or (`/` on its own host) its `hostName`: the group and what its page shows, from
   * each public project's bundle (so nothing a project withholds from the public reaches the group page).
   */
  async groupPage(by: { namespace: string } | { hostName: string }, filters: GroupFilters, origin: string) {
    const db = this.ctx.db.kysely;
    const now = this.ctx.clock.now();
    const group = 'namespace' in by ? await findGroupByNamespace(db, by.namespace) : await findGroupByHost(db, by.hostName);
    if (!group) throw notFound('Group');
    const rows = await listGroupCards(db, group.id, now);
    const bundles = await Promise.all(
      rows.map(async (r) => {
        const head = await findBundleHead(db, { namespace: r.namespace }, now);
        if (!head) return undefined;
        const key = `${head.id}:${bundleEtag(head)}`;
        let bundle = this.#groupBundles.get(key);
        if (!bundle) {
          bundle = (await buildBundle(db, head, now)) as unknown as GroupProjectBundle;
          this.#groupBundles.set(key, bundle);
        }
        return bundle;
      }),
    );
    const shown = bundles.filter((b): b is GroupProjectBundle => b !== undefined);
    // The branding line's icon follows the group's owner's `preferences.hideBrandingIcon`, as a project's follows its owner's.
    const shell = { name: group.name, data: group.data, brandingIcon: group.preferences?.hideBrandingIcon !== true };
    const model = groupModel(group.data, shown, filters, origin);
    // Projects placed by `svgGroupId`, and the group's own outline, need the group's SVG read (an upload of this service only).
    if (!model.cards.some((c) => !c.paths.length && c.svgGroupId) && !str(group.data.svgGroupId)) return { group: shell, model };
    const { config } = this.ctx;
    const shapes = await groupSvgShapes(this.ctx.media, group.data.groupSVGUrl, [origin, config.mail.publicUrl, config.pagesUrl], middleOf);
    return { group: shell, model: shapes ? withSvgShapes(model, group.data, shapes, origin) : model };
  }
}
