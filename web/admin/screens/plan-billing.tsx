import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice, Loading, Notice, useLoad, when } from '../ui.tsx';

type Summary = Awaited<ReturnType<typeof load>>;
type PlanName = 'starter' | 'pro';

const load = () => api.get('/users/me/subscription');
const TITLE: Record<PlanName, string> = { starter: 'Starter', pro: 'Pro' };
const projects = (n: number) => `${n} project${n === 1 ? '' : 's'}`;

/** Stripe's status in words. */
const STATUS: Record<string, string> = {
  trialing: 'in its trial',
  active: 'active',
  past_due: 'a payment failed',
  unpaid: 'unpaid',
  canceled: 'cancelled',
  paused: 'paused',
  incomplete: 'waiting for the first payment',
  incomplete_expired: 'never started',
};

/**
 * Profile › Plan (only on a server that bills, BILLING=stripe): the plan in effect, the trial's end, what the plan
 * blocks in words, Upgrade (Checkout for Pro, or the customer portal from Starter) and Manage (the portal).
 */
export function Plan() {
  const summary = useLoad(load, []);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const go = async (to: () => Promise<{ url: string }>) => {
    setError(undefined);
    setBusy(true);
    try {
      location.assign((await to()).url);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  const checkout = (plan: PlanName) => go(() => api.post('/users/me/subscription/checkout', { body: { plan } }));
  const portal = () => go(() => api.post('/users/me/subscription/portal'));
  const back = new URLSearchParams(location.search).get('plan');
  const data = summary.data;
  return (
    <section class="card plan-billing" aria-labelledby="plan-h">
      <h2 id="plan-h">Plan</h2>
      <ErrorNotice error={error || summary.error} />
      {back === 'done' && data && !data.subscription && <Notice kind="ok">Thank you: Stripe is confirming your plan. It shows here within a minute.</Notice>}
      {!data ? <Loading /> : <PlanState data={data} busy={busy} onCheckout={checkout} onPortal={portal} />}
    </section>
  );
}

function PlanState({
  data,
  busy,
  onCheckout,
  onPortal,
}: {
  data: Summary;
  busy: boolean;
  onCheckout: (plan: PlanName) => Promise<void>;
  onPortal: () => Promise<void>;
}) {
  const plan = data.planInEffect;
  const sub = data.subscription;
  const starter = data.plans.find((p) => p.name === 'starter');
  const running = sub && ['trialing', 'active', 'past_due'].includes(sub.status);
  const trial = data.trialDays > 0 ? ` (${data.trialDays}-day free trial)` : '';
  return (
    <>
      <dl class="facts">
        <dt>Plan</dt>
        <dd id="plan-name">{plan ? `${TITLE[plan]}${sub ? `, ${STATUS[sub.status] ?? sub.status}` : ''}` : 'No plan'}</dd>
        {sub?.status === 'trialing' && sub.trialEnd && (
          <>
            <dt>Trial ends</dt>
            <dd id="plan-trial">{when(sub.trialEnd)}</dd>
          </>
        )}
        {sub?.currentPeriodEnd && sub.status !== 'trialing' && (
          <>
            <dt>{sub.cancelAtPeriodEnd ? 'Ends' : 'Paid until'}</dt>
            <dd>{when(sub.currentPeriodEnd)}</dd>
          </>
        )}
        <dt>Published</dt>
        <dd>{projects(data.publishedProjects)}</dd>
      </dl>
      {sub?.status === 'past_due' && (
        <Notice kind="warn">
          A payment failed. Your projects stay published until {when(sub.currentPeriodEnd ?? undefined)}; update your card in Manage, or they go to draft then.
        </Notice>
      )}
      <p id="plan-limits">
        {plan === 'pro'
          ? 'Pro publishes any number of projects and lets you hide the Showsuite branding on your pages.'
          : plan === 'starter'
            ? `Starter publishes up to ${projects(starter?.publishedProjects ?? 1)} at a time and keeps the Showsuite branding on your pages: publishing another project, or hiding the branding, needs Pro.`
            : `Without a plan your projects stay drafts: publishing one needs Starter (up to ${projects(starter?.publishedProjects ?? 1)}, branding shown) or Pro (any number, branding may be hidden).`}
      </p>
      <div class="row">
        {plan !== 'pro' && (
          <button type="button" disabled={busy} onClick={() => (running ? onPortal() : onCheckout('pro'))}>
            Upgrade to Pro{running ? '' : trial}
          </button>
        )}
        {!running && (
          <button type="button" class="secondary" disabled={busy} onClick={() => onCheckout('starter')}>
            Choose Starter{trial}
          </button>
        )}
        {sub && (
          <button type="button" class="secondary" disabled={busy} onClick={onPortal}>
            Manage
          </button>
        )}
      </div>
    </>
  );
}
