/** Small pieces every view draws for a unit: its status badge and the picture that stands for it. */
import { h, safeUrl } from '../dom.ts';
import { statusText } from '../format.ts';
import type { Room } from '../types.ts';

export const badge = (u: Room) => h('span', { class: `badge s-${u.availability}` }, statusText(u.availability));

export function unitImage(u: Room, prefer: 'plan' | 'photo'): string | undefined {
  const photo = u.unitImageUrl ?? (Array.isArray(u.images) ? u.images[0] : undefined);
  return safeUrl(prefer === 'plan' ? (u.layoutUrl ?? photo) : (photo ?? u.layoutUrl));
}
