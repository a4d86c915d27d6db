/**
 * The exports of a package loaded with `import()`, the same names wherever the code runs. Node gives a CommonJS
 * package's namespace its detected names plus `module.exports` as `default`; the built server's chunk for it
 * (esbuild, code splitting) carries `default` only; and a package Node loads as an ES module may have a `default`
 * export of its own that lacks the named ones (@opentelemetry/api's). So a name is read from the namespace first,
 * then from `default`: it exists in the sources and in `dist/` alike.
 * `npm run build` refuses a named export taken from a bundled CommonJS package any other way (scripts/lazy-imports.mjs).
 */
export function commonJs<T extends object>(namespace: T): T {
  const fallback = (namespace as { default?: unknown }).default;
  if (fallback === null || (typeof fallback !== 'object' && typeof fallback !== 'function')) return namespace;
  const merged: Record<string, unknown> = {};
  for (const key of Object.keys(fallback)) merged[key] = (fallback as Record<string, unknown>)[key];
  for (const key of Object.keys(namespace)) if (key !== 'default') merged[key] = (namespace as Record<string, unknown>)[key];
  return merged as T;
}
