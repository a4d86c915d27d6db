/**
 * What every form of the page does while it is filled in: a field's error clears as soon as the field is corrected,
 * and an e-mail address is checked when the visitor leaves the field (not only on submit). A field's error is shown
 * in the element `#<field id>-error`; the field carries `aria-invalid` while it is wrong.
 */
import { x } from '../extra-words.ts';

/** A plausible address: something, one @, a dotted domain. The server has the final say. */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@.]+$/;

type Field = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;
const isField = (el: EventTarget | null): el is Field => el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement;

export function setFieldError(el: Element, message: string) {
  el.setAttribute('aria-invalid', 'true');
  const slot = document.getElementById(`${el.id}-error`);
  if (slot) slot.textContent = message;
}

export function clearFieldError(el: Element) {
  el.removeAttribute('aria-invalid');
  const slot = document.getElementById(`${el.id}-error`);
  if (slot) slot.textContent = '';
}

/** Every error of the form cleared (a form moved to another unit starts clean). */
export function clearFormErrors(form: HTMLFormElement) {
  for (const el of form.querySelectorAll('.field-error')) el.textContent = '';
  for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
}

function fine(el: Field): boolean {
  if (el instanceof HTMLInputElement && el.type === 'checkbox') return el.checked || !el.required;
  const v = el.value.trim();
  if (el instanceof HTMLInputElement && el.type === 'email') return EMAIL.test(v);
  return v !== '';
}

/** Wires a form: errors clear while typing once the field is right; an e-mail is checked on leaving it. */
export function liveChecks(form: HTMLFormElement) {
  const onChange = (e: Event) => {
    if (isField(e.target) && e.target.getAttribute('aria-invalid') === 'true' && fine(e.target)) clearFieldError(e.target);
  };
  form.addEventListener('input', onChange);
  form.addEventListener('change', onChange);
  form.addEventListener('focusout', (e) => {
    const el = e.target;
    if (el instanceof HTMLInputElement && el.type === 'email' && el.value.trim() !== '' && !EMAIL.test(el.value.trim())) setFieldError(el, x().badEmail);
  });
}
