/**
 * Realtor access's session, in app.js: the allocation token kept per tab and handed between tabs, sent with the
 * bundle from the first request on. The hero's entry is web/realtor-entry.ts; the dialog behind it (password, the
 * realtor's units, the worksheet) is a chunk of its own, web/views/realtor.ts.
 */
import { setAllocationToken } from './api.ts';
import { namespace } from './state.ts';

export interface Opened {
  name: string;
  token: string;
  expiresAt: string;
}

const storeKey = `showsuite:allocation:${namespace}`;

function stored(): Opened | undefined {
  try {
    const value = JSON.parse(sessionStorage.getItem(storeKey) ?? 'null') as Opened | null;
    return value && Date.parse(value.expiresAt) > Date.now() ? value : undefined;
  } catch {
    return undefined;
  }
}

let opened = stored();
setAllocationToken(opened?.token);

/**
 * sessionStorage is per tab, so a tab opened anew would ask for the password again. The browser session's other tabs
 * hand their session over instead: a tab without one asks on this channel (same origin only), a tab with one answers.
 * localStorage keeps only that a session is open and until when (never the token), so a tab asks only then; once every
 * tab of the session is closed, nobody answers and the password is asked again.
 */
export const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(`showsuite:realtor:${namespace}`) : undefined;
const markerKey = `showsuite:realtor-open:${namespace}`;
export type Message = { ask: true } | { session: Opened } | { leave: true };
/** What a session handed over from another tab, or a sign-out there, does here (set by realtorEntry). */
let onHandover: (() => void) | undefined;
export const whenHandedOver = (then: () => void) => (onHandover = then);

export function keep(session: Opened | undefined) {
  opened = session;
  setAllocationToken(session?.token);
  try {
    if (session) {
      sessionStorage.setItem(storeKey, JSON.stringify(session));
      localStorage.setItem(markerKey, session.expiresAt);
    } else {
      sessionStorage.removeItem(storeKey);
      localStorage.removeItem(markerKey);
    }
  } catch {
    // Storage refused (a private mode's quota): the session lasts as long as this page.
  }
}

channel?.addEventListener('message', (e: MessageEvent<Message>) => {
  const m = e.data;
  if ('ask' in m) {
    if (opened) channel.postMessage({ session: opened } satisfies Message);
  } else if ('session' in m) {
    if (opened || Date.parse(m.session.expiresAt) <= Date.now()) return;
    keep(m.session);
    onHandover?.();
  } else if (opened) {
    keep(undefined);
    onHandover?.();
  }
});

/** A session is open in another tab of this browser session (by the marker): ask it for the session. */
export function askOtherTabs() {
  let until = 0;
  try {
    until = Date.parse(localStorage.getItem(markerKey) ?? '');
  } catch {
    return;
  }
  if (!opened && until > Date.now()) channel?.postMessage({ ask: true } satisfies Message);
}

/** The realtor's session, if one is open. */
export const realtor = () => opened;
