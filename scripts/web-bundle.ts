// The bundler behind `npm run build:web` (scripts/build-web.ts): esbuild, a devDependency the server never loads.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { EMBED_FILE, type AssetManifest } from '../src/lib/built-assets.ts';

export interface AssetBundle {
  /** esbuild entry points: a list of files, or output name → file. */
  entryPoints: string[] | Record<string, string>;
  outDir: string;
  /** The manifest's file name in outDir, e.g. `manifest.json`. */
  manifestName: string;
  /** Matches this bundle's own hashed files (and no other bundle's), so older builds of it can be removed. */
  ownFile: RegExp;
  /** Set for a Preact bundle (JSX with the automatic runtime). */
  jsxImportSource?: string;
  /**
   * Names of the chunks a dynamic `import()` becomes (e.g. `app-[name].[hash]`; `ownFile` must match them): set, the
   * bundle is split and what is imported on demand is fetched only then, never with the main script.
   */
  chunkNames?: string;
  /**
   * Scripts of their own beside the main one (output name → file), split with it, e.g. the group page's map: listed
   * with the chunks (their names must match `ownFile`), never as the main script.
   */
  moreScripts?: Record<string, string>;
  /** Files copied as they are beside the build under a hashed name (`name` → source), listed with the chunks: MapLibre's worker. */
  copied?: Record<string, string>;
}

/**
 * Bundles and minifies one front end into content-hashed files and writes its manifest. Safe while another
 * process builds or starts: the same sources give the same file names, the manifest is replaced in one rename,
 * and older builds' files (those `ownFile` matches) are removed only after it.
 */
export async function bundleAssets(bundle: AssetBundle): Promise<AssetManifest> {
  const { outDir, manifestName, ownFile, jsxImportSource, chunkNames, moreScripts = {}, copied = {} } = bundle;
  mkdirSync(outDir, { recursive: true });
  // Each entry's output name: its file's name (app.ts → app) unless the bundle names it.
  const main = Array.isArray(bundle.entryPoints)
    ? bundle.entryPoints.map((f) => ({ in: f, out: basename(f).replace(/\.\w+$/, '') }))
    : Object.entries(bundle.entryPoints).map(([out, f]) => ({ in: f, out }));
  const more = Object.entries(moreScripts).map(([out, f]) => ({ in: f, out }));
  const result = await build({
    entryPoints: [...main, ...more],
    bundle: true,
    minify: true,
    format: 'esm',
    ...(jsxImportSource === undefined ? {} : { jsx: 'automatic' as const, jsxImportSource }),
    target: ['es2022', 'chrome100', 'safari15.4', 'firefox100'],
    entryNames: '[name].[hash]',
    ...(chunkNames === undefined ? {} : { splitting: true, chunkNames }),
    outdir: outDir,
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = Object.keys(result.metafile.outputs).map((f) => basename(f));
  // The entry's script, not a chunk of it: the one output an entry point (a script, not the stylesheet) made.
  // (A part loaded on demand with `import()` is an entry point of esbuild's too: only the bundle's own entries count.)
  const own = new Set(main.map((e) => relative(process.cwd(), e.in)));
  const entries = Object.entries(result.metafile.outputs)
    .filter(([f, o]) => o.entryPoint !== undefined && own.has(o.entryPoint) && f.endsWith('.js'))
    .map(([f]) => basename(f));
  const js = builtFile(entries, '.js', manifestName);
  const chunks = outputs.filter((f) => f.endsWith('.js') && f !== js);
  for (const [name, from] of Object.entries(copied)) {
    const body = readFileSync(from);
    const file = `${name}.${createHash('sha256').update(body).digest('hex').slice(0, 8).toUpperCase()}.js`;
    writeFileSync(join(outDir, file), body);
    chunks.push(file);
  }
  // The chunks the main script imports statically, and theirs: fetched with it (`imports`).
  const imports = new Set<string>();
  const visit = (file: string) => {
    for (const i of result.metafile.outputs[file]?.imports ?? []) {
      if (i.kind !== 'import-statement' || imports.has(basename(i.path))) continue;
      imports.add(basename(i.path));
      visit(i.path);
    }
  };
  visit(Object.keys(result.metafile.outputs).find((f) => basename(f) === js) ?? '');
  const manifest: AssetManifest = {
    js,
    css: builtFile(outputs, '.css', manifestName),
    ...(chunks.length ? { chunks } : {}),
    ...(imports.size ? { imports: [...imports] } : {}),
  };
  const temp = join(outDir, `${manifestName}.${process.pid}.tmp`);
  writeFileSync(temp, JSON.stringify(manifest));
  renameSync(temp, join(outDir, manifestName));
  for (const file of readdirSync(outDir)) {
    if (ownFile.test(file) && file !== manifest.js && file !== manifest.css && !chunks.includes(file)) rmSync(join(outDir, file), { force: true });
  }
  return manifest;
}

function builtFile(outputs: string[], extension: string, manifestName: string): string {
  const file = outputs.find((f) => f.endsWith(extension));
  if (file === undefined) throw new Error(`the build for ${manifestName} wrote no ${extension} file`);
  return file;
}

/**
 * The embed SDK as one classic script, `embed.js`: its address stays the same from release to release (developers
 * paste it into their sites), so it is not hashed and is served with a short cache.
 */
export async function buildEmbed(entryPoint: string, outDir: string): Promise<string> {
  await build({
    entryPoints: [entryPoint],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020'],
    outfile: join(outDir, EMBED_FILE),
    logLevel: 'silent',
  });
  return join(outDir, EMBED_FILE);
}
