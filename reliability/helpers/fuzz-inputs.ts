import { gzipSync, crc32 } from 'node:zlib';
import fc from 'fast-check';
import sharp from 'sharp';
import { markerImage } from '../../test/helpers/face-engine.js';
import { encodePathSegment } from './raw-http.js';

// fast-check arbitraries for bad input: strings that break naive code (NUL, lone surrogates,
// RTL marks, huge), JSON values of every type, images that are truncated, corrupt, bombs or not
// images at all in every encoding the check routes accept, and bodies whose framing lies.

/** Strings known to trip parsers, databases and templates. */
const NASTY = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '\u202eevil\u202c',
  '\u200f\u200e',
  '\ufeff',
  '\u0301\u0301\u0301',
  '😀'.repeat(3),
  'Ｅｍａｉｌ@example.com',
  '../../etc/passwd',
  "' OR 1=1 --",
  '%00',
  '%',
  '%zz',
  '${jndi:ldap://x}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  'NaN',
  '-1',
  '1e999',
  '0x10',
  '\r\n',
  '\t',
  '\\',
  'CA',
  'APPROVED',
  'true',
  '2026-02-30',
  '1990-01-01',
  '9999-99-99',
  'a@b',
  'A@EXAMPLE.COM',
  'mem_000000000000000000000000',
];

const huge = (max: number) =>
  fc
    .tuple(
      fc.constantFrom('a', 'é', '😀', '\u0000', '\ud800', '\u202e', '"', '\\'),
      fc.integer({ min: Math.min(1_000, max), max }),
    )
    .map(([unit, n]) => unit.repeat(n));

/** Any string, weighted towards the nasty ones; `max` bounds the huge ones. */
export const fuzzString = (max = 200_000): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...NASTY) },
    { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.integer({ min: 0xd800, max: 0xdfff }), { minLength: 1, maxLength: 4 })
        .map((units) => String.fromCharCode(...units)),
    },
    { weight: 1, arbitrary: huge(max) },
  );

const leaf = (max: number) =>
  fc.oneof(
    fuzzString(max),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(1e308, -0, 2 ** 53 + 1, -1, 0, 1, 18, 65, 500, 501),
  );

/** Any JSON value, nested a little. */
export const fuzzValue = (max = 200_000): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 4, arbitrary: leaf(max) },
    { weight: 1, arbitrary: fc.array(leaf(max), { maxLength: 6 }) },
    {
      weight: 1,
      arbitrary: fc.dictionary(fc.oneof(fuzzString(40), fc.constantFrom('__proto__', 'constructor')), leaf(max), {
        maxKeys: 4,
      }),
    },
  );

// ---- images ----

/** A PNG whose IHDR claims `width` x `height` (a decompression bomb's header), with one tiny IDAT. */
export function pngClaiming(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', ihdr),
    chunk('IDAT', Buffer.from('789c030000000001', 'hex')),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A baseline JPEG header claiming `width` x `height`, and nothing after it. */
export function jpegClaiming(width: number, height: number): Buffer {
  const sof = Buffer.from([
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    0x03,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
  ]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), sof, Buffer.from([0xff, 0xd9])]);
}

export interface ImageSamples {
  /** Decodable: a face for the marker engine (PNG) and a plain JPEG. */
  valid: Buffer[];
  /** Not images, or images no decoder should attempt. */
  hostile: Buffer[];
}

export async function imageSamples(): Promise<ImageSamples> {
  const jpeg = await sharp({ create: { width: 48, height: 48, channels: 3, background: '#806040' } })
    .jpeg()
    .toBuffer();
  const gif = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#123456' } })
    .gif()
    .toBuffer();
  return {
    valid: [await markerImage({ person: 1, live: true }), jpeg, gif],
    hostile: [
      pngClaiming(100_000, 100_000),
      pngClaiming(0, 0),
      pngClaiming(2 ** 31 - 1, 1),
      jpegClaiming(65_500, 65_500),
      jpegClaiming(1, 65_535),
      Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\n%%EOF'),
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"/>'),
      Buffer.from('<html><body>hi</body></html>'),
      Buffer.from('PK\u0003\u0004 not a zip'),
      Buffer.from('GIF89a\xff\xff\xff\xff', 'latin1'),
      Buffer.alloc(0),
      Buffer.alloc(1, 0xff),
      Buffer.from([0xff, 0xd8, 0xff]),
    ],
  };
}

/** Image bytes: valid, truncated, bit-flipped, hostile, or random. */
export function imageBytes(samples: ImageSamples): fc.Arbitrary<Buffer> {
  const valid = fc.constantFrom(...samples.valid);
  return fc.oneof(
    { weight: 1, arbitrary: valid },
    {
      weight: 3,
      arbitrary: fc
        .tuple(valid, fc.double({ min: 0, max: 1, noNaN: true }))
        .map(([bytes, at]) => bytes.subarray(0, Math.floor(bytes.length * at))),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          valid,
          fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 255 })), {
            minLength: 1,
            maxLength: 12,
          }),
        )
        .map(([bytes, flips]) => {
          const copy = Buffer.from(bytes);
          for (const [at, value] of flips) copy[Math.floor(at * (copy.length - 1))] = value;
          return copy;
        }),
    },
    { weight: 3, arbitrary: fc.constantFrom(...samples.hostile) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes)) },
  );
}

