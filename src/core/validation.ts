import type { z } from 'zod';
import { DomainError } from './errors.js';

/** `a.b[2]`-style path of a zod issue, or `body` for the root. */
export function issuePath(path: PropertyKey[]): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out ? `.${String(key)}` : String(key);
  return out || 'body';
}

/** A zod failure as the catalog's `validation_error`, with a per-field map in `data.errors`. */
export function validationError(
  error: z.ZodError,
  code: 'validation_error' | 'invalid_request' = 'validation_error',
): DomainError {
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
      for (const [key, child] of Object.entries(value))
        pending.push({ value: child, key: Array.isArray(value) ? Number(key) : key, parent: node });
    }
  }
  return null;
}

/** Parses input for a core service; every front goes through this, so rules live once. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const nul = nulPath(input);
  if (nul)
    throw new DomainError('validation_error', `${nul}: must not contain NUL (U+0000) characters`, {
      data: { errors: { [nul]: 'must not contain NUL (U+0000) characters' } },
    });
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(result.error);
  return result.data;
}

/** What a zod schema's definition holds, as far as `objectsOf` reads it (zod 4's `_zod.def`). */
interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  items?: z.ZodType[];
  getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;

/**
 * The shapes a value may take at this point of a schema, through its wrappers (optional, default,
 * pipes, unions, lazy): object shapes with the fields they declare (`open` when they take any
 * field: a record, a loose object, an unknown), and array elements.
 */
function shapesOf(
  schema: z.ZodType,
  out: { objects: { fields: Record<string, z.ZodType>; open: boolean }[]; elements: z.ZodType[] } = {
    objects: [],
    elements: [],
  },
) {
  const def = defOf(schema);
  switch (def.type) {
    case 'object':
      // z.object strips what it does not declare, z.strictObject refuses it: both are closed
      // here. A catchall other than never (z.looseObject, .catchall()) takes any field.
      out.objects.push({
        fields: def.shape ?? {},
        open: def.catchall !== undefined && defOf(def.catchall).type !== 'never',
      });
      break;
    case 'record':
    case 'unknown':
    case 'any':
      out.objects.push({ fields: {}, open: true });
      break;
    case 'array':
      out.elements.push(def.element!);
      break;
    case 'union':
      for (const option of def.options ?? []) shapesOf(option, out);
      break;
    case 'intersection':
      shapesOf(def.left!, out);
      shapesOf(def.right!, out);
      break;
    case 'pipe':
      // What arrives meets `in`; a preprocess step (a transform) hides it, and the result meets `out`.
      shapesOf(defOf(def.in!).type === 'transform' ? def.out! : def.in!, out);
      break;
    case 'lazy':
      shapesOf(def.getter!(), out);
      break;
    default:
      if (def.innerType) shapesOf(def.innerType, out);
  }
  return out;
}

/** A field of the input its schema does not declare, with the declared fields beside it. */
export interface UnknownField {
  path: string;
  known: string[];
  /** The declared field it most likely meant (`redirect_uri` -> `redirect_url`). */
  suggestion?: string;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);

/** Every field of `input`, at any depth, that `schema` does not declare where it stands. */
export function unknownFields(schema: z.ZodType, input: unknown): UnknownField[] {
  const found: UnknownField[] = [];
  const pending: { schema: z.ZodType; value: unknown; path: PropertyKey[] }[] = [{ schema, value: input, path: [] }];
  while (pending.length) {
    const { schema: at, value, path } = pending.pop()!;
    const shapes = shapesOf(at);
    if (Array.isArray(value)) {
      const element = shapes.elements[0];
      if (element)
        for (const [i, item] of value.entries()) pending.push({ schema: element, value: item, path: [...path, i] });
      continue;
    }
    if (!isPlainObject(value) || shapes.objects.length === 0 || shapes.objects.some((shape) => shape.open)) continue;
    const known = [...new Set(shapes.objects.flatMap((shape) => Object.keys(shape.fields)))];
    for (const [key, child] of Object.entries(value)) {
      const field = shapes.objects.find((shape) => Object.hasOwn(shape.fields, key))?.fields[key];
      if (field) pending.push({ schema: field, value: child, path: [...path, key] });
      else found.push({ path: issuePath([...path, key]), known, suggestion: closestField(key, known) });
    }
  }
  return found.sort((a, b) => a.path.localeCompare(b.path));
}

/** `redirectUrl`, `Redirect-URL` and `redirect_url` are one spelling. */
const canonicalSpelling = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[-\s.]+/g, '_')
    .toLowerCase();

/** Edits (insert, delete, substitute, swap two neighbours) from one word to the other. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The declared field a near miss meant: the same name in another spelling (camelCase, dashes),
 * a name one word short or long (`workflow` for `workflow_id`; names of three letters or more),
 * or one or two typing slips away (one for names of four letters or fewer). None when nothing
 * is that close.
 */
export function closestField(name: string, known: readonly string[]): string | undefined {
  const wanted = canonicalSpelling(name);
  const same = known.find((field) => canonicalSpelling(field) === wanted);
  if (same) return same;
  // Not for short words: `id` is a word of too many names to mean any one of them.
  const wordMore =
    wanted.length >= 3
      ? known.find(
          (field) =>
            field.startsWith(`${wanted}_`) ||
            field.endsWith(`_${wanted}`) ||
            wanted.startsWith(`${field}_`) ||
            wanted.endsWith(`_${field}`),
        )
      : undefined;
  if (wordMore) return wordMore;
  const allowed = wanted.length <= 4 ? 1 : 2;
  let best: { field: string; distance: number } | undefined;
  for (const field of known) {
    const distance = editDistance(wanted, field);
    if (distance <= allowed && (!best || distance < best.distance)) best = { field, distance };
  }
  return best?.field;
}

/** What the answer says of one unknown field. */
function unknownFieldMessage(field: UnknownField): string {
  if (field.suggestion) return `unknown field; did you mean ${field.suggestion}?`;
  return field.known.length
    ? `unknown field; this object takes ${field.known.join(', ')}`
    : 'unknown field; this object takes no fields';
}

/**
 * 400 `validation_error` naming every field of `input` that `schema` does not declare, each with
 * the field it most likely meant: a misspelt optional field (`redirect_uri`) would otherwise be
 * dropped without a word, and the call succeed without what the caller asked for.
 */
export function refuseUnknownFields(
  schema: z.ZodType,
  input: unknown,
  code: 'validation_error' | 'invalid_request' = 'validation_error',
): void {
  const unknown = unknownFields(schema, input);
  if (unknown.length === 0) return;
  const errors = Object.fromEntries(unknown.map((field) => [field.path, unknownFieldMessage(field)]));
  const summary = Object.entries(errors)
    .map(([path, message]) => `${path}: ${message}`)
    .join('; ');
  throw new DomainError(code, summary, { data: { errors } });
}
