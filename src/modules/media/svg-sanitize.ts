import { SaxesParser, type SaxesAttributeNS, type SaxesTagNS } from 'saxes';

export const SVG_NS = 'http://www.w3.org/2000/svg';
const XLINK_NS = 'http://www.w3.org/1999/xlink';
const XML_NS = 'http://www.w3.org/XML/1998/namespace';

/**
 * Elements kept, by local name in the SVG namespace. Everything else is dropped with its whole subtree: scripts,
 * foreignObject (HTML inside SVG), animation elements (they can rewrite an href to `javascript:`), feImage,
 * iframes, elements of other namespaces. An allowlist, so a name nobody thought of is dropped too.
 */
const ELEMENTS = new Set([
  'svg',
  'g',
  'defs',
  'title',
  'desc',
  'symbol',
  'use',
  'switch',
  'view',
  'style',
  'path',
  'rect',
  'circle',
  'ellipse',
  'line',
  'polyline',
  'polygon',
  'text',
  'tspan',
  'textPath',
  'image',
  'linearGradient',
  'radialGradient',
  'stop',
  'pattern',
  'clipPath',
  'mask',
  'marker',
  'filter',
  'feBlend',
  'feColorMatrix',
  'feComponentTransfer',
  'feComposite',
  'feConvolveMatrix',
  'feDiffuseLighting',
  'feDisplacementMap',
  'feDistantLight',
  'feDropShadow',
  'feFlood',
  'feFuncA',
  'feFuncB',
  'feFuncG',
  'feFuncR',
  'feGaussianBlur',
  'feMerge',
  'feMergeNode',
  'feMorphology',
  'feOffset',
  'fePointLight',
  'feSpecularLighting',
  'feSpotLight',
  'feTile',
  'feTurbulence',
]);
/** Links: their element goes, what they wrap stays. */
const UNWRAP = new Set(['a']);

const ATTRIBUTE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
/** A raster picture inlined as data; the only non-local reference an `image` may keep. */
const DATA_IMAGE = /^data:image\/(png|jpeg|webp|gif);base64,[A-Za-z0-9+/=\s]*$/i;
/** url(...) anywhere (CSS, fill, filter, clip-path, ...) must point inside the document (`url(#id)`). */
const URL_REF = /url\s*\(\s*(['"]?)\s*([^'")\s]*)/gi;
const CSS_DANGER = /@import|expression\s*\(|javascript:|behavior\s*:|-moz-binding|\\/i;

export class NotSvgError extends Error {}

/** Browsers ignore C0 control characters inside a URL scheme (`java\u0001script:`), so the check must too. */
const withoutControlChars = (s: string) =>
  Array.from(s)
    .filter((c) => c.charCodeAt(0) > 0x1f)
    .join('');
const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string) =>
  escapeText(s)
    .replace(/"/g, '&quot;')
    .replace(/[\t\n\r]/g, (c) => `&#${c.charCodeAt(0)};`);

function onlyLocalUrls(value: string): boolean {
  for (const m of value.matchAll(URL_REF)) {
    if (!(m[2] ?? '').startsWith('#')) return false;
  }
  return true;
}

const safeCss = (css: string) => !CSS_DANGER.test(css) && onlyLocalUrls(css);

/** The attribute as it may be written out, or undefined when it must go. */
function keepAttribute(element: string, attr: SaxesAttributeNS): [string, string] | undefined {
  const { local, uri, value } = attr;
  if (attr.prefix === 'xmlns' || attr.name === 'xmlns') return undefined; // the serialiser declares namespaces
  if (uri === XLINK_NS) {
    if (local !== 'href') return undefined;
  } else if (uri === XML_NS) {
    return local === 'space' || local === 'lang' ? [`xml:${local}`, value] : undefined;
  } else if (uri !== '') {
    return undefined;
  }
  if (!ATTRIBUTE_NAME.test(local) || /^on/i.test(local)) return undefined;
  if (local === 'href') {
    const v = value.trim();
    if (v.startsWith('#') || (element === 'image' && DATA_IMAGE.test(v))) return ['href', v];
    return undefined;
  }
  if (local === 'style' && !safeCss(value)) return undefined;
  if (/javascript:|vbscript:|data:text/i.test(withoutControlChars(value.replace(/\s/g, '')))) return undefined;
  if (!onlyLocalUrls(value)) return undefined;
  return [local, value];
}

/**
 * Parses `input` as XML (strictly: a DTD's entities are not expanded, an undefined entity is an error) and writes
 * out only allowlisted SVG elements and attributes: no scripts, event handlers, foreignObject, external
 * references (href only to `#fragment`, or an inline raster image), url() only to fragments, no comments,
 * processing instructions or DOCTYPE. Throws NotSvgError when it is not well-formed XML with an `<svg>` root.
 */
export function sanitizeSvg(input: string): string {
  const parser = new SaxesParser({ xmlns: true, position: false });
  const out: string[] = [];
  // Per open element: was it written (so its close tag is written), and is its subtree being dropped.
  const stack: { written: boolean; dropping: boolean; name: string }[] = [];
  let rootSeen = false;
  let error: Error | undefined;

  parser.on('error', (err) => {
    error ??= err;
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    const parent = stack[stack.length - 1];
    const local = tag.local;
    const isSvgNs = tag.uri === SVG_NS || tag.uri === '';
    if (!parent) {
      if (rootSeen || local !== 'svg' || !isSvgNs) error ??= new NotSvgError('the root element is not <svg>');
      rootSeen = true;
    }
    if (parent?.dropping || !isSvgNs || (!ELEMENTS.has(local) && !UNWRAP.has(local))) {
      stack.push({ written: false, dropping: true, name: local });
      return;
    }
    if (UNWRAP.has(local)) {
      stack.push({ written: false, dropping: false, name: local });
      return;
    }
    const attrs: string[] = [];
    for (const attr of Object.values(tag.attributes)) {
      const kept = keepAttribute(local, attr);
      if (kept) attrs.push(` ${kept[0]}="${escapeAttr(kept[1])}"`);
    }
    const ns = parent ? '' : ` xmlns="${SVG_NS}"`;
    out.push(`<${local}${ns}${attrs.join('')}>`);
    stack.push({ written: true, dropping: false, name: local });
  });
  parser.on('closetag', () => {
    const top = stack.pop();
    if (top?.written) out.push(`</${top.name}>`);
  });
  const text = (t: string) => {
    const top = stack[stack.length - 1];
    if (!top || top.dropping) return;
    if (top.name === 'style' && !safeCss(t)) return;
    out.push(escapeText(t));
  };
  parser.on('text', text);
  parser.on('cdata', text);

  try {
    parser.write(input.charCodeAt(0) === 0xfeff ? input.slice(1) : input).close();
  } catch (err) {
    error ??= err as Error;
  }
  if (error) throw error instanceof NotSvgError ? error : new NotSvgError(`not well-formed XML: ${error.message.split('\n')[0]}`);
  // Set in the parser's opentag callback, which TypeScript's flow analysis does not follow.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  if (!rootSeen) throw new NotSvgError('no <svg> element');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${out.join('')}\n`;
}
