import type { z } from 'zod';
import { DomainError } from './errors.js';

/** `a.b[2]`-style path of a zod issue, or `body` for the root. */
export function issuePath(path: PropertyKey[]): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out ? `.${String(key)}` : String(key);
  return out || 'body';
}

/** A zod failure as the catalog's `validation_error`, with a per-field map in `data.errors`. */
export function validationError(error: z.ZodError, code: 'validation_error' | 'invalid_request' = 'validation_error'): DomainError {
  const errors: Record<string, string> = {};
  for (const issue of error.issues) errors[issuePath(issue.path)] ??= issue.message;
  const summary = Object.entries(errors)
    .map(([field, message]) => `${field}: ${message}`)
    .join('; ');
  return new DomainError(code, summary, { data: { errors } });
}

/** The path of the first string holding U+0000 (PostgreSQL text cannot store it), or null. */
function nulPath(input: unknown): string | null {
  // Iterative, with links to the parent instead of copied paths: bodies may nest very deep.
  interface Node {
    value: unknown;
    key?: PropertyKey;
    parent?: Node;
  }
  const pending: Node[] = [{ value: input }];
  while (pending.length) {
    const node = pending.pop()!;
    const { value } = node;
    if (typeof value === 'string' && value.includes('\u0000')) {
      const path: PropertyKey[] = [];
      for (let at: Node | undefined = node; at?.parent; at = at.parent) path.unshift(at.key!);
      return issuePath(path);
    }
    if (value && typeof value === 'object' && !Buffer.isBuffer(value)) {
      for (const [key, child] of Object.entries(value)) pending.push({ value: child, key: Array.isArray(value) ? Number(key) : key, parent: node });
    }
  }
  return null;
}

/** Parses input for a core service; every front goes through this, so rules live once. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const nul = nulPath(input);
  if (nul) throw new DomainError('validation_error', `${nul}: must not contain NUL (U+0000) characters`, { data: { errors: { [nul]: 'must not contain NUL (U+0000) characters' } } });
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(result.error);
  return result.data;
}
