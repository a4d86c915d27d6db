import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONSOLE_MANIFEST, MissingBuildError, missingBuiltAssets, PAGE_MANIFEST, readManifest } from '../../src/lib/built-assets.ts';

/** What the server checks before it starts (src/main.ts) and what its route plugins read: the build, never a build run. */

function withDir(fn: (dir: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'showsuite-built-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('an empty directory misses both manifests and the embed SDK; reading a manifest there says what to run', () => {
  withDir((dir) => {
    assert.deepEqual(missingBuiltAssets(dir), ['manifest.json', 'admin-manifest.json', 'embed.js']);
    assert.throws(
      () => readManifest(PAGE_MANIFEST, dir),
      (err: unknown) =>
        err instanceof MissingBuildError &&
        err.message ===
          `Cannot start: the built page and console are missing from ${dir} (manifest.json, admin-manifest.json, embed.js); run \`npm run build\` first`,
    );
  });
});

test('a file a manifest names but the directory lacks (a build cut short) is missing too; a whole build reads', () => {
  withDir((dir) => {
    writeFileSync(join(dir, PAGE_MANIFEST), JSON.stringify({ js: 'app.A.js', css: 'app.B.css', chunks: ['app-viewer.C.js'] }));
    writeFileSync(join(dir, CONSOLE_MANIFEST), JSON.stringify({ js: 'admin.D.js', css: 'admin-style.E.css' }));
    for (const file of ['embed.js', 'app.A.js', 'app.B.css', 'admin.D.js', 'admin-style.E.css']) writeFileSync(join(dir, file), '');
    assert.deepEqual(missingBuiltAssets(dir), ['app-viewer.C.js']);
    writeFileSync(join(dir, 'app-viewer.C.js'), '');
    assert.deepEqual(missingBuiltAssets(dir), []);
    assert.deepEqual(readManifest(CONSOLE_MANIFEST, dir), { js: 'admin.D.js', css: 'admin-style.E.css' });
  });
});
