import type { Ctx } from '../context.ts';
import { notFound } from '../http/errors.ts';
import { isPublished, previewSigner, visible } from '../modules/projects/drafts.ts';
import type { BundleKey } from '../public/bundle.service.ts';
import { hiddenSold, publicProject, publicUnit } from '../public/bundle.ts';
import { findBundleHead } from '../public/bundle.repo.ts';
import type { Branding, GroupCard } from './html.ts';
import { shownAddress } from './project-info.ts';
import { findGroupByHost, findGroupByNamespace, findOwnerPreferences, findProjectUnit, listGroupCards } from './presentation.repo.ts';

const OBJECT_ID = /^[0-9a-f]{24}$/;

/** What the server-rendered pages show: a project's page (a draft only with its preview token), a unit's, a group's. */
export class PresentationService {
  readonly #previews: ReturnType<typeof previewSigner>;

  constructor(private readonly ctx: Pick<Ctx, 'db' | 'clock' | 'config'>) {
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
    const project = publicProject(head) as Record<string, unknown> & { name: string };
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
   * The service's marks on a project's page: none when the project turns `showBranding` off; else the line at its foot
   * with its icon unless the owner's `preferences.hideBrandingIcon`, and the logo while it loads unless `hideLoadingLogo`.
   */
  async #branding(settings: Record<string, unknown>, projectId: string): Promise<Branding> {
    if (settings.showBranding === false) return { line: false, icon: false, loadingLogo: false };
    const preferences = await findOwnerPreferences(this.ctx.db.kysely, projectId);
    return { line: true, icon: preferences.hideBrandingIcon !== true, loadingLogo: preferences.hideLoadingLogo !== true };
  }

  /** A group's page, by its namespace or (`/` on its own host) its `hostName`: the group and a card per public project. */
  async groupPage(by: { namespace: string } | { hostName: string }) {
    const db = this.ctx.db.kysely;
    const group = 'namespace' in by ? await findGroupByNamespace(db, by.namespace) : await findGroupByHost(db, by.hostName);
    if (!group) throw notFound('Group');
    const rows = await listGroupCards(db, group.id, this.ctx.clock.now());
    // The group's own switches govern its page; a price or a count a project hides on its own page stays hidden here.
    const showPrices = group.data.showPrices !== false;
    const showAvailability = group.data.showAvailability !== false;
    const cards: GroupCard[] = rows.map((r) => {
      const d = r.data;
      const cover: unknown = Array.isArray(d.alternativeCovers) ? (d.alternativeCovers as unknown[])[0] : undefined;
      const currency =
        typeof d.payProviderCurrency === 'string' && d.payProviderCurrency
          ? d.payProviderCurrency
          : typeof d.chargeCurrency === 'string' && d.chargeCurrency
            ? d.chargeCurrency
            : 'usd';
      return {
        name: r.name,
        namespace: r.namespace,
        image: (typeof d.projectImageUrl === 'string' && d.projectImageUrl) || (typeof cover === 'string' ? cover : undefined),
        address: shownAddress(d),
        website: typeof d.websiteURL === 'string' ? d.websiteURL : undefined,
        available: showAvailability && d.showAvailability !== false ? r.available : undefined,
        lowestPrice: showPrices && d.showPrices !== false && r.lowest !== null ? Number(r.lowest) : undefined,
        currency,
      };
    });
    return { group: { name: group.name, data: group.data }, cards };
  }
}
