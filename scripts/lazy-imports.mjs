// After `npm run build`: every name our code takes from a lazily loaded CommonJS package exists in the built chunk.
// A dependency loaded with `import()` and bundled gets its own chunk, and esbuild gives a CommonJS package's chunk
// only a `default` export (module.exports), while Node, which runs the sources under the tests, also offers its
// detected names. So `const { Redis } = await import('ioredis')` works in every source test and fails in `npm start`.
// This check imports each such chunk the way the code does and fails the build when a name the code uses is not there.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

/** The wrapper that reads a name from the namespace, else from its `default` (src/lib/cjs.ts). */
const WRAPPER = 'commonJs';

/**
 * How one `import('<specifier>')` in a source file is used: the names read from it, whether through commonJs(),
 * and `unclear` when the form is not one this check can follow (then it asks for one it can).
 */
export function usesOf(sourceText, fileName, specifier) {
  const file = ts.createSourceFile(fileName, sourceText, ts.ScriptTarget.Latest, true);
  const uses = [];
  const visit = (node) => {
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0]) &&
      node.arguments[0].text === specifier
    ) {
      uses.push(useOf(node, file));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return uses;
}

const skipParens = (node) => {
  let n = node;
  while (ts.isParenthesizedExpression(n.parent)) n = n.parent;
  return n;
};

/** Names bound by `{ a, b: c }` (property names, what is read from the object). */
const bindingNames = (pattern) => pattern.elements.map((e) => (e.propertyName ?? e.name).getText());

/** `x.name` reads of an identifier bound to the module, within its scope. */
function readsOf(identifier, scope) {
  const names = [];
  let unclear = false;
  const visit = (node) => {
    if (ts.isIdentifier(node) && node.text === identifier.text && node !== identifier) {
      const parent = skipParens(node).parent;
      if (ts.isPropertyAccessExpression(parent) && parent.expression === skipParens(node)) names.push(parent.name.text);
      else unclear = true;
    }
    ts.forEachChild(node, visit);
  };
  visit(scope);
  return { names, unclear };
}

function useOf(call, file) {
  const line = file.getLineAndCharacterOfPosition(call.getStart()).line + 1;
  let node = skipParens(call);
  let viaCommonJs = false;
  // `import('x').then(({ a }) => ...)` or `.then((m) => m.a)`
  if (ts.isPropertyAccessExpression(node.parent) && node.parent.name.text === 'then' && ts.isCallExpression(node.parent.parent)) {
    const callback = node.parent.parent.arguments[0];
    const param = callback && (ts.isArrowFunction(callback) || ts.isFunctionExpression(callback)) ? callback.parameters[0] : undefined;
    if (param && ts.isObjectBindingPattern(param.name)) return { line, viaCommonJs, names: bindingNames(param.name), unclear: false };
    if (param && ts.isIdentifier(param.name)) return { line, viaCommonJs, ...readsOf(param.name, callback.body) };
    return { line, viaCommonJs, names: [], unclear: true };
  }
  if (ts.isAwaitExpression(node.parent)) node = skipParens(node.parent);
  if (ts.isCallExpression(node.parent) && ts.isIdentifier(node.parent.expression) && node.parent.expression.text === WRAPPER) {
    viaCommonJs = true;
    node = skipParens(node.parent);
  }
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && parent.initializer === node) {
    if (ts.isObjectBindingPattern(parent.name)) return { line, viaCommonJs, names: bindingNames(parent.name), unclear: false };
    if (ts.isIdentifier(parent.name)) {
      let scope = parent;
      while (scope.parent && !ts.isBlock(scope) && !ts.isSourceFile(scope)) scope = scope.parent;
      return { line, viaCommonJs, ...readsOf(parent.name, scope) };
    }
  }
  if (ts.isPropertyAccessExpression(parent) && parent.expression === node) return { line, viaCommonJs, names: [parent.name.text], unclear: false };
  return { line, viaCommonJs, names: [], unclear: true };
}

/**
 * Checks a build's metafile (esbuild, `metafile: true`; paths relative to `root`). Returns the problems found, each
 * a line naming the source, the package, the missing name and the fix; empty when every name is there.
 */
export async function checkLazyImports({ root, metafile }) {
  const problems = [];
  const chunkOf = new Map();
  for (const [output, info] of Object.entries(metafile.outputs)) if (info.entryPoint) chunkOf.set(info.entryPoint, output);
  for (const [input, info] of Object.entries(metafile.inputs)) {
    if (input.includes('node_modules/')) continue;
    const seen = new Set();
    for (const imp of info.imports) {
      // One entry per import() call; usesOf reads every call of the file at once.
      if (seen.has(imp.path)) continue;
      seen.add(imp.path);
      // Packages left out of the bundle are loaded by Node itself, as under the tests.
      if (imp.kind !== 'dynamic-import' || imp.external) continue;
      if (metafile.inputs[imp.path]?.format !== 'cjs') continue;
      const specifier = imp.original ?? imp.path;
      const chunk = chunkOf.get(imp.path);
      if (!chunk) {
        problems.push(`${input}: import('${specifier}') has no chunk of its own in the build; cannot check it`);
        continue;
      }
      const namespace = await import(pathToFileURL(join(root, chunk)).href);
      for (const use of usesOf(readFileSync(join(root, input), 'utf8'), input, specifier)) {
        const where = `${input}:${use.line}: import('${specifier}')`;
        const fix = `write it as \`const { name } = ${WRAPPER}(await import('${specifier}'))\` (src/lib/cjs.ts)`;
        if (use.unclear) problems.push(`${where} is used in a form this check cannot follow; ${fix}`);
        const value = use.viaCommonJs ? { ...(namespace.default ?? {}), ...namespace } : namespace;
        for (const name of use.names) {
          if (value === null || value === undefined || !(name in Object(value)))
            problems.push(`${where} takes "${name}", which the built chunk ${chunk} does not export (a CommonJS package's chunk has only "default"); ${fix}`);
        }
      }
    }
  }
  return problems;
}
