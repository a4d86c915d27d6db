/**
 * Realtor access's entry in the hero (only where the project offers it). The dialog it opens (password, the realtor's
 * units, the worksheet) is a chunk of its own, web/views/realtor.ts; the session is web/realtor-session.ts.
 */
import { whenTokenRefused } from './api.ts';
import { h } from './dom.ts';
import { loadPart } from './parts.ts';
import { askOtherTabs, keep, realtor, whenHandedOver } from './realtor-session.ts';

type Dialog = typeof import('./views/realtor.ts');
let dialog: Dialog | undefined;

function loadDialog(): Promise<Dialog | undefined> {
  return loadPart(() => import('./views/realtor.ts')).then((m) => (dialog ??= m));
}

/**
 * The entry in the hero. `changed` revalidates the bundle (with or without the token). Opening it loads the dialog;
 * a realtor already signed in has it loaded shortly after the page (2 s).
 */
export function realtorEntry(changed: () => Promise<void>): HTMLElement {
  whenTokenRefused(() => {
    keep(undefined);
    document.body.dataset.realtor = '';
    dialog?.expired();
  });
  // A revalidation already on its way when the session arrives was asked without the token, and `changed` joins it:
  // the second one is asked with the token.
  whenHandedOver(() => {
    void changed()
      .then(changed)
      .then(() => dialog?.refresh());
  });
  askOtherTabs();
  if (realtor()) setTimeout(() => void loadDialog(), 2000);
  const button = h(
    'button',
    {
      type: 'button',
      class: 'hero-link',
      id: 'realtor-entry',
      onclick: async () => {
        button.setAttribute('aria-busy', 'true');
        const m = await loadDialog();
        button.removeAttribute('aria-busy');
        m?.openRealtor(changed);
      },
    },
    'Realtor access',
  );
  return button;
}
