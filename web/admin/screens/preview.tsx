import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../ui.tsx';
import { STATUS_COLOURS } from '../../status-colours.ts';

/** The page's own colours where a project sets none (the colour fields' placeholders and pickers start from them). */
export const DEFAULTS: Record<string, string> = {
  colorBase: '#1f2a44',
  colorHover: '#2f3d60',
  colorButton: '#1f2a44',
  colorButtonText: '#ffffff',
  colorText: '#1b1d21',
  colorAccent: '#b3412c',
  colorAvailable: STATUS_COLOURS.available,
  colorReserved: STATUS_COLOURS.reserved,
  colorSold: STATUS_COLOURS.sold,
};

type Size = 'phone' | 'desktop';
const FRAME: Record<Size, { width: number; height: number; scale: number }> = {
  phone: { width: 390, height: 720, scale: 0.9 },
  desktop: { width: 1280, height: 900, scale: 0.28 },
};

/**
 * The settings' preview: the buyer's page itself (its preview link, so a draft shows too) in a frame, drawn with the
 * settings being edited before they are saved. The page listens only to this console's origin (web/preview-frame.ts);
 * it says when it is ready, then gets the unsaved settings each time they change. It is the live page: an enquiry or a
 * hold placed in it is real.
 */
export function PagePreview({ projectId, draft, version }: { projectId: string; draft: Record<string, unknown>; version: number }) {
  const [link, setLink] = useState<string>();
  const [error, setError] = useState<unknown>();
  // Each page that says it is ready (a new frame, a reload) is sent the draft: a count, so every one is.
  const [ready, setReady] = useState(0);
  const [size, setSize] = useState<Size>('phone');
  const frame = useRef<HTMLIFrameElement>(null);
  useEffect(() => {
    api
      .get(`/projects/${projectId}/preview-link`)
      .then((l) => setLink(`${l.url}&v=${version}`))
      .catch(setError);
  }, [projectId, version]);
  const origin = link ? new URL(link).origin : undefined;
  useEffect(() => {
    const heard = (e: MessageEvent) => {
      if (e.origin === origin && e.source === frame.current?.contentWindow && (e.data as { type?: unknown } | null)?.type === 'showsuite:ready')
        setReady((n) => n + 1);
    };
    window.addEventListener('message', heard);
    return () => window.removeEventListener('message', heard);
  }, [origin]);
  useEffect(() => {
    if (ready && origin) frame.current?.contentWindow?.postMessage({ type: 'showsuite:draft', settings: draft }, origin);
  }, [ready, origin, draft]);
  const f = FRAME[size];
  return (
    <aside class="page-preview" aria-label="Preview of the page">
      <div class="row">
        <strong>Preview</strong>
        <span class="seg" role="group" aria-label="Preview size">
          {(['phone', 'desktop'] as const).map((s) => (
            <button key={s} type="button" class="secondary" aria-pressed={size === s} onClick={() => setSize(s)}>
              {s === 'phone' ? 'Phone' : 'Desktop'}
            </button>
          ))}
        </span>
      </div>
      <ErrorNotice error={error} />
      {link && (
        <div class="frame-box" style={{ width: `${f.width * f.scale}px`, height: `${f.height * f.scale}px` }}>
          <iframe
            ref={frame}
            key={size}
            title="The buyer's page with these settings"
            src={link}
            width={f.width}
            height={f.height}
            style={{ transform: `scale(${f.scale})` }}
          />
        </div>
      )}
      <p class="muted small">The page itself, with unsaved changes drawn as you make them. It is the live page: an enquiry or a hold placed here is real.</p>
    </aside>
  );
}
