/**
 * The page's side of deposits (docs/deposits.md): back from Stripe Checkout, the address carries `?deposit=<id>`
 * (and `payment=done|cancelled`); the page takes them out of the address and says where the deposit stands, asking
 * the server (`GET /public/deposits/{id}`) again a few times while it is still pending. The hold answer's
 * `payment.checkoutUrl` is followed by the enquiry form (web/views/contact.ts).
 */
import { getDeposit } from './api.ts';
import { h } from './dom.ts';

type Status = 'pending' | 'paid' | 'expired' | 'refunded' | 'unknown';

const WORDS = {
  en: {
    paid: 'Deposit received: the home is reserved for you. A receipt is on its way to your e-mail.',
    pending: 'Your payment is being confirmed…',
    expired: 'The payment window closed before the deposit was paid, so the home was not reserved.',
    refunded: 'This deposit was refunded.',
    unknown: 'We could not find this payment. If you paid, your receipt e-mail confirms it.',
  },
  fr: {
    paid: 'Acompte reçu : le logement vous est réservé. Un reçu arrive dans votre boîte e-mail.',
    pending: 'Votre paiement est en cours de confirmation…',
    expired: 'Le délai de paiement a pris fin avant le versement de l’acompte : le logement n’a pas été réservé.',
    refunded: 'Cet acompte a été remboursé.',
    unknown: 'Nous ne trouvons pas ce paiement. Si vous avez payé, votre reçu par e-mail le confirme.',
  },
  es: {
    paid: 'Depósito recibido: la unidad queda reservada para usted. Recibirá un recibo por correo.',
    pending: 'Su pago se está confirmando…',
    expired: 'El plazo de pago terminó antes de abonar el depósito, así que la unidad no se reservó.',
    refunded: 'Este depósito fue reembolsado.',
    unknown: 'No encontramos este pago. Si pagó, el recibo por correo lo confirma.',
  },
};
const words = (): Record<Status, string> => (WORDS as Partial<Record<string, Record<Status, string>>>)[document.documentElement.lang] ?? WORDS.en;

const ID = /^[0-9a-f]{24}$/;
/** How many times, and how far apart, a pending deposit is asked about again (its event may take a moment). */
const TRIES = 10;
const EVERY_MS = 3000;

function show(status: Status) {
  let line = document.getElementById('deposit-status');
  if (!line) {
    // A popover: in the top layer, so it stays in view above the unit's sheet (a modal dialog) on a phone too.
    const made = h('p', { id: 'deposit-status', role: 'status', popover: 'manual' });
    // A tap puts it away for good (on a phone it lies over the sheet's header); the receipt mail keeps the news.
    made.addEventListener('click', () => {
      dismissed = true;
      made.hidePopover();
    });
    document.body.prepend(made);
    // A sheet opened after it would cover it: it is raised again above whatever dialog opens.
    new MutationObserver(() => raise(made)).observe(document.body, { subtree: true, attributeFilter: ['open'] });
    line = made;
  }
  line.className = `deposit-status ${status === 'paid' ? 'held' : status === 'pending' ? 'pending' : 'notice'}`;
  line.dataset.status = status;
  line.textContent = words()[status];
  raise(line);
}

let dismissed = false;

/** Shown last in the top layer, so above any open dialog (unless the visitor put it away). */
function raise(line: HTMLElement) {
  if (dismissed) return;
  if (line.matches(':popover-open')) line.hidePopover();
  line.showPopover();
}

/** Takes `?deposit=` (and `payment=`) out of the address and says where that deposit stands. */
export function startDepositReturn() {
  const q = new URLSearchParams(location.search);
  const id = q.get('deposit');
  if (id === null) return;
  q.delete('deposit');
  q.delete('payment');
  const rest = q.toString();
  history.replaceState(history.state, '', `${location.pathname}${rest ? `?${rest}` : ''}${location.hash}`);
  if (!ID.test(id)) return;
  void follow(id, TRIES);
}

async function follow(id: string, tries: number): Promise<void> {
  const res = await getDeposit(id);
  const status = res.status === 200 && typeof res.body.status === 'string' ? (res.body.status as Status) : res.status === 404 ? 'unknown' : 'pending';
  show(status in words() ? status : 'unknown');
  if (status === 'pending' && tries > 1) setTimeout(() => void follow(id, tries - 1), EVERY_MS);
}
