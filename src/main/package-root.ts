/**
 * Where Mnemo is installed: the folder of its package.json. Found by walking up from this module,
 * because the module sits at different depths in the sources (src/main/) and in the bundle of the
 * desktop app (out/main/).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'mnemo') return dir;
      } catch {
        // Not ours; keep looking.
      }
    }
    if (dirname(dir) === dir) return from;
  }
}

export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));
