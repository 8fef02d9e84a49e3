// Lines are at most 120 characters (issue #51). The formatter (biome, `npm run lint`) holds code to
// that width; it cannot break comments, so this test holds them: a comment written wider fails here.
// A string or template literal that cannot be broken without changing what it says may run longer.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LINE_WIDTH = 120;
const FOLDERS = ['src', 'test', 'web', 'bench', 'scripts', 'reliability'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(join(dir, entry.name));
    return /\.(ts|tsx)$/.test(entry.name) ? [join(dir, entry.name)] : [];
  });
}

/** A comment line: `// ...`, or a line of a `/** ... *\/` block. */
const isCommentLine = (line: string) => /^\s*(\/\/|\/\*|\* |\*$)/.test(line);

describe('line width', () => {
  it(`no comment line is wider than ${LINE_WIDTH} characters`, () => {
    const wide = FOLDERS.flatMap((folder) => sourceFiles(join(ROOT, folder))).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          isCommentLine(line) && line.length > LINE_WIDTH ? [`${file.slice(ROOT.length)}:${index + 1}`] : [],
        ),
    );
    expect(wide).toEqual([]);
  });
});
