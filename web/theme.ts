/** The project's colours and font as CSS variables, kept readable whatever the project picks. */
import { settings } from './state.ts';
import { STATUS_COLOURS } from './status-colours.ts';

export function applyTheme() {
  const s = settings();
  const root = document.documentElement;
  // The statuses' defaults come from the definition the console shares; the project's own colours follow.
  for (const [status, colour] of Object.entries(STATUS_COLOURS)) root.style.setProperty(`--${status.replace('_', '-')}`, colour);
  const vars: Record<string, unknown> = {
    '--base': s.colorBase,
    '--accent': s.colorAccent ?? s.accentColor,
    '--hover': s.colorHover,
    '--button': s.colorButton,
    '--button-text': s.colorButtonText,
    '--text': s.colorText,
    '--featured': s.colorFeatured,
    '--available': s.colorAvailable,
    '--sold': s.colorSold,
    '--reserved': s.colorReserved,
  };
  for (const [k, v] of Object.entries(vars)) {
    if (typeof v === 'string' && /^#[0-9a-fA-F]{3,8}$|^[a-z]+$|^rgba?\([\d\s.,%]+\)$/.test(v)) root.style.setProperty(k, v);
    // A colour unset again (the console's preview discarding a change) goes back to the stylesheet's.
    else if (!k.startsWith('--available') && !k.startsWith('--sold') && !k.startsWith('--reserved')) root.style.removeProperty(k);
  }
  // styleShapes: square corners on every card, control and picture frame (app.css); anything else keeps them rounded.
  if (s.styleShapes === 'square') root.dataset.shapes = 'square';
  else delete root.dataset.shapes;
  // The layout's styles (app.css, on a desktop; a phone keeps its own): styleNavigation `side` puts the floors in a
  // column beside the homes, styleFilter `panel` puts the filters behind a button in a side panel, styleBranding
  // `dark` draws the service's line on a dark strip, invertNav mirrors the panels (floors, the plan's list).
  const layout: Record<string, string | undefined> = {
    nav: s.styleNavigation === 'side' ? 'side' : undefined,
    filter: s.styleFilter === 'panel' ? 'panel' : undefined,
    branding: s.styleBranding === 'dark' ? 'dark' : undefined,
    invert: s.invertNav === true ? 'true' : undefined,
  };
  for (const [k, v] of Object.entries(layout)) {
    if (v) root.dataset[k] = v;
    else delete root.dataset[k];
  }
  // The brand font (styleFont) is linked by the server (and allowed by that page's CSP); here it is put first.
  const font = document.body.dataset.font;
  if (font) root.style.setProperty('--font', `'${font}', system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif`);
  keepReadable();
}

/**
 * Words drawn on or in the project's colours must stay readable (WCAG AA, 4.5:1). Text on a coloured background
 * (badges, pressed chips, buttons) becomes white or near-black, whichever reads better; a colour used as text on the
 * white surface falls back to the text colour when it is too light.
 */
function keepReadable() {
  const root = document.documentElement;
  // Every colour is read once and every variable written once at the end: setting a variable on the root and then
  // reading a computed style would restyle the whole document each time.
  const css = getComputedStyle(root);
  const value = (name: string) => css.getPropertyValue(name).trim();
  let probe: HTMLElement | undefined;
  const rgb = (color: string): number[] => {
    const hex = /^#([0-9a-f]{3,8})$/i.exec(color)?.[1];
    if (hex) {
      const full = hex.length <= 4 ? Array.from(hex, (c) => c + c).join('') : hex;
      return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16));
    }
    const nums = /^rgba?\(([^)]+)\)$/.exec(color)?.[1];
    if (nums)
      return nums
        .split(/[\s,/]+/)
        .slice(0, 3)
        .map(Number);
    // A colour name: let the browser say what it is (rare; the theme allows names).
    probe ??= document.body.appendChild(document.createElement('span'));
    probe.style.color = color;
    return (getComputedStyle(probe).color.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
  };
  const luminance = (color: string) => {
    const [r = 0, g = 0, b = 0] = rgb(color).map((c) => {
      const x = c / 255;
      return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const contrast = (a: string, b: string) => {
    const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const on = (bg: string) => (contrast('#ffffff', bg) >= contrast('#111111', bg) ? '#ffffff' : '#111111');
  const out: Record<string, string> = {};
  for (const name of ['base', 'featured', 'available', 'on-hold', 'reserved', 'sold', 'leased', 'unavailable']) out[`--on-${name}`] = on(value(`--${name}`));
  const buttonText = contrast(value('--button-text'), value('--button')) < 4.5 ? on(value('--button')) : value('--button-text');
  out['--button-text'] = buttonText;
  if (contrast(buttonText, value('--hover')) < 4.5) out['--button-hover-text'] = on(value('--hover'));
  for (const name of ['base', 'accent', 'available'])
    out[`--${name}-ink`] = contrast(value(`--${name}`), value('--surface')) >= 4.5 ? `var(--${name})` : 'var(--text)';
  probe?.remove();
  for (const [k, v] of Object.entries(out)) root.style.setProperty(k, v);
}
