// The README is the project's door, not its notebook: short, and every link it and docs/ give
// leads somewhere. The details live in docs/ (issue #51).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The longest the README may grow: what it is, quickstart, architecture, tests, top settings, links. */
const README_MAX_LINES = 250;

/** Relative link targets of a Markdown file (no URLs, no in-page anchors), without their anchor. */
function localLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^(https?:|mailto:|#)/.test(target))
    .map((target) => target.split('#')[0]!);
}

const documents = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

describe('the README as a door', () => {
  it(`is at most ${README_MAX_LINES} lines`, () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it.each(documents)('%s: every relative link leads to a file of the repository', (document) => {
    const text = readFileSync(join(ROOT, document), 'utf8');
    const missing = localLinks(text).filter((target) => !existsSync(join(ROOT, dirname(document), target)));
    expect(missing).toEqual([]);
  });
});
