/**
 * `srcset` for uploaded pictures, shared by the server-drawn HTML, the buyer's page and the console (no imports, so
 * every bundle can take it). Only this service's own raster uploads get one: SVGs scale themselves, PDFs are not
 * drawn, and any other address (the demo's static pictures, another site's) is left as it is.
 */

/** The widths offered: multiples of 16, so the server's rounding leaves them as they are. */
const WIDTHS = [160, 320, 480, 640, 960, 1280, 1920, 2560];

const RESIZABLE = /^\/media\/[0-9a-f]{32}\.(?:png|jpg|webp)$/;

/**
 * `<url>?w=160 160w, <url>?w=320 320w, …` up to `largest` (the widest the picture is drawn at on a 3× screen is
 * plenty), or undefined when `url` is not an uploaded raster picture of `origin` (or relative).
 */
export function mediaSrcset(url: string | undefined, origin: string, largest = 2560): string | undefined {
  if (!url) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url, origin);
  } catch {
    return undefined;
  }
  if (parsed.origin !== new URL(origin).origin || parsed.search || parsed.hash || !RESIZABLE.test(parsed.pathname)) return undefined;
  const widths = WIDTHS.filter((w) => w <= largest);
  return widths.map((w) => `${url}?w=${w} ${w}w`).join(', ');
}
