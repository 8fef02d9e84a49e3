// No import cycle between folders of src/ (issue #51): an area may lean on another, never both
// ways, so each can be read, tested and replaced from the bottom up. Type-only imports count too:
// they tie what a newcomer must read together just the same.
import { readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from './source-files.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/**
 * The folder a source file belongs to: an area of core/ or ml/ (a file at their root stands alone), else its top
 * folder.
 */
export function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'core' || parts[0] === 'ml') return parts.length > 2 ? parts.slice(0, 2).join('/') : file;
  return parts.length > 1 ? parts[0]! : file;
}

/** Folder -> the folders its files import (relative specifiers only: packages are not ours). */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(relative(SRC, file));
    for (const match of readFileSync(file, 'utf8').matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*)['"](\.[^'"]+)['"]/g)) {
      const to = folderOf(relative(SRC, normalize(join(dirname(file), match[1]!))).replace(/\.js$/, '.ts'));
      if (to !== from) graph.set(from, (graph.get(from) ?? new Set()).add(to));
    }
  }
  return graph;
}

/** The groups of folders that reach each other (Tarjan's strongly connected components of more than one folder). */
export function cycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        group.push(member);
      } while (member !== node);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/**
 * Cycles not untied yet, each named whole. The list may only shrink: a new cycle, or a known one
 * that grows, fails the test. None is left: the last, ml/faces with ml/liveness, ended when the
 * worker thread that hosts both moved to ml/inference.
 */
const KNOWN: string[][] = [];

describe('folders of src/', () => {
  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c']]);
  });

  it('import each other in no cycle but the known ones', () => {
    const graph = folderGraph();
    expect(graph.size).toBeGreaterThan(10);
    expect(cycles(graph)).toEqual(KNOWN);
  });
});
