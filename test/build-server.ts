import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { transformFile } from '@swc/core';
import { compiledRoot, root } from './helpers/compiled.js';

// Vitest global setup: compile src/ to JavaScript once, the same way the tests' own imports are
// (SWC, decorator metadata), so the `verity` processes the tests start load plain .js instead of
// each compiling about 230 files through a TS loader: 1.7 s a command instead of 3.3 s.
export default async function buildServer(): Promise<void> {
  await rm(compiledRoot, { recursive: true, force: true });
  const sources = (await readdir(path.join(root, 'src'), { recursive: true })).filter((file) => file.endsWith('.ts'));
  await Promise.all(
    sources.map(async (file) => {
      const { code } = await transformFile(path.join(root, 'src', file), {
        swcrc: false,
        sourceMaps: 'inline',
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          target: 'es2022',
          keepClassNames: true,
        },
        module: { type: 'es6' },
      });
      const output = path.join(compiledRoot, 'src', file.replace(/\.ts$/, '.js'));
      await mkdir(path.dirname(output), { recursive: true });
      await writeFile(output, code);
    }),
  );
}
