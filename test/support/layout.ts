import type { Page } from 'playwright-core';

/**
 * What a person would see wrong in a drawn page, measured in it rather than judged from a screenshot:
 * - `apart`: inside each element matching `within`, no box of `a` meets a box of any of `b` (a button over a label);
 * - `unclipped`: no element matching these is cut off (content wider than its box: scrollWidth > clientWidth), and no
 *   word in it is broken across two lines ("Availabi-lity": the word's range has boxes on more than one line).
 * Only elements that are drawn (a box with an area) count. Returns one sentence per fault, none when the page is right;
 * `counted` says how many elements each check looked at, so a test can tell that it checked anything.
 */
export interface LayoutChecks {
  apart?: { within: string; a: string; b: string[] }[];
  unclipped?: string[];
}

export async function layoutFaults(page: Page, checks: LayoutChecks): Promise<{ faults: string[]; counted: number }> {
  return page.evaluate((c) => {
    const faults: string[] = [];
    let counted = 0;
    // No named helpers in here: the test runner's compiler would wrap them in a function the page does not have.
    const boxOf = new Map<Element, DOMRect | undefined>();
    const label = new Map<Element, string>();
    for (const el of document.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      boxOf.set(el, r.width > 0 && r.height > 0 ? r : undefined);
      label.set(el, `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${[...el.classList].join('.')} "${(el.textContent ?? '').trim().slice(0, 30)}"`);
    }
    for (const rule of c.apart ?? []) {
      for (const scope of document.querySelectorAll(rule.within)) {
        for (const a of scope.querySelectorAll(rule.a)) {
          const ra = boxOf.get(a);
          if (!ra) continue;
          for (const sel of rule.b) {
            for (const b of scope.querySelectorAll(sel)) {
              const rb = boxOf.get(b);
              if (!rb) continue;
              counted++;
              const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
              const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
              // A pixel of anti-aliased edge is not an overlap.
              if (w > 1 && h > 1) faults.push(`${label.get(a)} covers ${label.get(b)} (${Math.round(w)}×${Math.round(h)} px)`);
            }
          }
        }
      }
    }
    for (const sel of c.unclipped ?? []) {
      for (const el of document.querySelectorAll<HTMLElement>(sel)) {
        if (!boxOf.get(el)) continue;
        counted++;
        if (el.scrollWidth > el.clientWidth + 1) faults.push(`${label.get(el)} is clipped: ${el.scrollWidth} px of content in ${el.clientWidth} px`);
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.textContent ?? '';
          for (const word of text.matchAll(/\S+/g)) {
            const range = document.createRange();
            range.setStart(node, word.index);
            range.setEnd(node, word.index + word[0].length);
            const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
            if (tops.size > 1) faults.push(`${label.get(el)}: the word "${word[0]}" is broken across ${tops.size} lines`);
          }
        }
      }
    }
    return { faults, counted };
  }, checks);
}
