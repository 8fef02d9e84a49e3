import http from 'node:http';

// Uploads sent the way an attacker or a slow phone sends them: a multipart body written part by
// part, possibly never finished, possibly endless, and the answer read as soon as it comes. Shows
// what the service refuses before it has read a body, and how much it reads before refusing.

/** One multipart part: a field, or a file with the bytes to send (repeated `times`). */
export type Part = { field: string; value: string } | { file: string; bytes: Buffer; times?: number };

export interface UploadAnswer {
  status: number;
  body: { success?: boolean; error?: { code: string; message: string }; data?: unknown };
  /** Body bytes written before the answer arrived. */
  sent: number;
  /** Whether the whole body had been written when the answer came. */
  complete: boolean;
}

const BOUNDARY = '----verity-upload-test';
const CHUNK = 256 * 1024;

/**
 * The multipart body of `parts` as chunks, never more than CHUNK bytes each (a 380 MB body is a generator, not a
 * buffer).
 */
function* multipartChunks(parts: Part[], finish: boolean): Generator<Buffer> {
  for (const part of parts) {
    if ('field' in part) {
      yield Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.field}"\r\n\r\n${part.value}\r\n`,
      );
      continue;
    }
    for (let i = 0; i < (part.times ?? 1); i++) {
      yield Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.file}"; filename="frame${i}.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
      );
      for (let offset = 0; offset < part.bytes.length; offset += CHUNK)
        yield part.bytes.subarray(offset, offset + CHUNK);
      yield Buffer.from('\r\n');
    }
  }
  if (finish) yield Buffer.from(`--${BOUNDARY}--\r\n`);
}

/** The length of the finished multipart body of `parts`. */
export function multipartLength(parts: Part[]): number {
  let length = 0;
  for (const chunk of multipartChunks(parts, true)) length += chunk.length;
  return length;
}

/**
 * POSTs `parts` as multipart/form-data and resolves with the answer as soon as it arrives, with
 * how much of the body was written by then. `declareLength` sends Content-Length (default: chunked);
 * `holdOpen` writes the parts but never the closing boundary nor the end of the request, so an
 * answer proves the service did not wait for the body. A connection reset before any answer rejects.
 */
export function uploadUntilAnswered(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  parts: Part[],
  options: { declareLength?: number; holdOpen?: boolean; signal?: AbortSignal } = {},
): Promise<UploadAnswer> {
  const target = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    // An unfinished body the service waits for would never be answered: fail with the reason instead.
    const waiting = options.holdOpen
      ? setTimeout(() => {
          reject(new Error(`no answer to ${path} while its body was unfinished: the service waited for the body`));
          req.destroy();
        }, 15_000)
      : undefined;
    let sent = 0;
    let complete = false;
    let answered = false;
    const req = http.request({
      host: target.hostname,
      port: target.port,
      method: 'POST',
      path,
      agent: false,
      signal: options.signal,
      headers: {
        ...headers,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        ...(options.declareLength !== undefined ? { 'content-length': String(options.declareLength) } : {}),
      },
    });
    req.on('response', (res) => {
      answered = true;
      clearTimeout(waiting);
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {}, sent, complete });
        req.destroy();
      });
    });
    // After the answer the service may close a connection it stopped reading: that is no failure.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const chunks = multipartChunks(parts, !options.holdOpen);
    const write = () => {
      for (;;) {
        if (answered || req.destroyed) return;
        const next = chunks.next();
        if (next.done) {
          complete = !options.holdOpen;
          if (complete) req.end();
          return;
        }
        sent += next.value.length;
        if (!req.write(next.value)) {
          req.once('drain', write);
          return;
        }
      }
    };
    write();
  });
}
