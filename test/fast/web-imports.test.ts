import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The browser code (web/) is typed by the server's wire declarations through type-only imports,
// which the bundler drops: a value imported from src/ would put server code (zod, the ORM's
// entities) into the pages' bundles. Only the modules below give the browser values, and why.

const VALUES_FROM_SRC: Record<string, string> = {
  'src/core/vocabulary.ts': 'statuses, roles, features and the review rule core uses; no imports',
  'src/ml/liveness/evidence.ts': "the blur measure the hosted page checks a capture with, the server's own",
};

function browserFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? browserFiles(join(dir, entry.name))
      : /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Each import of a module under src/ that brings a value, as `file -> module`. */
function valueImportsFromSrc(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  return source.statements.flatMap((statement) => {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) return [];
    const specifier = statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.includes('/src/')) return [];
    const module = relative('.', resolve(file, '..', specifier.text)).replace(/\.js$/, '.ts');
    const typeOnly = ts.isImportDeclaration(statement)
      ? statement.importClause?.isTypeOnly ||
        (statement.importClause !== undefined &&
          !statement.importClause.name &&
          statement.importClause.namedBindings !== undefined &&
          ts.isNamedImports(statement.importClause.namedBindings) &&
          statement.importClause.namedBindings.elements.every((element) => element.isTypeOnly))
      : statement.isTypeOnly;
    return typeOnly || module in VALUES_FROM_SRC ? [] : [`${file} -> ${module}`];
  });
}

describe('the browser code takes only types from src/', () => {
  it('finds the browser files (the check has something to look at)', () => {
    expect(browserFiles('web').length).toBeGreaterThan(20);
  });

  it('every import from src/ is type-only, but from the modules of VALUES_FROM_SRC', () => {
    expect(browserFiles('web').flatMap(valueImportsFromSrc)).toEqual([]);
  });
});
