/** Small pieces every view draws for a unit: its status badge and the picture that stands for it. */
import { h, safeUrl } from '../dom.ts';
import { statusText } from '../format.ts';
import type { Room } from '../types.ts';
import { myHold } from '../holds.ts';
import { showsStatus } from '../state.ts';
import { holdBadge } from './hold.ts';
import { u as words } from '../unit-words.ts';

/** A unit's status badge (none where the project hides availability); the visitor's own hold reads "Held for you". */
export const badge = (u: Room, id?: string) =>
  myHold(u._id) ? holdBadge(id) : showsStatus() ? h('span', { class: `badge s-${u.availability}` }, statusText(u.availability)) : undefined;

/** The Featured mark of a unit the sales team features (`isFeatured`), drawn in the project's `colorFeatured`. */
export const featuredMark = (u: Room) =>
  u.isFeatured === true ? h('span', { class: 'badge featured-badge', 'data-featured': 'true' }, words().featured) : undefined;

/** The layout's name (`type`), when the unit has one. */
export const layoutName = (u: Room) => (typeof u.type === 'string' && u.type.trim() !== '' ? u.type.trim() : undefined);

export function unitImage(u: Room, prefer: 'plan' | 'photo'): string | undefined {
  const photo = u.unitImageUrl ?? (Array.isArray(u.images) ? u.images[0] : undefined);
  return safeUrl(prefer === 'plan' ? (u.layoutUrl ?? photo) : (photo ?? u.layoutUrl));
}
