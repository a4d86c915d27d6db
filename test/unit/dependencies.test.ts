import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../src/lib/paths.ts';

/**
 * The production install (`npm ci --omit=dev`, what the image ships) holds what the server loads and nothing else:
 * every package src/ imports at run time (statically or lazily with import()) is in `dependencies`, and every entry
 * of `dependencies` is such a package. The page's and the console's packages (web/) ship as their bundles in
 * public-build/ and are devDependencies. `npm run lint:deps` holds the first half too (rule server-runs-on-dependencies).
 */

const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const builtins = new Set(builtinModules);

function filesUnder(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name), ext) : ext.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`); undefined for a relative path or a Node module. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:') || builtins.has(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Files with an import() of a computed name. */
const computed: string[] = [];

/** Packages a file loads when it runs: import and export-from declarations that are not type-only, and import('…'). */
function runtimeImports(file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const typeOnly =
        clause !== undefined &&
        (clause.phaseModifier === ts.SyntaxKind.TypeKeyword || (!clause.name && named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly)));
      if (!typeOnly) found.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) && !node.isTypeOnly) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      // A computed name (scripts/start.mjs imports dist/ by its file URL) cannot be checked: src/ has none (test below).
      if (arg && ts.isStringLiteralLike(arg)) found.push(arg.text);
      else computed.push(relative(PROJECT_ROOT, file));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.map(packageOf).filter((p): p is string => p !== undefined);
}

/** What the server loads: src/, and the scripts `npm start` runs before it (scripts/start.mjs and what it imports). */
const serverFiles = [...filesUnder(join(PROJECT_ROOT, 'src'), /\.ts$/), join(PROJECT_ROOT, 'scripts/start.mjs'), join(PROJECT_ROOT, 'scripts/dist-fresh.mjs')];
const serverPackages = new Map<string, string>();
for (const file of serverFiles) for (const p of runtimeImports(file)) if (!serverPackages.has(p)) serverPackages.set(p, relative(PROJECT_ROOT, file));

test('the scan sees static, lazy and re-exported imports and skips type-only ones', () => {
  const text = [
    "import { a } from 'one';",
    "import type { B } from 'two';",
    "import { type C } from 'three';",
    "export { d } from '@scope/four/sub';",
    "const e = () => import('five');",
    "import 'node:fs';",
    "import { f } from './six.ts';",
  ].join('\n');
  assert.deepEqual(runtimeImports('probe.ts', text), ['one', '@scope/four', 'five']);
});

test('src/ names every package it imports lazily (no import() of a computed name the scan cannot check)', () => {
  assert.deepEqual(
    computed.filter((f) => f.startsWith('src/')),
    [],
  );
});

test('every package src/ loads at run time is a production dependency (a devDependency is absent from the image)', () => {
  const misplaced = [...serverPackages].filter(([p]) => !(p in pkg.dependencies)).map(([p, file]) => `${p} (imported by ${file})`);
  assert.deepEqual(misplaced, [], 'move these to dependencies, or load them only from scripts/ or web/');
});

test('every production dependency is loaded by the server: none unused, none only the browser needs', () => {
  const extra = Object.keys(pkg.dependencies).filter((p) => !serverPackages.has(p));
  assert.deepEqual(extra, [], 'not imported by src/: remove them, or move them to devDependencies if web/, scripts/ or tests use them');
});

test("the page's and the console's packages are devDependencies (they ship inside public-build/)", () => {
  const web = new Set(filesUnder(join(PROJECT_ROOT, 'web'), /(?<!\.d)\.tsx?$/).flatMap((f) => runtimeImports(f)));
  assert.ok(web.has('preact') && web.has('uplot'), 'the scan finds the console and the page');
  for (const p of web) assert.ok(p in pkg.devDependencies || serverPackages.has(p), `${p}: imported by web/ only, so a devDependency`);
});
