import busboy from 'busboy';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import { DomainError } from '../core/errors.js';
import { refuseUnknownFields } from '../core/validation.js';
import { MAX_IMAGE_BYTES } from '../ml/image.js';

// Check bodies arrive as JSON (images as base64 or data-URL strings) or as multipart/form-data
// (images as files) under the same field names. Both become one plain object for core, with
// every image as a Buffer of the caller's original bytes.

/**
 * The largest check body, whatever its encoding (JSON with base64 images, or multipart files):
 * base64 of a 20 MB image plus room for a second image and the other fields.
 */
export const CHECK_BODY_LIMIT = 64 * 1024 * 1024;

/** What one upload may hold and what is checked before its images are read, decided per request before the body is. */
export interface UploadRules {
  /**
   * The whole body at most, in bytes; past it (declared or counted): 413 `payload_too_large` at once, the rest unread.
   */
  maxBytes: number;
  /** Multipart: the most files; one more is refused with `tooManyFiles()` as it starts. */
  maxFiles: number;
  tooManyFiles: () => DomainError;
  /**
   * Runs before any image is read (multipart: as the first file starts, with the fields sent
   * before it) or decoded (JSON: once parsed); what it throws refuses the upload.
   */
  beforeImages?: (fields: Record<string, unknown>) => Promise<void>;
}

/** The standalone checks' uploads: at most CHECK_BODY_LIMIT, and 20 files. */
export const CHECK_UPLOAD: UploadRules = {
  maxBytes: CHECK_BODY_LIMIT,
  maxFiles: 20,
  tooManyFiles: () => new DomainError('validation_error', 'too many files'),
};

const bodyTooLarge = (maxBytes: number) =>
  new DomainError(
    'payload_too_large',
    `the request body is over ${maxBytes >= 1024 * 1024 ? `${Math.round(maxBytes / 1024 / 1024)} MB` : `${Math.round(maxBytes / 1024)} KB`}`,
  );

/** How long a refused body's connection stays half-open after the answer, for the client to read it. */
const LINGER_MS = 1000;

/**
 * After a refusal mid-upload: nothing more is read (the client's sending stalls on TCP's flow
 * control), the answer says `Connection: close` (no client sends its next request behind a body
 * we will not read), and the connection closes in two stages: our side right after the answer,
 * fully LINGER_MS later. Node would close it fully at once, and a connection closed while the
 * client still writes to it is reset, which can destroy the answer before the client reads it
 * (RFC 9112 9.6, servers' "lingering close").
 */
function stopReading(req: Request, res: Response, parser?: busboy.Busboy): void {
  // The parser is left as it is, unfed, for the collector: destroying it throws into its current
  // file stream (and from inside its own `limit` event it touches that stream afterwards).
  if (parser) req.unpipe(parser);
  req.pause();
  if (res.headersSent) return;
  res.setHeader('Connection', 'close');
  // What Node calls once a `Connection: close` answer is written, for this connection only.
  const socket = req.socket;
  socket.destroySoon = () => {
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}

/** A declared Content-Length over `maxBytes`: refused before a byte is read. */
function declaredTooLarge(req: Request, maxBytes: number): boolean {
  const declared = Number(req.get('content-length'));
  return Number.isFinite(declared) && declared > maxBytes;
}

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
const imageListOf = (kinds: FieldKinds, name: string): string | undefined =>
  kinds.imageArrays?.find((field) => name === field || name === `${field}[]`);

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
    if (!/;base64$/i.test(dataUrl[2] ?? ''))
      throw new DomainError('validation_error', `${field}: data URLs must be base64-encoded`, {
        data: { errors: { [field]: 'data URL is not base64' } },
      });
    payload = value.slice(dataUrl[0].length);
  }
  const compact = payload.replace(/\s+/g, '');
  if (compact.length === 0 || compact.length % 4 === 1 || !(BASE64.test(compact) || BASE64URL.test(compact))) {
    throw new DomainError('validation_error', `${field}: not valid base64`, {
      data: { errors: { [field]: 'not valid base64' } },
    });
  }
  if (Math.floor((compact.length * 3) / 4) > MAX_IMAGE_BYTES + 3)
    throw new DomainError('image_too_large', `${field} is over 20 MB`);
  return Buffer.from(compact, BASE64.test(compact) ? 'base64' : 'base64url');
}

/** A parsed JSON body as its fields (none for no body); anything but an object is refused. */
function jsonFields(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new DomainError('validation_error', 'the body must be a JSON object');
  return body as Record<string, unknown>;
}

