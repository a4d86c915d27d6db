/**
 * "Book a visit": the project's Cal.com booking page (the bundle's `bookingUrl`, present when the project has a
 * `calUsername`), from the hero and from the unit sheet. A plain link that opens a new tab, so nothing of Cal.com is
 * loaded until it is pressed, the page's Content-Security-Policy stays as it is (no frame, no script of another
 * origin), and Cal.com's page can neither reach this one (`noopener`) nor read its address (`noreferrer`: it may carry
 * a preview or hold token). Its address is made when pressed: the visitor's name and e-mail if they gave them on this
 * visit, a note naming the project (and the unit), and the unit's id as the booking's metadata, so the booking's lead
 * names the unit (docs/integrations.md).
 */
import { h, safeUrl } from './dom.ts';
import { loaded } from './state.ts';
import type { Room } from './types.ts';
import { savedVisitor } from './visitor.ts';

const WORDS = {
  en: { book: 'Book a visit', short: 'Book a visit', note: (p: string, u?: string) => `Visit of ${p}${u ? `, unit ${u}` : ''}` },
  fr: { book: 'Réserver une visite', short: 'Visiter', note: (p: string, u?: string) => `Visite de ${p}${u ? `, lot ${u}` : ''}` },
  es: { book: 'Reservar una visita', short: 'Visitar', note: (p: string, u?: string) => `Visita de ${p}${u ? `, unidad ${u}` : ''}` },
};
const words = () => (WORDS as Record<string, (typeof WORDS)['en'] | undefined>)[document.documentElement.lang] ?? WORDS.en;

/** The booking page's address for this visitor now: prefilled as Cal.com's booking links take it. */
export function bookingHref(base: string, unit?: Room): string {
  const url = new URL(base);
  const project = loaded().project;
  const visitor = savedVisitor();
  const name = [visitor.firstName, visitor.lastName].filter(Boolean).join(' ');
  if (name) url.searchParams.set('name', name);
  if (visitor.email) url.searchParams.set('email', visitor.email);
  url.searchParams.set('notes', words().note(project.name, unit && !unit.stub ? unit.name : undefined));
  url.searchParams.set('metadata[project]', project._id);
  if (unit && !unit.stub) {
    url.searchParams.set('metadata[unit]', unit._id);
    url.searchParams.set('metadata[unitName]', unit.name);
  }
  return url.href;
}

/**
 * The "Book a visit" link, or undefined when the project has no booking page. `unit`: the sheet's unit (its action bar
 * takes the short word, beside Hold, which in French and Spanish is the same verb).
 */
export function bookVisitLink(id: string, className: string, unit?: Room): HTMLAnchorElement | undefined {
  const base = safeUrl(loaded().project.bookingUrl);
  if (!base) return undefined;
  const link = h(
    'a',
    { href: base, 'data-base': base, id, class: className, target: '_blank', rel: 'noopener noreferrer', referrerpolicy: 'no-referrer' },
    unit ? words().short : words().book,
  );
  // Made when pressed (a click, a middle click, the menu to open it elsewhere, the keyboard): what the visitor typed since counts.
  const fill = () => (link.href = bookingHref(base, unit));
  for (const type of ['click', 'auxclick', 'contextmenu', 'focus']) link.addEventListener(type, fill);
  return link;
}

/** The hero's link, kept as the bundle says (added, changed or taken away). */
export function syncHeroBooking(heroText: Element | null) {
  const old = document.getElementById('book-visit');
  const next = heroText ? bookVisitLink('book-visit', 'hero-link') : undefined;
  if (old && next && old.dataset.base === next.dataset.base && old.textContent === next.textContent) return;
  old?.remove();
  if (next && heroText) heroText.append(next);
}
