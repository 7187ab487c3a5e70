import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The service's version from its package.json, found by walking up from this module: the same code runs from
 * `src/lib/` (tsx) and from the bundled `dist/main.js` (`npm start`), at different depths.
 */
function readVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'minutes' && pkg.version) return pkg.version;
    }
    const parent = path.dirname(dir);
    if (parent === dir)
      throw new Error(`package.json of minutes not found above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

export const VERSION = readVersion();
