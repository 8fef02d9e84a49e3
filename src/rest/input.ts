import busboy from 'busboy';
import express, { type NextFunction, type Request, type Response } from 'express';
import { DomainError } from '../core/errors.js';
import { MAX_IMAGE_BYTES } from '../ml/image.js';

// Check bodies arrive as JSON (images as base64 or data-URL strings) or as multipart/form-data
// (images as files) under the same field names. Both become one plain object for core, with
// every image as a Buffer of the caller's original bytes.

/** Base64 of a 20 MB image plus room for a second image and the other fields. */
export const CHECK_JSON_LIMIT = '64mb';

export interface FieldKinds {
  images: readonly string[];
  numbers?: readonly string[];
  booleans?: readonly string[];
  /** Multipart repeats a field for each element (or sends one JSON array). */
  arrays?: readonly string[];
  /** Lists of images (a burst of frames): a JSON array of strings, or a repeated multipart field. */
  imageArrays?: readonly string[];
}

/** The multipart field name of an image list element (`frames` or `frames[]`), or undefined. */
const imageListOf = (kinds: FieldKinds, name: string): string | undefined => kinds.imageArrays?.find((field) => name === field || name === `${field}[]`);

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

/** A base64 or data-URL string as the bytes it encodes. */
export function decodeImageString(field: string, value: string): Buffer {
  let payload = value;
  const dataUrl = /^data:([^;,]*)((?:;[^;,]*)*),/i.exec(value);
  if (dataUrl) {
    const mediaType = (dataUrl[1] || 'text/plain').toLowerCase();
    if (!mediaType.startsWith('image/')) {
      throw new DomainError('unprocessable', `${field}: the data URL holds ${mediaType}, not an image`);
    }
    if (!/;base64$/i.test(dataUrl[2] ?? '')) throw new DomainError('validation_error', `${field}: data URLs must be base64-encoded`, { data: { errors: { [field]: 'data URL is not base64' } } });
    payload = value.slice(dataUrl[0].length);
  }
  const compact = payload.replace(/\s+/g, '');
  if (compact.length === 0 || compact.length % 4 === 1 || !(BASE64.test(compact) || BASE64URL.test(compact))) {
    throw new DomainError('validation_error', `${field}: not valid base64`, { data: { errors: { [field]: 'not valid base64' } } });
  }
  if (Math.floor((compact.length * 3) / 4) > MAX_IMAGE_BYTES + 3) throw new DomainError('image_too_large', `${field} is over 20 MB`);
  return Buffer.from(compact, BASE64.test(compact) ? 'base64' : 'base64url');
}

function fromJson(body: unknown, kinds: FieldKinds): Record<string, unknown> {
  if (body === undefined) return {};
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new DomainError('validation_error', 'the body must be a JSON object');
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of kinds.images) {
    const value = out[field];
    if (value === undefined || value === null || value === '') {
      delete out[field];
    } else if (typeof value === 'string') {
      out[field] = decodeImageString(field, value);
    } else {
      throw new DomainError('validation_error', `${field}: expected a base64 or data-URL string (or send multipart/form-data files)`, { data: { errors: { [field]: 'expected a string' } } });
    }
  }
  for (const field of kinds.imageArrays ?? []) {
    const value = out[field];
    if (value === undefined || value === null) {
      delete out[field];
    } else if (Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== '')) {
      out[field] = value.map((item: string, i) => decodeImageString(`${field}[${i}]`, item));
    } else {
      throw new DomainError('validation_error', `${field}: expected an array of base64 or data-URL strings`, { data: { errors: { [field]: 'expected an array of image strings' } } });
    }
  }
  return out;
}

