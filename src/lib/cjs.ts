/**
 * The exports of a CommonJS package loaded with `import()`, the same object wherever the code runs. Node's
 * namespace for such a package carries `module.exports` as `default` plus whatever names it could detect; the
 * built server's chunk for it (esbuild, code splitting) carries `default` only. Taking `default` first gives
 * `module.exports` in both, so a name read from it exists in the sources and in `dist/` alike.
 * `npm run build` refuses a named export taken from such an import any other way (scripts/lazy-imports.mjs).
 */
export function commonJs<T extends object>(namespace: T): T {
  return (namespace as { default?: T }).default ?? namespace;
}
