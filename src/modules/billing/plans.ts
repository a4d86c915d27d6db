import type { Kysely } from 'kysely';
import type { BillingConfig } from '../../config.ts';
import type { Database } from '../../db/schema.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';
import { countPublished, findSubscription, type SubscriptionRow } from './billing.repo.ts';

export const PLANS = ['starter', 'pro'] as const;
export type PlanName = (typeof PLANS)[number];

/** What a plan allows: published projects at once (null: any number) and whether the branding may be hidden. */
export interface PlanTerms {
  name: PlanName;
  publishedProjects: number | null;
  hideBranding: boolean;
}

export const planTerms = (config: BillingConfig): PlanTerms[] => [
  { name: 'starter', publishedProjects: config.starterProjects, hideBranding: false },
  { name: 'pro', publishedProjects: null, hideBranding: true },
];

const TITLE: Record<PlanName, string> = { starter: 'Starter', pro: 'Pro' };

/** Which plan a Stripe price is, by the two configured prices; null for any other price. */
export const planOfPrice = (config: BillingConfig, price: string | null): PlanName | null =>
  price === config.prices.starter ? 'starter' : price === config.prices.pro ? 'pro' : null;

/** Statuses in good standing: the plan holds whatever the date. */
export const GOOD_STANDING = new Set(['trialing', 'active']);
/** Statuses of a subscription that still runs (and bills): in good standing, or retrying a failed payment. */
export const RUNNING = new Set([...GOOD_STANDING, 'past_due']);
/** Statuses whose plan still holds until the paid period ends (a failed payment, a cancellation). */
const UNTIL_PERIOD_END = new Set(['past_due', 'unpaid', 'canceled', 'paused']);

/**
 * The plan in effect at `now`: the subscription's while it is in good standing, or until the end of the period
 * already paid when a payment failed or it was cancelled; none before a subscription or after it ended.
 */
export function planInEffect(row: Pick<SubscriptionRow, 'plan' | 'status' | 'current_period_end'> | undefined, now: number): PlanName | undefined {
  if (!row?.plan) return undefined;
  if (GOOD_STANDING.has(row.status)) return row.plan as PlanName;
  const end = row.current_period_end ? new Date(row.current_period_end).getTime() : 0;
  return UNTIL_PERIOD_END.has(row.status) && now < end ? (row.plan as PlanName) : undefined;
}

/** What a write asks of the owner's plan. */
export interface PlanAsk {
  /** A project goes from draft to published (or is created published). */
  publishes?: { projectId: string } | undefined;
  /** The branding is hidden (a project's `showBranding` false, the owner's preferences). */
  hidesBranding?: boolean;
}

/** What a published project of this owner carries: `plan` (its tier) and `subscriptionItem` (what it is billed on). */
export function billedFields(row: SubscriptionRow | undefined, plan: PlanName | undefined): Record<string, unknown> {
  return { ...(plan ? { plan: { name: plan } } : {}), ...(row?.item_id ? { subscriptionItem: row.item_id } : {}) };
}

/**
 * In the write's transaction, with billing on: the owner's plan allows what the write asks, or 402 `plan_limit`
 * naming the plan and the limit. The owner's subscription row stays locked until the write commits, so two
 * publishes at once cannot both take the last place. Answers the fields a project published now carries; undefined
 * with billing off (nothing is limited).
 */
export async function checkPlan(
  trx: Kysely<Database>,
  config: BillingConfig,
  now: number,
  ownerId: string,
  ask: PlanAsk,
): Promise<Record<string, unknown> | undefined> {
  if (!config.enabled) return undefined;
  const row = await findSubscription(trx, ownerId, true);
  const plan = planInEffect(row, now);
  const terms = planTerms(config).find((t) => t.name === plan);
  if (ask.hidesBranding && !terms?.hideBranding) {
    throw ERRORS.planLimit(
      `${plan ? `The ${TITLE[plan]} plan` : 'Without a plan, a project'} shows the Showsuite branding: hiding it (showBranding, preferences.hideBrandingIcon, preferences.hideLoadingLogo) needs the Pro plan`,
      { extra: { plan: plan ?? 'none', limit: 'hideBranding', allowed: false } },
    );
  }
  if (ask.publishes) {
    if (!terms) {
      throw ERRORS.planLimit('Publishing needs a plan, and the project owner has none: choose Starter or Pro (Profile › Plan in the console)', {
        extra: { plan: 'none', limit: 'publishedProjects', allowed: 0 },
      });
    }
    const max = terms.publishedProjects;
    if (max !== null) {
      const published = await countPublished(trx, ownerId, ask.publishes.projectId);
      if (published >= max) {
        throw ERRORS.planLimit(
          `The ${TITLE[terms.name]} plan publishes up to ${max} project${max === 1 ? '' : 's'} at a time and ${published} ${published === 1 ? 'is' : 'are'} published: move one to draft, or upgrade to Pro`,
          { extra: { plan: terms.name, limit: 'publishedProjects', allowed: max } },
        );
      }
    }
  }
  return billedFields(row, plan);
}
