import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DomainError, errorCatalog, isErrorCode, specCatalogCodes } from '../src/core/errors.js';

// The contract lives in the repository (docs/spec); the shared copy it came from, when a checkout
// has one beside it, must say the same.
const specPath = fileURLToPath(new URL('../docs/spec/service-spec.md', import.meta.url));
const sharedSpecPath = fileURLToPath(new URL('../../shared/spec/service-spec.md', import.meta.url));
const sharedSpecAvailable = existsSync(sharedSpecPath);
if (!sharedSpecAvailable) console.info(`skipping the comparison with the shared spec: ${sharedSpecPath} is absent`);

/** The "Code catalog" table of the spec: code -> statuses. */
function specTable(): Map<string, number[]> {
  const text = readFileSync(specPath, 'utf8');
  const section = text.split('### Code catalog')[1]!.split('Codes without a stated')[0]!;
  const rows = new Map<string, number[]>();
  for (const line of section.split('\n')) {
    const match = /^\| (\S+) \| ([^|]*) \|/.exec(line);
    if (!match || match[1] === 'Code' || match[1]!.startsWith('---')) continue;
    rows.set(
      match[1]!,
      [...match[2]!.matchAll(/\d+/g)].map((m) => Number(m[0])),
    );
  }
  return rows;
}

describe('error catalog', () => {
  it.skipIf(!sharedSpecAvailable)("the repository's spec (docs/spec) is the shared one", () => {
    expect(readFileSync(specPath, 'utf8')).toBe(readFileSync(sharedSpecPath, 'utf8'));
  });

  it('has every code of the spec with exactly the statuses the spec gives', () => {
    const table = specTable();
    expect(table.size).toBeGreaterThan(120);
    for (const [code, statuses] of table) {
      expect(isErrorCode(code), `${code} is in the catalog`).toBe(true);
      if (!isErrorCode(code)) continue;
      if (statuses.length === 0) continue; // session_not_found: status not shown; ours is documented
      const entry = errorCatalog[code] as { status: number; also?: readonly number[] };
      expect([entry.status, ...(entry.also ?? [])], code).toEqual(statuses);
    }
  });

  it('gives a status to every code the spec names without one', () => {
    const text = readFileSync(specPath, 'utf8');
    const list = text
      .split('Codes without a stated status or meaning in the catalog:')[1]!
      .split('HTTP status of these')[0]!;
    const codes = [...list.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
    expect(codes.length).toBeGreaterThan(10);
    for (const code of codes) {
      expect(isErrorCode(code), code).toBe(true);
      if (isErrorCode(code)) expect(errorCatalog[code].status).toBeGreaterThanOrEqual(400);
    }
  });

  it('keeps the spec codes the wire depends on at their statuses', () => {
    expect(errorCatalog.invalid_api_key.status).toBe(401);
    expect(errorCatalog.invalid_client.status).toBe(401);
    expect(errorCatalog.invalid_token.status).toBe(401);
    expect(errorCatalog.callback_not_allowed.status).toBe(422);
    expect(errorCatalog.endpoint_removed.status).toBe(410);
    expect(errorCatalog.image_too_large.status).toBe(413);
    expect(errorCatalog.review_not_pending.status).toBe(409);
    expect(errorCatalog.workflow_not_found.status).toBe(404);
    expect(errorCatalog.validation_error.status).toBe(400);
    expect(errorCatalog.internal_error.status).toBe(500);
    expect(specCatalogCodes).toContain('verification_soft_locked');
  });

  it('lets a DomainError take only a status the catalog allows for its code', () => {
    expect(new DomainError('invalid_grant', undefined, { status: 401 }).status).toBe(401);
    expect(new DomainError('invalid_grant').status).toBe(400);
    expect(() => new DomainError('not_found', undefined, { status: 500 })).toThrow(/not allowed/);
    expect(new DomainError('not_found').message).toBe('resource or user not found');
  });

  it("captures no stack for an answer the caller earns (4xx), keeps one for errors of ours (5xx), and leaves other errors' stacks alone", () => {
    const frames = (error: Error) =>
      (error.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at ')).length;
    expect(frames(new DomainError('not_found'))).toBe(0);
    expect(frames(new DomainError('invalid_grant', undefined, { status: 401 }))).toBe(0);
    expect(frames(new DomainError('internal_error'))).toBeGreaterThan(0);
    expect(frames(new Error('after a 4xx'))).toBeGreaterThan(0);
  });
});