function coerce(fields: Record<string, string[]>, kinds: FieldKinds): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, values] of Object.entries(fields)) {
    const last = values[values.length - 1]!;
    if (kinds.arrays?.includes(name)) {
      const list = values.length === 1 && last.trim().startsWith('[') ? safeJson(last) : values;
      out[name] = Array.isArray(list) ? list.map((item) => (typeof item === 'string' && /^\d+$/.test(item) ? Number(item) : item)) : list;
    } else if (kinds.numbers?.includes(name)) {
      out[name] = last.trim() === '' ? undefined : Number(last);
    } else if (kinds.booleans?.includes(name)) {
      out[name] = last === 'true' ? true : last === 'false' ? false : last;
    } else {
      out[name] = last;
    }
  }
  return out;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function fromMultipart(req: Request, kinds: FieldKinds): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { fileSize: MAX_IMAGE_BYTES + 1, files: 20, fields: 50, fieldSize: 64 * 1024 } });
    } catch {
      reject(new DomainError('validation_error', 'malformed multipart/form-data request'));
      return;
    }
    // Keyed by the caller's field names: without a prototype, `constructor` or `__proto__` is just a name
    // (with one, `fields.constructor.push` threw inside busboy's event, which killed the process).
    const fields: Record<string, string[]> = Object.create(null);
    const files: Record<string, Buffer> = Object.create(null);
    const lists: Record<string, Buffer[]> = Object.create(null);
    let failure: DomainError | undefined;
    parser.on('file', (name, stream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        failure ??= new DomainError('image_too_large', `${name} is over 20 MB`);
      });
      stream.on('error', () => {
        failure ??= new DomainError('validation_error', 'malformed multipart/form-data body');
      });
      const list = imageListOf(kinds, name);
      if (list) lists[list] ??= [];
      const slot = list ? lists[list]!.push(Buffer.alloc(0)) - 1 : -1; // keep the order the parts arrived in
      stream.on('end', () => {
        if (list) {
          lists[list]![slot] = Buffer.concat(chunks);
          return;
        }
        if (!kinds.images.includes(name)) {
          failure ??= new DomainError('validation_error', `${name}: unexpected file field`, { data: { errors: { [name]: 'not a file field' } } });
          return;
        }
        const bytes = Buffer.concat(chunks);
        if (bytes.length > 0) files[name] = bytes;
      });
    });
    parser.on('field', (name, value) => {
      const list = imageListOf(kinds, name);
      if (list) {
        lists[list] ??= [];
        lists[list].push(
          decodeImageStringSafe(`${list}[${lists[list].length}]`, value, (error) => {
            failure ??= error;
          }),
        );
        return;
      }
      if (kinds.images.includes(name)) {
        if (value !== '')
          files[name] = decodeImageStringSafe(name, value, (error) => {
            failure ??= error;
          });
        return;
      }
      fields[name] ??= [];
      fields[name].push(value);
    });
    parser.on('filesLimit', () => {
      failure ??= new DomainError('validation_error', 'too many files');
    });
    parser.on('error', () => reject(new DomainError('validation_error', 'malformed multipart/form-data body')));
    parser.on('close', () => (failure ? reject(failure) : resolve({ ...coerce(fields, kinds), ...files, ...lists })));
    req.pipe(parser);
  });
}

function decodeImageStringSafe(field: string, value: string, onError: (error: DomainError) => void): Buffer {
  try {
    return decodeImageString(field, value);
  } catch (error) {
    if (error instanceof DomainError) onError(error);
    else throw error;
    return Buffer.alloc(0);
  }
}

/** Deeper than any route's input: refused before a library walks the body recursively (tRPC re-serializes it). */
export const MAX_JSON_DEPTH = 64;

/** In a `u` regex a surrogate pair is one code point, so only a lone half matches. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Why a parsed JSON body cannot be taken, or null: nested deeper than MAX_JSON_DEPTH, or a string
 * (value or key) with a lone UTF-16 surrogate (`"\ud83d"`): JSON.parse accepts one, but it is no
 * text, and PostgreSQL refuses it in a json column and in UTF-8 text alike.
 */
export function unacceptableJson(body: unknown): string | null {
  const pending: [unknown, number][] = [[body, 0]];
  while (pending.length) {
    const [value, depth] = pending.pop()!;
    if (typeof value === 'string' && LONE_SURROGATE.test(value)) return 'the JSON body has a string with a lone surrogate (\\ud800-\\udfff without its pair)';
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`;
    for (const [key, child] of Object.entries(value)) pending.push([key, depth + 1], [child, depth + 1]);
  }
  return null;
}

/** After a JSON body parser: 400 `validation_error` for a body nested too deep or with text that is not text. */
function refuseUnacceptableJson(req: Request, _res: Response, next: NextFunction): void {
  const reason = unacceptableJson(req.body);
  next(reason ? new DomainError('validation_error', reason) : undefined);
}

/** A JSON body parser and its guard: every JSON route of the service reads its body through this. */
export function jsonBody(limit: string) {
  return [express.json({ limit, type: ['application/json', 'application/*+json'] }), refuseUnacceptableJson];
}

const jsonParser = express.json({ limit: CHECK_JSON_LIMIT, type: ['application/json', 'application/*+json'] });

/** Reads a check body into `res.locals.input`. */
export function checkBody(kinds: FieldKinds) {
  return (req: Request, res: Response, next: NextFunction) => {
    const type = (req.get('content-type') ?? '').toLowerCase();
    if (type.startsWith('multipart/form-data')) {
      fromMultipart(req, kinds).then((input) => {
        res.locals.input = input;
        next();
      }, next);
      return;
    }
    if (type && !type.includes('json')) {
      next(new DomainError('validation_error', 'send application/json or multipart/form-data'));
      return;
    }
    jsonParser(req, res, (error?: unknown) => {
      if (error) return next(error);
      const reason = unacceptableJson(req.body);
      if (reason) return next(new DomainError('validation_error', reason));
      try {
        res.locals.input = fromJson(req.body, kinds);
        next();
      } catch (failure) {
        next(failure);
      }
    });
  };
}