/** What a JSON image field may hold: base64, base64url, data URLs (lying or not), garbage, wrong types. */
export function imageValue(samples: ImageSamples): fc.Arbitrary<unknown> {
  const bytes = imageBytes(samples);
  return fc.oneof(
    { weight: 3, arbitrary: bytes.map((b) => b.toString('base64')) },
    { weight: 1, arbitrary: bytes.map((b) => b.toString('base64url')) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          bytes,
          fc.constantFrom(
            'image/png',
            'image/jpeg',
            'IMAGE/PNG',
            'text/plain',
            'application/pdf',
            'image/svg+xml',
            '',
            'image/png;charset=utf-8',
          ),
        )
        .map(([b, type]) => `data:${type};base64,${b.toString('base64')}`),
    },
    { weight: 1, arbitrary: bytes.map((b) => `data:image/png,${b.toString('latin1')}`) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(bytes, fc.constantFrom('\n', ' ', '\r\n\t', '=', '==', '==='))
        .map(([b, junk]) => b.toString('base64').replace(/(.{7})/g, `$1${junk}`)),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '!!!!',
        '====',
        'a',
        'ab=c',
        'data:',
        'data:image/png;base64,',
        'data:image/png;base64,@@@',
        'data:;base64,AAAA',
        'base64,AAAA',
        '\u0000',
        '😀😀😀😀',
      ),
    },
    { weight: 1, arbitrary: fuzzValue(4_000) },
  );
}

// ---- bodies ----

export interface Body {
  contentType?: string;
  contentEncoding?: string;
  bytes: Buffer;
}

export const json = (value: unknown, contentType = 'application/json'): Body => ({
  contentType,
  bytes: Buffer.from(JSON.stringify(value) ?? 'null', 'utf8'),
});

/** Multipart with the given parts; `boundary` may lie. */
export function multipart(
  parts: { name: string; value: Buffer | string; filename?: string }[],
  boundary = 'fuzzBoundary42',
  declared = boundary,
): Body {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.filename !== undefined ? 'Content-Type: application/octet-stream\r\n' : ''}\r\n`,
        'utf8',
      ),
    );
    chunks.push(Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value, 'utf8'));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${declared}`, bytes: Buffer.concat(chunks) };
}

/** Every way a body can be wrong around an object `fields` (which the caller makes plausible or not). */
export function fuzzBody(
  fields: fc.Arbitrary<Record<string, unknown>>,
  files: fc.Arbitrary<{ name: string; value: Buffer; filename?: string }[]>,
): fc.Arbitrary<Body> {
  const text = fields.map((object) => JSON.stringify(object));
  const formOf = (object: Record<string, unknown>) =>
    Object.entries(object)
      .map(
        ([key, value]) =>
          `${encodePathSegment(key)}=${encodePathSegment(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''))}`,
      )
      .join('&');
  return fc.oneof(
    { weight: 8, arbitrary: fields.map((object) => json(object)) },
    {
      weight: 2,
      arbitrary: fc.tuple(text, fc.double({ min: 0, max: 1, noNaN: true })).map(([t, at]) => ({
        contentType: 'application/json',
        bytes: Buffer.from(t.slice(0, Math.floor(t.length * at))),
      })),
    },
    {
      weight: 1,
      arbitrary: fuzzString(50_000).map((t) => ({ contentType: 'application/json', bytes: Buffer.from(t) })),
    },
    {
      weight: 1,
      arbitrary: fuzzValue(50_000)
        .filter((v) => typeof v !== 'object' || v === null || Array.isArray(v))
        .map((v) => json(v)),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 1, max: 200_000 }), fc.constantFrom('[', '{"a":', '[{"b":'))
        .map(([depth, open]) => ({ contentType: 'application/json', bytes: Buffer.from(open.repeat(depth)) })),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: 100_000 }).map((depth) => ({
        contentType: 'application/json',
        bytes: Buffer.from(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
      })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          text,
          fc.constantFrom(
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data',
            'application/xml',
            'application/json; charset=utf-16',
            'application/json; charset=latin1',
            'application/json; charset=bogus',
            'application/merge-patch+json',
            'application/jsonx',
            '*/*',
            ';;;',
            'image/png',
          ),
        )
        .map(([t, contentType]) => ({ contentType, bytes: Buffer.from(t) })),
    },
    { weight: 1, arbitrary: text.map((t) => ({ bytes: Buffer.from(t) })) },
    {
      weight: 2,
      arbitrary: fields.map((object) => ({
        contentType: 'application/x-www-form-urlencoded',
        bytes: Buffer.from(formOf(object)),
      })),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          fields,
          files,
          fc.constantFrom('fuzzBoundary42', 'x'),
          fc.constantFrom('fuzzBoundary42', 'other', '"quoted"', ''),
        )
        .map(([object, parts, boundary, declared]) =>
          multipart(
            [
              ...Object.entries(object).map(([name, value]) => ({
                name,
                value: typeof value === 'string' ? value : (JSON.stringify(value) ?? ''),
              })),
              ...parts,
            ],
            boundary,
            boundary === 'x' ? declared : boundary,
          ),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(text, fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'compress', 'gzip, gzip'))
        .map(([t, contentEncoding]) => ({ contentType: 'application/json', contentEncoding, bytes: Buffer.from(t) })),
    },
    {
      weight: 1,
      arbitrary: text.map((t) => ({ contentType: 'application/json', contentEncoding: 'gzip', bytes: gzipSync(t) })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Body>(
        { contentType: 'application/json', bytes: Buffer.alloc(0) },
        { bytes: Buffer.alloc(0) },
        { contentType: 'application/json', bytes: Buffer.from('\ufeff{}') },
      ),
    },
  );
}

/** Header values as a client sends them: UTF-8 bytes, no CR, LF or NUL (Node refuses those). */
export const headerValue = (max = 4_000): fc.Arbitrary<string> =>
  fuzzString(max).map((value) =>
    Buffer.from(value, 'utf8')
      .toString('latin1')
      .replace(/[^\t\x20-\x7e\x80-\xff]/g, ''),
  );
