/**
 * The one contact form, shared by the enquiry, the hold and the waitlist: built once and moved between units, so
 * nothing typed is lost when the page refreshes or a hold is placed; prefilled from the visitor's last submission.
 */
import { sendHold, sendLead, sendWaitlist, type PostAnswer } from '../api.ts';
import { campaign } from '../campaign.ts';
import { byId, formFields, requireById, h, safeUrl } from '../dom.ts';
import { t } from '../i18n.ts';
import { flag, settings, state } from '../state.ts';
import type { Problem, Room, Unit } from '../types.ts';
import { prefillVisitor, saveVisitor } from '../visitor.ts';
import { clearFormErrors, EMAIL, liveChecks } from './form-help.ts';
import { x } from '../extra-words.ts';
import { emit } from '../embed-events.ts';
import { lostRaceText } from './hold.ts';
import { depositText, holdDeposit, payButtonFace } from './sheet-extras.ts';

export type Mode = 'enquire' | 'hold' | 'waitlist';

interface CustomField {
  key: string;
  label?: string;
  type?: 'text' | 'textarea' | 'select' | 'checkbox';
  options?: string[];
  required?: boolean;
}

export interface ContactHooks {
  /** A hold was placed: the unit as the server returned it. */
  held(unit: Unit): void;
  /** The unit's state changed under us (409): fetch the bundle again. */
  stale(): Promise<void>;
  notice(unitId: string, text: string): void;
}

let form: HTMLFormElement;
let mode: Mode = 'enquire';
let unit: Room | undefined;
let hooks: ContactHooks;

export function contactForm(h_: ContactHooks): HTMLFormElement {
  hooks = h_;
  // `form` is unset until the first call builds it.
  if (form as HTMLFormElement | undefined) return form;
  const input = (name: string, label: string, type: string, autocomplete: string) =>
    h(
      'label',
      { class: 'field', id: `contact-${name}-field` },
      h('span', {}, label, h('span', { class: 'req', id: `contact-${name}-req` }, ' *')),
      h('input', { id: `contact-${name}`, name, type, autocomplete, 'aria-describedby': `contact-${name}-error` }),
      h('span', { class: 'field-error', id: `contact-${name}-error`, 'aria-live': 'polite' }),
    );
  form = h(
    'form',
    { class: 'contact', id: 'contact-form', novalidate: true, hidden: true, onsubmit: submit },
    h('h3', { id: 'contact-title' }),
    h('p', { id: 'contact-intro', class: 'intro' }),
    // What happened to the visitor's last try, said where they are looking (a hold lost to someone else).
    h('p', { class: 'notice', id: 'contact-notice', role: 'alert', tabindex: '-1', hidden: true }),
    h('div', { class: 'two' }, input('firstName', t().firstName, 'text', 'given-name'), input('lastName', t().lastName, 'text', 'family-name')),
    h('div', { class: 'two' }, input('email', t().email, 'email', 'email'), input('phone', t().phone, 'tel', 'tel')),
    h(
      'label',
      { class: 'field', id: 'contact-message-field' },
      t().message,
      h('textarea', { id: 'contact-message', name: 'message', rows: '3' }),
      h('span', { class: 'field-error', id: 'contact-message-error' }),
    ),
    h('div', { id: 'contact-custom' }),
    h('button', { type: 'submit', class: 'primary', id: 'contact-submit' }),
    h('p', { class: 'form-status', id: 'contact-status', role: 'status' }),
  );
  liveChecks(form);
  prefillVisitor(form);
  return form;
}

const customFields = (): CustomField[] =>
  flag('customFormEnabled') && Array.isArray(settings().customFormFields)
    ? (settings().customFormFields as unknown[])
        .filter((f): f is CustomField => !!f && typeof f === 'object' && typeof (f as CustomField).key === 'string')
        .slice(0, 50)
    : [];

function drawCustom() {
  const box = requireById('contact-custom');
  const fields = mode === 'enquire' ? customFields() : [];
  const key = JSON.stringify(fields);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren(
    ...fields.map((f, i) => {
      const id = `custom-${i}`;
      const label = `${f.label ?? f.key}${f.required ? ' *' : ''}`;
      const attrs = { id, name: `custom:${f.key}`, 'data-key': f.key, required: f.required === true, 'aria-describedby': `${id}-error` };
      const control =
        f.type === 'textarea'
          ? h('textarea', { ...attrs, rows: '3' })
          : f.type === 'select'
            ? h('select', attrs, h('option', { value: '' }, t().any), ...(f.options ?? []).map((o) => h('option', { value: o }, o)))
            : f.type === 'checkbox'
              ? h('input', { ...attrs, type: 'checkbox', value: t().yes })
              : h('input', { ...attrs, type: 'text' });
      return f.type === 'checkbox'
        ? h('label', { class: 'check' }, control, ` ${label}`, h('span', { class: 'field-error', id: `${id}-error` }))
        : h('label', { class: 'field' }, label, control, h('span', { class: 'field-error', id: `${id}-error` }));
    }),
  );
}

