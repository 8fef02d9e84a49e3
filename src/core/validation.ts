import { z } from 'zod';
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
  const summary = Object.entries(errors).map(([field, message]) => `${field}: ${message}`).join('; ');
  return new DomainError(code, summary, { data: { errors } });
}

/** Parses input for a core service; every front goes through this, so rules live once. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(result.error);
  return result.data;
}
