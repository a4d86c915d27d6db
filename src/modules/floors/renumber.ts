/**
 * Floor and unit names renumbered for a copied floor: "Level 1" → "Level 2" (the next number no floor has), and its
 * units' numbers with the floor's digits replaced (101 → 201, A-1204 → A-1304). A name these rules do not fit is kept
 * with " (copy)", as before.
 */

/** The floor's number: the last run of digits in its name ("Level 12" → 12), if any. */
export function floorNumber(name: string): number | undefined {
  const m = /(\d+)(?!.*\d)/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** The next floor name after `name` that no floor of `taken` has, or undefined when the name carries no number. */
export function nextFloorName(name: string, taken: readonly string[]): { name: string; from: number; to: number } | undefined {
  const m = /^(.*?)(\d+)(\D*)$/.exec(name);
  if (!m) return undefined;
  const [, head = '', digits = '', tail = ''] = m;
  const names = new Set(taken.map((t) => t.trim().toLowerCase()));
  const from = Number(digits);
  let to = from + 1;
  while (names.has(`${head}${to}${tail}`.trim().toLowerCase())) to++;
  return { name: `${head}${to}${tail}`, from, to };
}

/**
 * A unit's name on floor `to` for its name on floor `from`: the last run of digits starts with the floor's number
 * and has at least two more digits (101 on floor 1, 1201 on floor 12); undefined otherwise.
 */
export function renumberUnit(name: string, from: number, to: number): string | undefined {
  const m = /^(.*?)(\d+)(\D*)$/.exec(name);
  if (!m) return undefined;
  const [, head = '', digits = '', tail = ''] = m;
  const prefix = String(from);
  if (!digits.startsWith(prefix) || digits.length < prefix.length + 2) return undefined;
  return `${head}${to}${digits.slice(prefix.length)}${tail}`;
}

/**
 * What matches a unit to its counterpart on another floor: the last two digits of its number and what follows
 * (101 and 201 → "01"; 1204A → "04a"); undefined for a name without digits.
 */
export function unitSuffix(name: string): string | undefined {
  const m = /(\d{1,2})(\D*)$/.exec(name.trim());
  return m ? `${(m[1] ?? '').padStart(2, '0')}${m[2] ?? ''}`.toLowerCase() : undefined;
}

/**
 * Pairs each target unit with a source unit: by suffix where both floors have it once, then the rest by their
 * order on their floors. Both lists in floor order; the answer maps target index → source index.
 */
export function matchUnits(sources: readonly { name: string }[], targets: readonly { name: string }[]): Map<number, number> {
  const unique = (list: readonly { name: string }[]) => {
    const seen = new Map<string, number>();
    const twice = new Set<string>();
    list.forEach((u, i) => {
      const s = unitSuffix(u.name);
      if (s === undefined) return;
      if (seen.has(s)) twice.add(s);
      seen.set(s, i);
    });
    for (const s of twice) seen.delete(s);
    return seen;
  };
  const bySource = unique(sources);
  const pairs = new Map<number, number>();
  const usedSources = new Set<number>();
  for (const [suffix, ti] of unique(targets)) {
    const si = bySource.get(suffix);
    if (si === undefined) continue;
    pairs.set(ti, si);
    usedSources.add(si);
  }
  const restSources = sources.map((_, i) => i).filter((i) => !usedSources.has(i));
  const restTargets = targets.map((_, i) => i).filter((i) => !pairs.has(i));
  restTargets.forEach((ti, k) => {
    const si = restSources[k];
    if (si !== undefined) pairs.set(ti, si);
  });
  return pairs;
}
