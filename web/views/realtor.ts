/**
 * Realtor access's dialog: a realtor opens their allocation with its password; the page then reads the bundle with the
 * allocation's token (their units as they are, marked theirs) and offers one worksheet form: the buyer and up to three
 * units in order of preference, picked from their units or from every unit of the project. A chunk of its own; the
 * session and the hero's entry are in app.js (web/realtor-session.ts).
 */
import { openAllocation, sendWorksheet } from '../api.ts';
import { formFields, h } from '../dom.ts';
import { priceText, statusText } from '../format.ts';
import { allUnits, namespace } from '../state.ts';
import type { Unit } from '../types.ts';
import { channel, keep, realtor, type Message, type Opened } from '../realtor-session.ts';

const WORDS = {
  en: {
    title: 'Realtor access',
    password: 'Allocation password',
    open: 'Open my allocation',
    wrong: 'That password does not open an allocation.',
    tooMany: 'Too many tries. Wait a minute and try again.',
    signedIn: (n: string) => `Signed in as ${n}`,
    leave: 'Sign out',
    yours: 'Your units',
    none: 'No units are allocated to you right now.',
    add: 'Add to worksheet',
    worksheet: 'Worksheet',
    buyer: 'Buyer',
    firstName: 'First name',
    lastName: 'Last name',
    email: 'E-mail',
    phone: 'Phone',
    choice: (i: number) => `Choice ${i}`,
    any: '—',
    notes: 'Notes',
    realtorEmail: 'Your e-mail, to be told the decision (optional)',
    submit: 'Submit worksheet',
    sent: 'Worksheet submitted. The sales team will confirm.',
    failed: 'The worksheet was not accepted: ',
    expired: 'Your realtor access has ended. Open it again with your password.',
    mine: 'Yours',
  },
};
const w = WORDS.en;
let dialog: HTMLDialogElement | undefined;
let body: HTMLElement | undefined;
let revalidate: () => Promise<void> = () => Promise.resolve();

function build() {
  const d = h('dialog', { class: 'sheet realtor', id: 'realtor', 'aria-labelledby': 'realtor-title' });
  body = h('div', { class: 'sheet-body' });
  const close = () => {
    d.close();
    document.body.classList.remove('dialog-open');
  };
  d.append(
    h(
      'div',
      { class: 'sheet-head' },
      h('h2', { id: 'realtor-title' }, w.title),
      h('button', { type: 'button', class: 'close', 'aria-label': 'Close', onclick: close }, '×'),
    ),
    body,
  );
  d.addEventListener('close', () => document.body.classList.remove('dialog-open'));
  document.body.append(d);
  return d;
}

/** Signing in or out revalidates the bundle (now with or without the token), then redraws the dialog. */
const reopen = async () => {
  await revalidate();
  render();
};

function render(notice?: string) {
  const opened = realtor();
  body?.replaceChildren(opened ? signedIn(opened, reopen) : passwordForm(reopen), ...(notice ? [h('p', { class: 'notice', role: 'alert' }, notice)] : []));
}

/** Opens the dialog; `changed` revalidates the bundle (with or without the token). */
export function openRealtor(changed: () => Promise<void>) {
  revalidate = changed;
  dialog ??= build();
  render();
  dialog.showModal();
  document.body.classList.add('dialog-open');
}

/** The session was refused (expired or revoked): said in the dialog. */
export function expired() {
  if (dialog) render(w.expired);
}

/** A session handed over from another tab, or a sign-out there: the open dialog follows. */
export function refresh() {
  if (dialog?.open) render();
}

function passwordForm(signedInNow: () => Promise<void>) {
  const input = h('input', { id: 'realtor-password', type: 'password', autocomplete: 'current-password', required: true, maxlength: '200' });
  const status = h('p', { class: 'notice', role: 'alert', id: 'realtor-status' });
  const button = h('button', { type: 'submit', class: 'primary', id: 'realtor-open' }, w.open);
  // A password manager keys the password to the project: the hidden name field says which.
  const username = h('input', { type: 'text', name: 'username', autocomplete: 'username', value: namespace, hidden: true, tabindex: '-1' });
  const form = h('form', { class: 'contact', id: 'realtor-form' }, username, h('label', { class: 'field' }, w.password, input), button, status);
  onSubmit(form, async () => {
    button.disabled = true;
    const answer = await openAllocation(namespace, input.value);
    button.disabled = false;
    if (answer.status !== 200) {
      status.textContent = answer.status === 429 ? w.tooMany : w.wrong;
      input.setAttribute('aria-invalid', 'true');
      return;
    }
    keep({ name: String(answer.body.name), token: String(answer.body.token), expiresAt: String(answer.body.expiresAt) });
    await signedInNow();
  });
  return form;
}

/** A form's submit, its default prevented; the handler's promise is the page's own to finish (no one awaits a listener). */
function onSubmit(form: HTMLFormElement, handler: () => Promise<void>) {
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void handler();
  });
}