function fromJson(fields: Record<string, unknown>, kinds: FieldKinds): Record<string, unknown> {
  const out: Record<string, unknown> = { ...fields };
  for (const field of kinds.images) {
    const value = out[field];
    if (value === undefined || value === null || value === '') {
      delete out[field];
    } else if (typeof value === 'string') {
      out[field] = decodeImageString(field, value);
    } else {
      throw new DomainError(
        'validation_error',
        `${field}: expected a base64 or data-URL string (or send multipart/form-data files)`,
        { data: { errors: { [field]: 'expected a string' } } },
      );
    }
  }
  for (const field of kinds.imageArrays ?? []) {
    const value = out[field];
    if (value === undefined || value === null) {
      delete out[field];
    } else if (Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== '')) {
      out[field] = value.map((item: string, i) => decodeImageString(`${field}[${i}]`, item));
    } else {
      throw new DomainError('validation_error', `${field}: expected an array of base64 or data-URL strings`, {
        data: { errors: { [field]: 'expected an array of image strings' } },
      });
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
      out[name] = Array.isArray(list)
        ? list.map((item) => (typeof item === 'string' && /^\d+$/.test(item) ? Number(item) : item))
        : list;
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

/**
 * A multipart body, streamed: each limit of `rules` is enforced as the body arrives and refuses
 * it at once, unread past that point; no file is read before `rules.beforeImages` has passed.
 */
function fromMultipart(
  req: Request,
  res: Response,
  kinds: FieldKinds,
  rules: UploadRules,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    if (declaredTooLarge(req, rules.maxBytes)) {
      stopReading(req, res);
      reject(bodyTooLarge(rules.maxBytes));
      return;
    }
    let parser: busboy.Busboy;
    try {
      // One file past maxFiles still starts (and is refused by the count below); more are not parsed.
      parser = busboy({
        headers: req.headers,
        limits: { fileSize: MAX_IMAGE_BYTES + 1, files: rules.maxFiles + 1, fields: 50, fieldSize: 64 * 1024 },
      });
    } catch {
      reject(new DomainError('validation_error', 'malformed multipart/form-data request'));
      return;
    }
    // Keyed by the caller's field names: without a prototype, `constructor` or `__proto__` is just a name
    // (with one, `fields.constructor.push` threw inside busboy's event, which killed the process).
    const fields: Record<string, string[]> = Object.create(null);
    const files: Record<string, Buffer> = Object.create(null);
    const lists: Record<string, Buffer[]> = Object.create(null);
    /** Images sent as base64 strings in fields: decoded at the end, once `beforeImages` has passed. */
    const encoded: { field: string; list?: string; slot: number; value: string }[] = [];
    let fileCount = 0;
    let settled = false;
    const refuse = (error: unknown) => {
      if (settled) return;
      settled = true;
      req.off('data', countBytes);
      stopReading(req, res, parser);
      reject(error);
    };
    let received = 0;
    function countBytes(chunk: Buffer) {
      received += chunk.length;
      if (received > rules.maxBytes) refuse(bodyTooLarge(rules.maxBytes));
    }
    req.on('data', countBytes);
    /** The check before images: started by the first file (or at the end when there is none), run once. */
    let checked: Promise<void> | undefined;
    const imagesMayBeRead = () => {
      checked ??= Promise.resolve().then(() => rules.beforeImages?.(coerce(fields, kinds)));
      return checked;
    };
    parser.on('file', (name, stream) => {
      // First, before any refusal below: a file stream's error with no listener would end the process.
      stream.on('error', () => refuse(new DomainError('validation_error', 'malformed multipart/form-data body')));
      const list = imageListOf(kinds, name);
      if (!list && !kinds.images.includes(name)) {
        refuse(
          new DomainError('validation_error', `${name}: unexpected file field`, {
            data: { errors: { [name]: 'not a file field' } },
          }),
        );
        return;
      }
      fileCount += 1;
      if (fileCount > rules.maxFiles) {
        refuse(rules.tooManyFiles());
        return;
      }
      if (list) lists[list] ??= [];
      const slot = list ? lists[list]!.push(Buffer.alloc(0)) - 1 : -1; // keep the order the parts arrived in
      const chunks: Buffer[] = [];
      stream.on('limit', () => refuse(new DomainError('image_too_large', `${name} is over 20 MB`)));
      stream.on('end', () => {
        const bytes = Buffer.concat(chunks);
        if (list) lists[list]![slot] = bytes;
        else if (bytes.length > 0) files[name] = bytes;
      });
      // Unread, the file holds the parser and the request back: nothing of it arrives before the check passes.
      imagesMayBeRead().then(() => {
        if (!settled) stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      }, refuse);
    });
    parser.on('field', (name, value) => {
      const list = imageListOf(kinds, name);
      if (list) {
        lists[list] ??= [];
        encoded.push({
          field: `${list}[${lists[list].length}]`,
          list,
          slot: lists[list].push(Buffer.alloc(0)) - 1,
          value,
        });
        return;
      }
      if (kinds.images.includes(name)) {
        if (value !== '') encoded.push({ field: name, slot: -1, value });
        return;
      }
      fields[name] ??= [];
      fields[name].push(value);
    });
    parser.on('error', () => refuse(new DomainError('validation_error', 'malformed multipart/form-data body')));
    parser.on('close', () => {
      if (settled) return;
      imagesMayBeRead().then(() => {
        if (settled) return;
        settled = true;
        req.off('data', countBytes);
        try {
          for (const image of encoded) {
            const bytes = decodeImageString(image.field, image.value);
            if (image.list) lists[image.list]![image.slot] = bytes;
            else files[image.field] = bytes;
          }
        } catch (error) {
          reject(error);
          return;
        }
        resolve({ ...coerce(fields, kinds), ...files, ...lists });
      }, refuse);
    });
    req.pipe(parser);
  });
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
    if (typeof value === 'string' && LONE_SURROGATE.test(value))
      return 'the JSON body has a string with a lone surrogate (\\ud800-\\udfff without its pair)';
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

/** One JSON parser per body limit (the routes use two or three). */
const jsonParsers = new Map<number, RequestHandler>();
function jsonParserFor(limit: number): RequestHandler {
  let parser = jsonParsers.get(limit);
  if (!parser) {
    parser = express.json({ limit, type: ['application/json', 'application/*+json'] });
    jsonParsers.set(limit, parser);
  }
  return parser;
}

/**
 * Reads a check body into `res.locals.input`, within the upload rules of the request (`rulesOf`,
 * decided before the body is read; the standalone checks' by default).
 */
export function checkBody(
  kinds: FieldKinds,
  rulesOf: (req: Request, res: Response) => UploadRules = () => CHECK_UPLOAD,
) {
  return (req: Request, res: Response, next: NextFunction) => {
    const rules = rulesOf(req, res);
    const type = (req.get('content-type') ?? '').toLowerCase();
    if (type.startsWith('multipart/form-data')) {
      fromMultipart(req, res, kinds, rules).then((input) => {
        res.locals.input = input;
        next();
      }, next);
      return;
    }
    if (carriesBody(req) && !isJson(req)) {
      next(
        unsupportedMediaType(
          req,
          res,
          ['application/json', 'multipart/form-data'],
          'application/json (images as base64 or data-URL strings) or multipart/form-data (images as files)',
        ),
      );
      return;
    }
    if (declaredTooLarge(req, rules.maxBytes)) {
      stopReading(req, res);
      next(bodyTooLarge(rules.maxBytes));
      return;
    }
    jsonParserFor(rules.maxBytes)(req, res, (error?: unknown) => {
      if (error) return next(error);
      const reason = unacceptableJson(req.body);
      if (reason) return next(new DomainError('validation_error', reason));
      decodedJson(req.body, kinds, rules).then((input) => {
        res.locals.input = input;
        next();
      }, next);
    });
  };
}

/** A parsed JSON body, its images decoded once `beforeImages` has passed. */
async function decodedJson(body: unknown, kinds: FieldKinds, rules: UploadRules): Promise<Record<string, unknown>> {
  const fields = jsonFields(body);
  await rules.beforeImages?.(fields);
  return fromJson(fields, kinds);
}

/** The media types the JSON parsers read (`jsonBody`, the check bodies). */
const JSON_TYPES = ['application/json', 'application/*+json'];

const isJson = (req: Request) => req.is(JSON_TYPES) !== false;

/** Whether the request has body bytes: a Content-Length above 0, or a chunked body (RFC 9112 6.3). */
function carriesBody(req: Request): boolean {
  return req.get('transfer-encoding') !== undefined || Number(req.get('content-length') ?? 0) > 0;
}

/**
 * 415 `unsupported_media_type` saying what to send, with `Accept-Post` (or `Accept-Patch`) listing
 * the media types the route reads (RFC 9110 15.5.16). A form-encoded or text body on a JSON route
 * would otherwise be read as no body at all, and answered "workflow_id: required".
 */
function unsupportedMediaType(req: Request, res: Response, accepted: string[], what: string): DomainError {
  res.setHeader(req.method === 'PATCH' ? 'Accept-Patch' : 'Accept-Post', accepted.join(', '));
  const sent = req.get('content-type');
  const read = sent
    ? `the body is ${sent.split(';')[0]!.trim()}, which this route does not read`
    : 'the body has no Content-Type';
  return new DomainError('unsupported_media_type', `${read}: send ${what}`);
}

/** A JSON route's guard: a body, when there is one, is JSON (415 otherwise). */
export function requireJsonBody(req: Request, res: Response, next: NextFunction): void {
  next(
    carriesBody(req) && !isJson(req)
      ? unsupportedMediaType(req, res, ['application/json'], 'Content-Type: application/json')
      : undefined,
  );
}

/**
 * Refuses a body with fields the route's schema does not declare (400, each named, with the
 * field it most likely meant), before the route runs. The body is `req.body` unless `bodyOf`
 * says where the route keeps it (the check bodies: `res.locals.input`).
 */
export function refuseUndeclaredFields(
  schema: z.ZodType,
  options: { code?: 'validation_error' | 'invalid_request'; bodyOf?: (req: Request, res: Response) => unknown } = {},
): RequestHandler {
  const bodyOf = options.bodyOf ?? ((req: Request) => req.body);
  return (req, res, next) => {
    refuseUnknownFields(schema, bodyOf(req, res) ?? {}, options.code);
    next();
  };
}