/** Points the form at a unit and a purpose; what is typed stays. */
export function setContact(u: Room | undefined, m: Mode, show: boolean) {
  // Another unit or purpose: a clean form (no errors, no confirmation, the button usable again), with the visit's details.
  if (u?._id !== unit?._id) requireById('contact-notice').hidden = true;
  if (m !== mode || u?._id !== unit?._id) {
    requireById('contact-status').textContent = '';
    clearFormErrors(form);
    requireById<HTMLButtonElement>('contact-submit').disabled = false;
    delete form.dataset.sent;
    prefillVisitor(form);
  }
  unit = u;
  mode = m;
  form.hidden = !show;
  const words: Record<Mode, [string, string, string]> = {
    enquire: [t().enquire, t().enquireIntro, t().send],
    hold: [t().hold, t().holdIntro, t().holdSend],
    waitlist: [t().waitlist, t().waitlistIntro, t().waitlistSend],
  };
  const [title, intro, send] = words[m];
  // A hold that takes a deposit: the form says how much, and its button is the project's pay button.
  const deposit = m === 'hold' && u ? holdDeposit(u) : undefined;
  requireById('contact-title').textContent = title;
  // The team's own message above the enquiry form (`crfMessage`), instead of the page's.
  const own = settings().crfMessage;
  requireById('contact-intro').textContent =
    m === 'enquire' && typeof own === 'string' && own.trim() ? own : deposit ? x().depositIntro(depositText(deposit)) : intro;
  requireById('contact-submit').replaceChildren(...(deposit ? payButtonFace() : [send]));
  requireById('contact-message-field').hidden = m === 'hold';
  // The phone is required for an enquiry and a hold; optional on the waitlist.
  requireById('contact-phone-req').hidden = m === 'waitlist';
  form.dataset.mode = m;
  drawCustom();
}

export const contactMode = () => mode;

function values(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of formFields(form)) if (!k.startsWith('custom:') && v !== '') out[k] = v;
  return out;
}

