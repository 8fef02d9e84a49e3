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
  ['64:ff9b::', 96],
];
const blocked = new net.BlockList();
for (const [address, prefix] of BLOCKED_V4) blocked.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of BLOCKED_V6) blocked.addSubnet(address, prefix, 'ipv6');

/** Whether `ip` is an address of our own network rather than the public internet. */
export function isPrivateAddress(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (mapped) return blocked.check(mapped, 'ipv4');
  return net.isIPv6(ip) ? blocked.check(ip, 'ipv6') : blocked.check(ip, 'ipv4');
}

export class PrivateDestination extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`${host} resolves to ${address}, an address of a private network: not sent`);
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
      if (bad && !allowPrivate) return callback(new PrivateDestination(hostname, bad.address), '');
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
export function postOnce(url: string, options: { headers: Record<string, string>; body: string; timeoutMs: number; allowPrivate: boolean; maxBody?: number }): Promise<Answer> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && isPrivateAddress(host) && !options.allowPrivate) return Promise.reject(new PrivateDestination(host, host));
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      target,
      { method: 'POST', headers: { ...options.headers, 'content-length': Buffer.byteLength(options.body) }, lookup: guardedLookup(options.allowPrivate) as never, timeout: options.timeoutMs },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (body.length < (options.maxBody ?? 1024)) body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: body.slice(0, options.maxBody ?? 1024) }));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(Object.assign(new Error(`no answer within ${options.timeoutMs} ms`), { name: 'TimeoutError' })));
    request.on('error', reject);
    request.end(options.body);
  });
}
