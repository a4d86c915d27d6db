/**
 * Keeping the bundle current, in one place. The page follows the presentation's live feed (Server-Sent Events,
 * /public/projects/{namespace}/events): each change there, and each `refetch` (sent instead of a long replay of what
 * a reconnecting page missed), triggers one revalidation of the bundle with If-None-Match. While the feed is not open — no EventSource, the server refusing it, a dropped connection being
 * re-established — it polls every few seconds instead, and stops polling once the feed is open again.
 * `body[data-live]` says which: `open`, `connecting` or `polling`; `?live=0` on the page's address polls only.
 */
import { getBundle } from './api.ts';
import { namespace, previewToken } from './state.ts';
import type { Bundle } from './types.ts';

export interface Live {
  /** Revalidate now (after a hold, a 409…); resolves when done. */
  refresh(): Promise<void>;
}

export function startLive(url: string, handlers: { onBundle(bundle: Bundle, etag: string | undefined): void; onMissing(): void }): Live {
  let etag: string | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  const refresh = () => {
    // One request at a time: a slow answer is never abandoned (an aborted fetch is console noise) nor overtaken.
    running ??= (async () => {
      const answer = await getBundle(url, etag);
      if (answer.status === 404) handlers.onMissing();
      if ('bundle' in answer) {
        etag = answer.etag;
        document.body.dataset.etag = etag ?? '';
        handlers.onBundle(answer.bundle, etag);
      }
    })().finally(() => {
      running = undefined;
      // A change announced while a revalidation was on its way gets one more.
      if (again) {
        again = false;
        void refresh();
      }
    });
    return running;
  };
  const changed = () => {
    if (running) again = true;
    else void refresh();
  };

  let streaming = false;
  // `?refresh=<ms>` on the page's URL sets the polling interval (default 3 s, at least 1 s).
  const asked = Number(new URLSearchParams(location.search).get('refresh'));
  const interval = Number.isFinite(asked) && asked >= 1000 ? asked : 3000;
  window.setInterval(() => {
    if (!streaming && document.visibilityState === 'visible') void refresh();
  }, interval);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') void refresh();
  });

  // `?live=0` polls only (a network whose proxy breaks long-lived responses).
  const wanted = new URLSearchParams(location.search).get('live') !== '0';
  if (wanted && namespace && typeof EventSource !== 'undefined') {
    const preview = previewToken ? `?preview=${encodeURIComponent(previewToken)}` : '';
    const source = new EventSource(`/public/projects/${encodeURIComponent(namespace)}/events${preview}`);
    document.body.dataset.live = 'connecting';
    source.onopen = () => {
      streaming = true;
      document.body.dataset.live = 'open';
      // Whatever changed between loading the bundle and the feed opening.
      changed();
    };
    source.onmessage = changed;
    // The server did not replay what the page missed (too much, or too slow): the bundle says where things stand.
    source.addEventListener('refetch', changed);
    source.onerror = () => {
      streaming = false;
      // CLOSED: refused for good (an error answer), the browser will not retry: polling carries on alone.
      document.body.dataset.live = source.readyState === EventSource.CLOSED ? 'polling' : 'connecting';
    };
  } else {
    document.body.dataset.live = 'polling';
  }
  return { refresh };
}