function showErrors(problem: Problem) {
  clearFormErrors(form);
  let first: HTMLElement | undefined;
  for (const e of problem.errors ?? []) {
    const name = e.path.replace(/^\//, '').split('/')[0];
    const target = name === 'customFields' ? form.querySelector<HTMLElement>('#contact-custom [name]') : form.querySelector<HTMLElement>(`#contact-${name}`);
    const slot = target ? form.querySelector<HTMLElement>(`#${target.id}-error`) : undefined;
    if (slot) slot.textContent = e.message;
    target?.setAttribute('aria-invalid', 'true');
    first ??= target ?? undefined;
  }
  first?.focus();
}

/** What the page says about a refusal: the server's limits in words a buyer understands. */
function refusal(res: PostAnswer): string {
  if (res.status === 403) return t().closed;
  if (res.status === 409) return t().taken;
  if (res.status === 429) {
    // The hold cap (not the request rate): say so, and when the visitor's first hold ends.
    if (mode === 'hold' && /at once/.test(res.body.detail ?? '')) return t().holdLimit(Math.max(1, Math.ceil((res.retryAfter ?? 60) / 60)));
    return t().tooMany;
  }
  return t().failed;
}

async function submit(e: Event) {
  e.preventDefault();
  if (!unit || !state.bundle) return;
  const status = requireById('contact-status');
  status.textContent = '';
  const data = values();
  const required = mode === 'waitlist' ? ['firstName', 'lastName', 'email'] : ['firstName', 'lastName', 'email', 'phone'];
  const customs =
    mode === 'enquire' ? [...form.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>('#contact-custom [data-key]')] : [];
  const missing = [
    ...required.filter((k) => !data[k]).map((k) => ({ path: `/${k}`, message: t().required })),
    ...(data.email && !EMAIL.test(data.email) ? [{ path: '/email', message: x().badEmail }] : []),
    ...customs
      .filter((c) => c.required && (c instanceof HTMLInputElement && c.type === 'checkbox' ? !c.checked : !c.value.trim()))
      .map((c) => ({ path: `/${c.id.replace('contact-', '')}`, message: t().required })),
  ];
  if (missing.length) {
    showErrorsById(missing);
    return;
  }
  const visitor = { firstName: data.firstName, lastName: data.lastName, email: data.email, ...(data.phone ? { phone: data.phone } : {}) };
  const submitButton = requireById<HTMLButtonElement>('contact-submit');
  submitButton.disabled = true;
  form.setAttribute('aria-busy', 'true');
  const project = state.bundle.project._id;
  const u = unit;
  let res: PostAnswer;
  // A hold requires the phone (checked above with the other required fields).
  const utm = campaign();
  const from = utm ? { utm } : {};
  if (mode === 'hold') res = await sendHold(u._id, { ...visitor, phone: data.phone, ...from });
  else if (mode === 'waitlist') res = await sendWaitlist({ project, ...visitor, unit: u._id, ...(data.message ? { message: data.message } : {}), ...from });
  else {
    const custom = customs
      .map((c) => ({ key: c.dataset.key ?? '', value: c instanceof HTMLInputElement && c.type === 'checkbox' ? (c.checked ? t().yes : '') : c.value.trim() }))
      .filter((c) => c.value !== '');
    res = await sendLead({
      project,
      ...visitor,
      unit: u._id,
      source: 'presentation',
      ...(data.message ? { message: data.message } : {}),
      ...(custom.length ? { customFields: custom } : {}),
      ...from,
    });
  }
  form.setAttribute('aria-busy', 'false');
  const ok = res.status === 200 || res.status === 201;
  // Sent once: the button stays off until the form is pointed at another unit or purpose (no double enquiry).
  submitButton.disabled = ok;
  if (res.status === 400) {
    showErrors(res.body);
    return;
  }
  if (ok) {
    showErrors({});
    saveVisitor(data);
    emit(mode === 'hold' ? 'hold_placed' : mode === 'waitlist' ? 'waitlist_joined' : 'enquiry_sent', { unitId: u._id, unitName: u.name });
    if (mode === 'hold') {
      hooks.held(res.body as unknown as Unit);
      // A project taking deposits: the hold is kept (its token stored above), and the buyer pays at Stripe Checkout.
      const checkout = safeUrl((res.body as { payment?: { checkoutUrl?: unknown } }).payment?.checkoutUrl);
      if (checkout) location.assign(checkout);
      return;
    }
    form.dataset.sent = mode;
    (form.elements.namedItem('message') as HTMLTextAreaElement).value = '';
    status.textContent = mode === 'waitlist' ? t().waitlistSent : t().sent;
    // In view inside the sheet's scrolling middle, above its action bar.
    status.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    const redirect = mode === 'enquire' ? safeUrl(settings().formsRedirectURL) : undefined;
    if (redirect) location.assign(redirect);
    return;
  }
  const text = refusal(res);
  if (mode === 'hold' && res.status === 409) await lostRace(u._id);
  else if (mode === 'hold') hooks.notice(u._id, text);
  else status.textContent = text;
}

/**
 * The hold went to someone else a moment before (409): the unit is fetched again, which turns the form to what the
 * unit is now open for (an enquiry, the waitlist) and says why (`sayLostRace`, from the sheet's redraw).
 */
async function lostRace(unitId: string) {
  await hooks.stale();
  sayLostRace(unitId, true);
}

/**
 * Says, at the top of the form and in view, that the unit the visitor was holding went to someone else a moment
 * before (their hold answered 409, or the live feed showed it held while they typed), rather than the form turning
 * into an enquiry in silence. With no form left to show, the sheet says it. `focus` after a submission only: focus
 * is never taken from a field being typed in.
 */
export function sayLostRace(unitId: string, focus: boolean) {
  const text = lostRaceText(mode === 'enquire');
  if (form.hidden || unit?._id !== unitId) {
    hooks.notice(unitId, text);
    return;
  }
  const notice = requireById('contact-notice');
  if (!notice.hidden && notice.textContent === text) return;
  notice.textContent = text;
  notice.hidden = false;
  notice.scrollIntoView({ block: 'nearest' });
  if (focus) notice.focus({ preventScroll: true });
}

function showErrorsById(errors: { path: string; message: string }[]) {
  clearFormErrors(form);
  let first: HTMLElement | undefined;
  for (const e of errors) {
    const name = e.path.slice(1);
    const target = byId(name.startsWith('custom-') ? name : `contact-${name}`);
    const slot = byId(`${target?.id}-error`);
    if (slot) slot.textContent = e.message;
    target?.setAttribute('aria-invalid', 'true');
    first ??= target ?? undefined;
  }
  first?.focus();
}

/** Focus the first empty field (after an action-bar button chose the form's purpose). */
export function focusContact() {
  form.scrollIntoView({ block: 'start', behavior: 'smooth' });
  const empty = [...form.querySelectorAll<HTMLInputElement>('input, textarea')].find((el) => !el.closest('[hidden]') && !el.value);
  (empty ?? byId('contact-submit'))?.focus({ preventScroll: true });
}
