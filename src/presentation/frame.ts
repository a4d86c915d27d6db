/**
 * The document of a unit's sandboxed frame: the code the project's team wrote (a tour or video's embed code, the
 * custom button's snippet), as it is, in a page of its own. The policy sandboxes it whoever loads it: without
 * `allow-same-origin` the document has an opaque origin, so the code cannot reach the page that frames it, nor any
 * cookie or storage of the service's origins; it may run scripts, play media, open popups and go full screen.
 */
export const FRAME_CSP = [
  'sandbox allow-scripts allow-popups allow-popups-to-escape-sandbox allow-forms allow-presentation allow-modals',
  'frame-ancestors *',
].join('; ');

export function frameDocument(code: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><style>html,body{margin:0;height:100%;font-family:system-ui,sans-serif}iframe,video{border:0;width:100%;height:100%;display:block}</style></head><body>${code}</body></html>`;
}
