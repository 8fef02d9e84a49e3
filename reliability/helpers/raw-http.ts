import http, { type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';

// A bare HTTP client for inputs a well-behaved client refuses to build: duplicate headers,
// content types that lie, bodies that do not match them, paths with broken percent-encoding.

export interface RawRequest {
  method: string;
  /** Sent exactly as given (already percent-encoded by the caller). */
  path: string;
  /** An array value sends the header once per element. */
  headers?: OutgoingHttpHeaders;
  body?: Buffer | string;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function send(baseUrl: string, request: RawRequest): Promise<RawResponse> {
  const target = new URL(baseUrl);
  const body =
    request.body === undefined
      ? undefined
      : Buffer.isBuffer(request.body)
        ? request.body
        : Buffer.from(request.body, 'utf8');
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.path,
        agent,
        headers: { ...(body ? { 'content-length': body.length } : {}), ...request.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Percent-encodes every byte of the UTF-8 form outside RFC 3986's unreserved set (lone surrogates become U+FFFD). */
export function encodePathSegment(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9_.~-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
