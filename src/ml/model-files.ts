import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A folder of `models/` (weights shipped with the repository, each beside its licence and
 * provenance), found from this file upwards: src/ml in development, dist/src/ml when built.
 */
export function modelFolder(name: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'models', name))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`models/${name} not found`);
    dir = up;
  }
  return join(dir, 'models', name);
}
