/**
 * `lockScreen`: the visitor introduces themselves before seeing the units (a lead-capture gate, not access control:
 * the bundle is public). The lock* switches choose the fields; the answer is sent as a lead when forms are enabled.
 */
import { sendLead } from '../api.ts';
import { formFields, h } from '../dom.ts';
import { t } from '../i18n.ts';
import { flag, namespace, settings, loaded } from '../state.ts';
import { prefillVisitor, saveVisitor } from '../visitor.ts';
import { liveChecks } from './form-help.ts';

const UNLOCKED = `showsuite:unlocked:${namespace}`;

export function locked(): boolean {
  if (!flag('lockScreen')) return false;
  try {
    return sessionStorage.getItem(UNLOCKED) !== '1';
  } catch {
    return true;
  }
}

export function lockScreen(unlocked: () => void): HTMLFormElement {
  const s = settings();
  const status = h('p', { class: 'form-status', id: 'lock-status', role: 'status' });
  const field = (on: unknown, name: string, label: string, type: string, autocomplete: string) =>
    on === true
      ? h(
          'label',
          { class: 'field' },
          label,
          h('input', { id: `lock-${name}`, name, type, required: true, autocomplete }),
          h('span', { class: 'field-error', id: `lock-${name}-error` }),
        )
      : undefined;
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'lock',
      id: 'lock-form',
      novalidate: true,
      onsubmit: async (e: Event) => {
        e.preventDefault();
        const data: Partial<Record<string, string>> = Object.fromEntries(formFields(form).filter(([, v]) => v !== ''));
        for (const el of form.querySelectorAll('.field-error')) el.textContent = '';
        const missing = [...form.querySelectorAll<HTMLInputElement>('input[required]')].filter((i) => !data[i.name]);
        if (missing.length) {
          for (const i of missing) {
            const slot = form.querySelector(`#lock-${i.name}-error`);
            if (slot) slot.textContent = t().required;
          }
          missing[0].focus();
          return;
        }
        // A lead needs a name, an e-mail and a phone; a lock screen that asks for less just lets the visitor in.
        if (flag('enableForms') && data.firstName && data.lastName && data.email && data.phone) {
          const res = await sendLead({ ...data, project: loaded().project._id, source: 'lock-screen' });
          if (res.status === 400) {
            for (const err of res.body.errors ?? []) {
              const slot = form.querySelector(`#lock-${err.path.slice(1)}-error`);
              if (slot) slot.textContent = err.message;
            }
            return;
          }
          if (res.status !== 201) {
            status.textContent = res.status === 429 ? t().tooMany : t().failed;
            return;
          }
        }
        saveVisitor(data);
        try {
          sessionStorage.setItem(UNLOCKED, '1');
        } catch {
          // Unlocked for this page view only.
        }
        unlocked();
      },
    },
    h('h2', {}, t().lockTitle),
    h('p', {}, t().lockIntro),
    field(s.lockScreenName, 'firstName', t().firstName, 'text', 'given-name'),
    field(s.lockScreenName, 'lastName', t().lastName, 'text', 'family-name'),
    field(s.lockScreenEmail, 'email', t().email, 'email', 'email'),
    field(s.lockScreenPhone, 'phone', t().phone, 'tel', 'tel'),
    s.lockScreenMessage === true ? h('label', { class: 'field' }, t().message, h('textarea', { id: 'lock-message', name: 'message', rows: '3' })) : undefined,
    h('button', { type: 'submit', class: 'primary', id: 'lock-submit' }, t().enter),
    status,
  );
  liveChecks(form);
  prefillVisitor(form);
  return form;
}
