/**
 * `lockScreen`: the visitor introduces themselves before seeing the units (a lead-capture gate, not access control:
 * the bundle is public). The lock* switches choose the fields, `lockScreenCustom` adds the project's own questions
 * (`lockScreenCustomQuestions`) in the page's language; the answer is sent as a lead when forms are enabled, the
 * questions' answers on it as `questions`.
 */
import { sendLead } from '../api.ts';
import { formFields, h } from '../dom.ts';
import { t } from '../i18n.ts';
import { flag, namespace, settings, loaded } from '../state.ts';
import { prefillVisitor, saveVisitor } from '../visitor.ts';
import { liveChecks } from './form-help.ts';

const UNLOCKED = `showsuite:unlocked:${namespace}`;

/** The element of `form` with this id (an id made from a field's name, so no selector is built from it). */
const byIdIn = (form: HTMLFormElement, id: string) => [...form.querySelectorAll('[id]')].find((el) => el.id === id);

export function locked(): boolean {
  if (!flag('lockScreen')) return false;
  try {
    return sessionStorage.getItem(UNLOCKED) !== '1';
  } catch {
    return true;
  }
}

/** An answer's input is named `question-<i>`: the i-th of `lockQuestions()`. */
const QUESTION = /^question-(\d+)$/;

/** The project's own questions the lock screen asks (`lockScreenCustom`): those in the page's language and those for every language. */
export function lockQuestions(): string[] {
  if (!flag('lockScreenCustom')) return [];
  const list: unknown = settings().lockScreenCustomQuestions;
  const lang = document.documentElement.lang;
  return (Array.isArray(list) ? (list as unknown[]) : [])
    .map((q) => (typeof q === 'object' && q !== null ? (q as { lang?: unknown; value?: unknown }) : {}))
    .filter((q) => typeof q.value === 'string' && q.value.trim() !== '' && (!q.lang || q.lang === lang))
    .map((q) => String(q.value).trim())
    .slice(0, 20);
}

/** Where an error of the service about `path` is said: a visitor field's slot, or an answer's (`/questions/1/answer`). */
const slotId = (path: string) => {
  const answer = /^\/questions\/(\d+)/.exec(path);
  return answer ? `lock-question-${answer[1]}-error` : `lock-${path.slice(1)}-error`;
};

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
        const fields = formFields(form).filter(([, v]) => v.trim() !== '');
        const data: Partial<Record<string, string>> = Object.fromEntries(fields.filter(([k]) => !QUESTION.test(k)));
        const answers = new Map(fields.flatMap(([k, v]) => (QUESTION.test(k) ? [[k, v.trim()] as const] : [])));
        for (const el of form.querySelectorAll('.field-error')) el.textContent = '';
        const missing = [...form.querySelectorAll<HTMLInputElement>('input[required]')].filter((i) => !data[i.name] && !answers.has(i.name));
        if (missing.length) {
          for (const i of missing) {
            const slot = byIdIn(form, `lock-${i.name}-error`);
            if (slot) slot.textContent = t().required;
          }
          missing[0].focus();
          return;
        }
        const questions = lockQuestions().map((question, i) => ({ question, answer: answers.get(`question-${i}`) ?? '' }));
        // A lead needs a name, an e-mail and a phone; a lock screen that asks for less just lets the visitor in.
        if (flag('enableForms') && data.firstName && data.lastName && data.email && data.phone) {
          const res = await sendLead({ ...data, ...(questions.length ? { questions } : {}), project: loaded().project._id, source: 'lock-screen' });
          if (res.status === 400) {
            for (const err of res.body.errors ?? []) {
              const slot = byIdIn(form, slotId(err.path));
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
    ...lockQuestions().map((question, i) =>
      h(
        'label',
        { class: 'field' },
        question,
        h('input', { id: `lock-question-${i}`, name: `question-${i}`, type: 'text', required: true, maxlength: '1000', autocomplete: 'off' }),
        h('span', { class: 'field-error', id: `lock-question-${i}-error` }),
      ),
    ),
    h('button', { type: 'submit', class: 'primary', id: 'lock-submit' }, t().enter),
    status,
  );
  liveChecks(form);
  prefillVisitor(form);
  return form;
}