function signedIn(session: Opened, signedOut: () => Promise<void>) {
  const units = allUnits().filter((u): u is Unit => !u.stub);
  const mine = units.filter((u) => u.allocated === true);
  const choices = [1, 2, 3].map((i) =>
    h(
      'select',
      { id: `choice-${i}`, name: `choice-${i}`, required: i === 1 },
      h('option', { value: '' }, w.any),
      ...[...mine, ...units.filter((u) => u.allocated !== true)].map((u) =>
        h('option', { value: u._id }, [u.name, priceText(u), statusText(u.availability), u.allocated ? w.mine : ''].filter(Boolean).join(' · ')),
      ),
    ),
  );
  const pick = (id: string) => {
    const free = choices.find((c) => c.value === '' || c.value === id);
    if (free) free.value = id;
  };
  const leave = h(
    'button',
    {
      type: 'button',
      class: 'secondary small',
      id: 'realtor-leave',
      onclick: async () => {
        keep(undefined);
        channel?.postMessage({ leave: true } satisfies Message);
        await signedOut();
      },
    },
    w.leave,
  );
  return h(
    'div',
    { class: 'realtor-session' },
    h('p', { class: 'realtor-name', id: 'realtor-name' }, w.signedIn(session.name), ' ', leave),
    h('h3', {}, w.yours),
    allocatedList(mine, pick),
    worksheetForm(choices),
  );
}

/** The homes allocated to this realtor, each with a button that puts it in the first free choice. */
function allocatedList(mine: Unit[], pick: (id: string) => void) {
  if (!mine.length) return h('p', { class: 'intro' }, w.none);
  return h(
    'ul',
    { class: 'realtor-units', id: 'realtor-units' },
    ...mine.map((u) =>
      h(
        'li',
        { 'data-unit': u._id },
        h('span', { class: 'name' }, u.name),
        h('span', { class: 'price' }, priceText(u) ?? ''),
        h('span', { class: `badge s-${u.availability}` }, statusText(u.availability)),
        h('button', { type: 'button', class: 'secondary small', onclick: () => pick(u._id) }, w.add),
      ),
    ),
  );
}

/** The realtor's own address, kept with the session so each worksheet of it is prefilled. */
const emailKey = `showsuite:realtor-email:${namespace}`;
function realtorEmail(): string {
  try {
    return sessionStorage.getItem(emailKey) ?? '';
  } catch {
    return '';
  }
}
function rememberRealtorEmail(email: string) {
  try {
    sessionStorage.setItem(emailKey, email);
  } catch {
    // Not kept: typed again next time.
  }
}

function worksheetForm(choices: HTMLSelectElement[]) {
  const field = (label: string, attrs: Record<string, unknown>) => h('label', { class: 'field' }, label, h('input', { required: true, ...attrs }));
  const status = h('p', { class: 'form-status', role: 'status', id: 'worksheet-status' });
  const button = h('button', { type: 'submit', class: 'primary', id: 'worksheet-submit' }, w.submit);
  const form = h(
    'form',
    { class: 'contact', id: 'worksheet-form' },
    h('h3', {}, w.worksheet),
    h(
      'div',
      { class: 'two' },
      field(w.firstName, { name: 'firstName', autocomplete: 'off', maxlength: '200' }),
      field(w.lastName, { name: 'lastName', autocomplete: 'off', maxlength: '200' }),
    ),
    h(
      'div',
      { class: 'two' },
      field(w.email, { name: 'email', type: 'email', autocomplete: 'off' }),
      field(w.phone, { name: 'phone', type: 'tel', autocomplete: 'off', minlength: '3', maxlength: '50' }),
    ),
    ...choices.map((c, i) => h('label', { class: 'field' }, w.choice(i + 1), c)),
    h('label', { class: 'field' }, w.notes, h('textarea', { name: 'notes', rows: '2', maxlength: '5000' })),
    field(w.realtorEmail, { name: 'realtorEmail', type: 'email', autocomplete: 'email', maxlength: '320', required: false, value: realtorEmail() }),
    button,
    status,
  );
  onSubmit(form, async () => {
    const data: Partial<Record<string, string>> = Object.fromEntries(formFields(form));
    const picked = [...new Set(choices.map((c) => c.value).filter(Boolean))];
    const text = (k: string) => data[k] ?? '';
    button.disabled = true;
    const answer = await sendWorksheet({
      buyer: { firstName: text('firstName'), lastName: text('lastName'), email: text('email'), phone: text('phone') },
      choices: picked,
      ...(text('notes') ? { notes: text('notes') } : {}),
      ...(text('realtorEmail') ? { realtorEmail: text('realtorEmail') } : {}),
    });
    button.disabled = false;
    if (answer.status === 201) {
      rememberRealtorEmail(text('realtorEmail'));
      form.reset();
      (form.elements.namedItem('realtorEmail') as HTMLInputElement).value = text('realtorEmail');
      status.className = 'form-status';
      status.textContent = w.sent;
    } else {
      status.className = 'notice';
      status.textContent = w.failed + (answer.body.detail ?? String(answer.status));
    }
  });
  return form;
}
