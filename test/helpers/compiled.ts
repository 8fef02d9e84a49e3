import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Where test/build-server.ts compiles src/ for the processes the tests start. Two levels under the
 * root, like dist/src, so what src/ finds from its own path (package.json, data/, models/, the
 * web bundle in dist/web) it finds here too.
 */
export const compiledRoot = path.join(root, '.test-build');

/** A compiled module of src/ (`ml/tf.js`), as a file path. */
export function compiledModule(relative: string): string {
  return path.join(compiledRoot, 'src', relative);
}

/** `node` arguments that run the `verity` command from the compiled source. */
export const verityCommand: readonly string[] = [compiledModule('cli.js')];
