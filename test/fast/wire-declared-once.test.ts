import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from './source-files.js';
import { z } from 'zod';
import * as billingViews from '../../src/core/billing/views.js';
import * as checkViews from '../../src/core/checks/views.js';
import * as credentialViews from '../../src/core/credentials/views.js';
import * as opsViews from '../../src/core/ops/views.js';
import * as rosterViews from '../../src/core/roster/views.js';
import * as sessionViews from '../../src/core/sessions/views.js';
import * as tenancyViews from '../../src/core/tenancy/views.js';
import * as vcViews from '../../src/core/vc/views.js';

// One declaration per wire object: no `z.object({...})` under src/rest has the key set of an
// object declared in a core views.ts (top level or nested), so routers can only document with the
// declaration itself.

const VIEW_MODULES = {
  billing: billingViews,
  checks: checkViews,
  credentials: credentialViews,
  ops: opsViews,
  roster: rosterViews,
  sessions: sessionViews,
  tenancy: tenancyViews,
  vc: vcViews,
};

/** Every zod object reachable from a schema (through arrays, nullable and optional), by its sorted key set. */
function collectObjects(schema: unknown, into: Map<string, string>, name: string): void {
  if (schema instanceof z.ZodObject) {
    const keys = Object.keys(schema.shape).sort().join(',');
    if (!into.has(keys)) into.set(keys, name);
    for (const [key, field] of Object.entries(schema.shape)) collectObjects(field, into, `${name}.${key}`);
  } else if (schema instanceof z.ZodArray) collectObjects(schema.element, into, `${name}[]`);
  else if (schema instanceof z.ZodNullable || schema instanceof z.ZodOptional)
    collectObjects(schema.unwrap(), into, name);
}

function declaredObjects(): Map<string, string> {
  const declared = new Map<string, string>();
  for (const [area, module] of Object.entries(VIEW_MODULES)) {
    for (const [exported, value] of Object.entries(module))
      collectObjects(value, declared, `core/${area}/views.ts ${exported}`);
  }
  return declared;
}

/** The key sets of every `z.object({...})` literal in a file, with its line. */
function objectLiterals(file: string): { keys: string; line: number }[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: { keys: string; line: number }[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      node.expression.getText(source) === 'z.object' &&
      node.arguments[0] &&
      ts.isObjectLiteralExpression(node.arguments[0])
    ) {
      const keys = node.arguments[0].properties
        .map((property) => property.name?.getText(source).replace(/['"]/g, '') ?? '...')
        .sort();
      found.push({ keys: keys.join(','), line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('wire objects are declared once', () => {
  it('finds the declarations (the check has something to compare with)', () => {
    const declared = declaredObjects();
    expect(declared.get(Object.keys(rosterViews.memberWire.shape).sort().join(','))).toBe(
      'core/roster/views.ts memberWire',
    );
    expect(declared.size).toBeGreaterThan(15);
  });

  it('no z.object under src/rest repeats the key set of a views.ts declaration', () => {
    const declared = declaredObjects();
    const repeats = sourceFiles('src/rest').flatMap((file) =>
      objectLiterals(file)
        .filter((literal) => declared.has(literal.keys))
        .map((literal) => `${relative('.', file)}:${literal.line} repeats ${declared.get(literal.keys)}`),
    );
    expect(repeats).toEqual([]);
  });
});
