/** Import rules checked by `npm test` (npm run lint:deps, over src/ and web/): no cycles, and lower layers never import higher ones. */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: split the shared part into a lower layer.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'lib-is-the-bottom',
      severity: 'error',
      comment: 'src/lib/ (clock, ids, errors, passwords, crypto) imports nothing else from src/.',
      from: { path: '^src/lib/' },
      to: { path: '^src/(?!lib/)' },
    },
    {
      name: 'db-below-http-and-modules',
      severity: 'error',
      comment: 'src/db/ knows SQL and the error catalogue, not HTTP or resources.',
      from: { path: '^src/db/' },
      to: { path: '^src/(http|modules|public|presentation)/' },
    },
    {
      name: 'http-below-modules',
      severity: 'error',
      comment: 'src/http/ is the edge every module uses (errors, auth, schemas); what it needs of a module is handed in by the app.',
      from: { path: '^src/http/' },
      to: { path: '^src/(modules|public|presentation)/' },
    },
    {
      name: 'modules-below-public',
      severity: 'error',
      comment: 'src/modules/ own their tables and rules; src/public/ (what anonymous visitors reach) builds on them, never the other way.',
      from: { path: '^src/modules/' },
      to: { path: '^src/(public|presentation)/' },
    },
    {
      name: 'holds-through-its-interface',
      severity: 'error',
      comment:
        "The holds module (placing, the token's read, extension and release, the sweeper, the priority offer) is reached through src/modules/holds/index.ts; only its rules (hold-rules.ts, pure) are imported directly, by the files that render, read and write units.",
      from: { pathNot: '^src/modules/holds/' },
      to: { path: '^src/modules/holds/', pathNot: '^src/modules/holds/(index|hold-rules)\\.ts$' },
    },
    {
      name: 'no-other-modules-repo',
      severity: 'error',
      comment:
        "A module's SQL (*.repo.ts) is its own: another module, src/public/ or src/presentation/ uses what it offers through its index.ts or *.service.ts. The imports from before this rule are listed in .dependency-cruiser-known-violations.json (npm run lint:deps ignores them; docs/architecture.md says why); a new one fails.",
      from: { path: '^src/(modules/[^/]+|public|presentation)/' },
      to: { path: '^src/(modules/[^/]+|public|presentation)/[^/]+\\.repo\\.ts$', pathNot: '^src/$1/' },
    },
    {
      name: 'routes-through-services',
      severity: 'error',
      comment:
        "A *.routes.ts file is schema → service → reply: what it reads or writes goes through its module's service, which checks access first; SQL lives in *.repo.ts and src/db/ only.",
      from: { path: '\\.routes\\.ts$' },
      to: { path: ['\\.repo\\.ts$', '^src/db/'] },
    },
    {
      name: 'server-runs-on-dependencies',
      severity: 'error',
      comment:
        'The production install (`npm ci --omit=dev`, the image) has `dependencies` only: a package src/ loads at run time (statically or with import()) belongs there, not in devDependencies. Type-only imports are erased.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-undeclared-packages',
      severity: 'error',
      comment: 'A package imported but not in package.json (found only because another package brought it).',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'src-not-from-tests',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
