// Builds dist/esm (ES modules) and dist/cjs (CommonJS), each with its .d.ts, with the TypeScript
// compiler of this package or of a directory above it (the repository's). Run by `npm pack`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url);
const tsc = createRequire(new URL('package.json', root)).resolve('typescript/bin/tsc');
rmSync(new URL('dist', root), { recursive: true, force: true });
for (const project of ['tsconfig.json', 'tsconfig.cjs.json']) {
  execFileSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
}
// The package is "type": "module"; this marks the .js files under dist/cjs as CommonJS.
mkdirSync(new URL('dist/cjs', root), { recursive: true });
writeFileSync(new URL('dist/cjs/package.json', root), `${JSON.stringify({ type: 'commonjs' })}\n`);
