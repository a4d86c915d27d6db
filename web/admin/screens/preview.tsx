import { STATUS_COLOURS } from '../../status-colours.ts';
/** A small live picture of the buyer's page in the chosen colours (the page's defaults where none is set). */
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

const valid = (c: string | undefined) => (c && /^#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i.test(c) ? c : undefined);

/** Black or white, whichever reads better on `hex` (as the page does). */
function ink(hex: string): string {
  let h = hex.slice(1);
  if (h.length === 3) h = Array.from(h, (x) => x + x).join('');
  const [r, g, b] = [0, 2, 4].map((i) => {
    const v = parseInt(h.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  const l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return (l + 0.05) / 0.05 > 1.05 / (l + 0.05) ? '#111111' : '#ffffff';
}

export function Preview({ name, colours }: { name: string; colours: Record<string, string | undefined> }) {
  const col = (k: string) => valid(colours[k]) ?? DEFAULTS[k];
  const units: [string, string, string][] = [
    ['A1', 'colorAvailable', 'Available'],
    ['A2', 'colorReserved', 'Reserved'],
    ['A3', 'colorSold', 'Sold'],
  ];
  return (
    <figure class="preview" aria-label="Preview of the public page in these colours">
      <div class="preview-page" style={{ color: col('colorText') }}>
        <div class="preview-title" style={{ color: col('colorBase') }}>
          {name || 'Your project'}
        </div>
        <div class="preview-chips">
          <span style={{ background: col('colorBase'), color: ink(col('colorBase')) }}>Level 1</span>
          <span style={{ borderColor: col('colorBase'), color: col('colorBase') }}>Level 2</span>
        </div>
        <svg viewBox="0 0 300 90" role="img" aria-label="A floor plan with three units in the availability colours">
          {units.map(([n, k], i) => (
            <g key={n}>
              <rect x={8 + i * 98} y={8} width={88} height={74} rx={4} fill={col(k)} fill-opacity={0.85} stroke="#fff" stroke-width={2} />
              <text x={52 + i * 98} y={50} text-anchor="middle" fill={ink(col(k))} font-size={16} font-weight={700}>
                {n}
              </text>
            </g>
          ))}
        </svg>
        <div class="preview-cards">
          {units.map(([n, k, label]) => (
            <div key={n} class="preview-card" style={{ borderLeftColor: col(k) }}>
              <strong>{n}</strong> <span style={{ background: col(k), color: ink(col(k)) }}>{label}</span>
            </div>
          ))}
        </div>
        <span class="preview-button" style={{ background: col('colorButton'), color: col('colorButtonText') }}>
          Enquire
        </span>{' '}
        {/* Prices on the page are in the accent colour (web/app.css .price), so here too. */}
        <span style={{ color: col('colorAccent'), fontWeight: 700 }}>From $450,000</span>
      </div>
      <figcaption class="muted small">Preview: unsaved colours shown as you type.</figcaption>
    </figure>
  );
}
