/**
 * The statuses' colours: the one definition the buyer's page (its CSS variables, web/theme.ts) and the console (its
 * grid, plan editor and preview) both draw with, so a status reads the same in both. Okabe and Ito's colour-blind-safe
 * palette; each status also has a mark on the page (web/views/legend.ts). A project's `colorAvailable`,
 * `colorReserved` and `colorSold` replace the three they name.
 */
export const STATUS_COLOURS = {
  available: '#009e73',
  on_hold: '#e69f00',
  reserved: '#0072b2',
  sold: '#d55e00',
  leased: '#cc79a7',
  unavailable: '#5f6368',
} as const;

export type StatusName = keyof typeof STATUS_COLOURS;

/** The project settings that replace a status's colour. */
export const OWN_STATUS_COLOUR: Partial<Record<StatusName, 'colorAvailable' | 'colorReserved' | 'colorSold'>> = {
  available: 'colorAvailable',
  reserved: 'colorReserved',
  sold: 'colorSold',
};

const isStatus = (s: string): s is StatusName => s in STATUS_COLOURS;

/** A status's colour for a project whose settings are `s`: its own where it set a valid one, else the default. */
export function statusColour(s: Readonly<Record<string, unknown>>, availability: string): string {
  const status = isStatus(availability) ? availability : 'unavailable';
  const key = OWN_STATUS_COLOUR[status];
  const own = key ? s[key] : undefined;
  return typeof own === 'string' && /^#[0-9a-f]{3,8}$/i.test(own) ? own : STATUS_COLOURS[status];
}
