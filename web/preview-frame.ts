/**
 * The console's settings preview is this page in a frame of the console, drawn with the settings being edited before
 * they are saved. Only a framed page listens, and only to its parent on the console's origin (the server names it on
 * `<body data-console-origin>`); what it is sent changes this frame's drawing and nothing else (no request carries it).
 * The parent is told the page is ready, then sends `{ type: 'showsuite:draft', settings }` whenever the draft changes.
 */
type Settings = Record<string, unknown>;

export function listenForDraft(apply: (settings: Settings) => void) {
  const origin = document.body.dataset.consoleOrigin;
  if (window.parent === window || !origin) return;
  window.addEventListener('message', (e: MessageEvent) => {
    if (e.origin !== origin || e.source !== window.parent) return;
    const data = e.data as { type?: unknown; settings?: unknown } | null;
    if (!data || data.type !== 'showsuite:draft' || typeof data.settings !== 'object' || data.settings === null || Array.isArray(data.settings)) return;
    apply(data.settings as Settings);
  });
  window.parent.postMessage({ type: 'showsuite:ready' }, origin);
}
