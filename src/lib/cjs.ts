/**
 * A named export of a dynamically imported CommonJS package. Run from source, Node gives its named exports; in the
 * esbuild bundle a CommonJS module may come back as `{ default: module.exports }` only. Either way this finds it.
 */
// The caller names the export's type: the module's own type declarations describe it.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
export function exportOf<T>(mod: unknown, name: string): T {
  const m = mod as Record<string, unknown> & { default?: Record<string, unknown> };
  const value = m[name] ?? m.default?.[name];
  if (value === undefined) throw new Error(`module has no export ${name}`);
  return value as T;
}
