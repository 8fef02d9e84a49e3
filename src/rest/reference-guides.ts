import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../web/assets.js';
import type { Guide } from '../http/openapi.js';

// The guides of the API reference: markdown files in docs/guides, shown at /docs before the
// operations (each a Redoc "trait tag": a section of prose in the sidebar).

/** The guides, in the order an integrator reads them (each is docs/guides/<name>.md). */
export const GUIDES = ['quickstart', 'hosted-flow', 'webhooks', 'sandbox', 'credentials', 'agents', 'errors'] as const;

export const GUIDES_DIR = join(packageRoot(), 'docs', 'guides');

/** A guide's markdown as a section: its first line (`# Title`) names it, the rest is its text. */
export function guideOf(name: string, markdown: string): Guide {
  const [heading = '', ...rest] = markdown.split('\n');
  const title = /^# (.+)$/.exec(heading)?.[1]?.trim();
  if (!title) throw new Error(`docs/guides/${name}.md must start with a "# Title" line`);
  return { name: `guide-${name}`, title, body: rest.join('\n').trim() };
}

/** Every guide, read from disk (once per document: the document is built once). */
export function readGuides(dir = GUIDES_DIR): Guide[] {
  return GUIDES.map((name) => guideOf(name, readFileSync(join(dir, `${name}.md`), 'utf8')));
}
