import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's root (the directory holding package.json), found from this module's own location, so it is
 * the same whether the code runs from src/ (tests, tsx) or from the bundle in dist/.
 */
export const PROJECT_ROOT = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('package.json not found above the server code');
    dir = up;
  }
  return dir;
})();
