import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../api-schema.d.ts';
import { api } from '../api.ts';
import type { User } from '../types.ts';
import { ErrorNotice, Loading, Notice, useLoad } from '../ui.tsx';

type PaymentsState = components['schemas']['PaymentsState'];

/** Stripe's requirement names in words an owner understands, the first pattern that matches; others as Stripe wrote them. */
const REQUIREMENTS: [RegExp, string][] = [
  [/^external_account$/, 'a bank account for payouts'],
  [/^business_type$/, 'your business type'],
  [/^tos_acceptance\./, 'your acceptance of Stripe’s terms'],
  [/^individual\.dob\./, 'your date of birth'],
  [/^individual\.(first_name|last_name)$/, 'your name'],
  [/^individual\.address\./, 'your address'],
  [/^individual\.(ssn_last_4|id_number)$/, 'your ID number'],
  [/^individual\.verification\./, 'an identity document'],
  [/^individual\./, 'your personal details'],
  [/^business_profile\./, 'your business profile (website, industry)'],
  [/^company\./, 'your company’s details'],
  [/^(representative|owners|directors|executives)\b/, 'the company’s representative, owners and directors'],
  [/^settings\./, 'your account settings'],
];
export const requirementText = (code: string) => REQUIREMENTS.find(([re]) => re.test(code))?.[1] ?? code;

/** Why Stripe disabled charges, in words. */
function reasonText(reason: string): string {
  if (reason === 'requirements.past_due') return 'Stripe needs the information below.';
  if (reason === 'requirements.pending_verification') return 'Stripe is verifying what you sent; this usually takes minutes, sometimes a few days.';
  if (reason === 'under_review') return 'Stripe is reviewing your account.';
  if (reason.startsWith('rejected.')) return 'Stripe rejected this account; contact Stripe’s support.';
  return `Stripe says: ${reason}.`;
}

/** What Stripe's onboarding sent the owner back with (`?payments=done|again`), read once and taken out of the address. */
function useReturnFromStripe(): 'done' | 'again' | undefined {
  const [back] = useState<'done' | 'again' | undefined>(() => {
    const v = new URLSearchParams(location.search).get('payments');
    return v === 'done' || v === 'again' ? v : undefined;
  });
  useEffect(() => {
    if (!back) return;
    const q = new URLSearchParams(location.search);
    q.delete('payments');
    history.replaceState(history.state, '', `${location.pathname}${q.size ? `?${q.toString()}` : ''}`);
    document.getElementById('payments-h')?.scrollIntoView({ block: 'start' });
  }, []);
  return back;
}

/**
 * Profile › Payments: the user's Stripe account, where deposits for the projects they own are paid. Read from
 * GET /users/me/payments, which says whether this server takes payments at all (no button when it does not) and reads
 * the account back from Stripe: connected with charges enabled, set up but unfinished (what Stripe still needs, and
 * Continue setup), or not yet (Connect Stripe). Stripe's onboarding returns here (`?payments=done`, or `again` when
 * its link expired), and the section says where the account stands.
 */
export function Payments({ user, onUser }: { user: User; onUser: (u: User) => void }) {
  const back = useReturnFromStripe();
  const state = useLoad(() => api.get('/users/me/payments'), []);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const s = state.data;
  // Reading the account may have updated the profile (a new version): the Profile form must save over that one.
  useEffect(() => {
    if (s && (s.detailsSubmitted !== (user.paymentsDetailsSubmitted === true) || s.chargesEnabled !== (user.paymentsOnboardingDone === true))) {
      void api.get('/users/me').then(onUser, () => undefined);
    }
  }, [s]);
  const start = async () => {
    setError(undefined);
    setBusy(true);
    try {
      const { url } = await api.post('/users/me/payments/onboarding');
      location.assign(url);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <section class="card payments" aria-labelledby="payments-h">
      <h2 id="payments-h">Payments</h2>
      <ErrorNotice error={error ?? state.error} />
      {!s ? state.loading && <Loading what="Asking Stripe about your account" /> : <PaymentsBody s={s} back={back} busy={busy} onStart={start} />}
    </section>
  );
}

function PaymentsBody({ s, back, busy, onStart }: { s: PaymentsState; back: 'done' | 'again' | undefined; busy: boolean; onStart: () => void }) {
  if (!s.available) {
    return (
      <p id="payments-state">
        Payments are off on this server: no deposit is taken on any project’s page, so there is no Stripe account to connect. Whoever runs this server turns
        them on (STRIPE_SECRET_KEY).
      </p>
    );
  }
  const missing = [...new Set(s.missing.map(requirementText))];
  const needs = missing.length ? (
    <p id="payments-missing">
      Stripe still needs: <strong>{missing.join(', ')}</strong>.
    </p>
  ) : null;
  const news =
    back === 'again'
      ? 'The setup link from Stripe had expired or was already used: Continue setup opens a fresh one.'
      : back === 'done'
        ? s.chargesEnabled
          ? 'Back from Stripe: your account is ready.'
          : 'Back from Stripe: the setup is not finished yet (below, what is missing).'
        : '';
  const newsLine = (
    <Notice kind={back === 'done' && s.chargesEnabled ? 'ok' : 'info'}>
      <span id="payments-back">{news}</span>
    </Notice>
  );
  if (s.chargesEnabled) {
    return (
      <>
        {news && newsLine}
        <p id="payments-state">Stripe connected, charges enabled. Deposits for the projects you own are paid into your Stripe account.</p>
        {needs}
      </>
    );
  }
  if (s.connected) {
    return (
      <>
        {news && newsLine}
        <p id="payments-state">
          Your Stripe account is set up but cannot take charges yet:{' '}
          {s.detailsSubmitted ? 'your details are submitted and Stripe is reviewing them or needs more.' : 'your details are not submitted yet.'}
          {s.disabledReason && ` ${reasonText(s.disabledReason)}`}
        </p>
        {needs}
        <button type="button" onClick={onStart} disabled={busy}>
          Continue setup
        </button>
      </>
    );
  }
  return (
    <>
      <p id="payments-state">Connect a Stripe account to take deposits when buyers hold a unit on your projects’ pages. The money goes to your account.</p>
      <button type="button" onClick={onStart} disabled={busy}>
        Connect Stripe
      </button>
    </>
  );
}
