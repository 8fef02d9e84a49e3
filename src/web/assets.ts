import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import Mustache from 'mustache';
import { labelRoute } from '../http/observability.js';
import { caseSensitiveRouter } from '../http/router.js';

// The browser code of web/ is bundled by `npm run build` (Vite) into dist/web, with hashed file
// names listed in its manifest; the pages' HTML lives in web/templates. Both are read once.

/** The repository root: the nearest folder above this file with a package.json (from src/ or dist/src/). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('verity: package.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

const ROOT = packageRoot();
const BUILD = join(ROOT, 'dist', 'web');
const TEMPLATES = join(ROOT, 'web', 'templates');

/** The page scripts and stylesheets the build emits (web/vite.config.ts names them). */
export type Entry =
  | 'hosted/main.tsx'
  | 'console/main.tsx'
  | 'activation/selfie.ts'
  | 'graphiql/main.ts'
  | 'pages/pages.css';
interface ManifestChunk {
  file: string;
  css?: string[];
  imports?: string[];
}

let manifest: Record<string, ManifestChunk> | undefined;
function readManifest(): Record<string, ManifestChunk> {
  if (!manifest) {
    const file = join(BUILD, '.vite', 'manifest.json');
    if (!existsSync(file)) throw new Error(`verity: the web build is missing (${file}): run \`npm run build\``);
    manifest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, ManifestChunk>;
  }
  return manifest;
}

/** The URLs an entry needs: its script (if any) and every stylesheet, its own and its imports'. */
export function entryAssets(entry: Entry): { script?: string; styles: string[] } {
  const chunks = readManifest();
  const chunk = chunks[entry];
  if (!chunk) throw new Error(`verity: ${entry} is not in the web build: run \`npm run build\``);
  const styles = new Set<string>();
  const visit = (c: ManifestChunk) => {
    for (const css of c.css ?? []) styles.add('/' + css);
    for (const name of c.imports ?? []) visit(chunks[name]!);
  };
  visit(chunk);
  if (chunk.file.endsWith('.css')) return { styles: ['/' + chunk.file, ...styles] };
  return { script: '/' + chunk.file, styles: [...styles] };
}

const templates = new Map<string, string>();
/** A template of web/templates, read once. */
function template(name: string): string {
  let text = templates.get(name);
  if (text === undefined) {
    text = readFileSync(join(TEMPLATES, `${name}.html`), 'utf8');
    Mustache.parse(text);
    templates.set(name, text);
  }
  return text;
}

/** A whole page of web/templates with nothing to fill in (no layout): for example the API reference's Redoc shell. */
export const standalonePage = (name: string): string => template(name);

/** HTML escaping of the five characters that matter (Mustache's default also rewrites '/' and '='). */
export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * Renders web/templates/{name}.html inside web/templates/layout.html, with the entry's stylesheets
 * and script. Templates are Mustache: `{{x}}` is always escaped; no template uses the raw form.
 */
export function renderPage(
  name: string,
  view: Record<string, unknown> & { title: string; lang?: string },
  entry: Entry = 'pages/pages.css',
): string {
  const assets = entryAssets(entry);
  const data = { lang: 'en', ...view, styles: assets.styles, script: assets.script };
  return Mustache.render(
    template('layout'),
    data,
    { body: template(name) },
    { escape: (value: unknown) => escapeHtml(String(value)) },
  );
}

/** `/assets/*`: the hashed build files, cached for a year (a new build has new names). */
export function assetsRouter() {
  // A checkout that was never built fails at start-up with what to do, not at the first page.
  entryAssets('pages/pages.css');
  const router = caseSensitiveRouter();
  router.use(
    '/assets',
    labelRoute('/assets'),
    express.static(join(BUILD, 'assets'), { immutable: true, maxAge: '365d', index: false }),
  );
  return router;
}
