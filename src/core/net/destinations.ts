import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

// Outgoing requests to addresses our callers choose (webhook callbacks) must not reach our own
// network: loopback, private, link-local (the cloud metadata service), carrier-grade NAT, unique
// local, multicast or unspecified addresses. The check runs on the address the connection is
// actually made to (in the socket's DNS lookup), so a name that resolves elsewhere at approval
// and to 127.0.0.1 at delivery (DNS rebinding) is still refused.

const BLOCKED_V4: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
const BLOCKED_V6: [string, number][] = [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  // NAT64 (RFC 6052 and the local-use prefix of RFC 8215): a translator in our network turns
  // these into IPv4 connections, to whatever v4 address they carry.
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  // Teredo: the client's IPv4 address is carried obfuscated, and a relay of ours may reach it.
  ['2001::', 32],
];
const blocked = new net.BlockList();
for (const [address, prefix] of BLOCKED_V4) blocked.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of BLOCKED_V6) blocked.addSubnet(address, prefix, 'ipv6');

/** The 16 bytes of an IPv6 address in any text form (`::`, a dotted IPv4 tail), or null. */
function ipv6Bytes(ip: string): number[] | null {
  if (!net.isIPv6(ip)) return null;
  let text = ip.replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    const [a, b, c, d] = dotted.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const words = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return words.flatMap((word) => {
    const value = Number.parseInt(word, 16);
    return [value >> 8, value & 0xff];
  });
}

/**
 * The IPv4 address an IPv6 address stands for, when it is one of the encodings that reach an
 * IPv4 host: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), IPv4-translated
 * (`::ffff:0:a.b.c.d`) and 6to4 (`2002:aabb:ccdd::/48`). Null for any other address.
 */
function embeddedIPv4(bytes: number[]): string | null {
  const zero = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  const v4 = (at: number) => bytes.slice(at, at + 4).join('.');
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return v4(2);
  if (!zero(0, 8)) return null;
  const word4 = (bytes[8]! << 8) | bytes[9]!;
  const word5 = (bytes[10]! << 8) | bytes[11]!;
  if (word4 === 0 && (word5 === 0 || word5 === 0xffff)) return v4(12);
  if (word4 === 0xffff && word5 === 0) return v4(12);
  return null;
}

/**
 * Whether `ip` (an IP literal, v4 or v6) is an address of our own network rather than the public
 * internet: the one rule, applied when a destination is approved and again to the address each
 * delivery connects to. An IPv6 address that encodes an IPv4 one is judged by that IPv4 address.
 */
export function isPrivateAddress(ip: string): boolean {
  if (net.isIPv4(ip)) return blocked.check(ip, 'ipv4');
  const bytes = ipv6Bytes(ip);
  // Not an IP literal: nothing to connect to that we could vouch for.
  if (!bytes) return true;
  const v4 = embeddedIPv4(bytes);
  if (v4 && blocked.check(v4, 'ipv4')) return true;
  return blocked.check(ip.replace(/%.*$/, ''), 'ipv6');
}

/**
 * A delivery refused because the destination is (or resolves to) a private address. The message
 * names neither the address nor the name: attempt records, ops views and logs must not tell a
 * tenant what our internal names resolve to.
 */
export class PrivateDestination extends Error {
  constructor() {
    super('refused: private address');
    this.name = 'PrivateDestination';
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A socket lookup that refuses private addresses (unless `allowPrivate`). */
function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: object, callback: LookupCallback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const list = addresses as LookupAddress[];
      const bad = list.find((entry) => isPrivateAddress(entry.address));
      if (bad && !allowPrivate) return callback(new PrivateDestination(), '');
      if ((options as { all?: boolean }).all) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * One POST, no redirects followed, to a public address only (unless `allowPrivate`); at most
 * `maxBody` characters of the answer are read. An IP literal is checked before connecting.
 */
export function postOnce(
  url: string,
  options: {
    headers: Record<string, string>;
    body: string;
    timeoutMs: number;
    allowPrivate: boolean;
    maxBody?: number;
  },
): Promise<Answer> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && isPrivateAddress(host) && !options.allowPrivate)
    return Promise.reject(new PrivateDestination());
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: { ...options.headers, 'content-length': Buffer.byteLength(options.body) },
        lookup: guardedLookup(options.allowPrivate) as never,
        timeout: options.timeoutMs,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (body.length < (options.maxBody ?? 1024)) body += chunk;
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: body.slice(0, options.maxBody ?? 1024),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () =>
      request.destroy(Object.assign(new Error(`no answer within ${options.timeoutMs} ms`), { name: 'TimeoutError' })),
    );
    request.on('error', reject);
    request.end(options.body);
  });
}
