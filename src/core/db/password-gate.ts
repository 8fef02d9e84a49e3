import { createHash, timingSafeEqual } from 'node:crypto';
import net from 'node:net';

// PGlite answers every connection's startup with AuthenticationOk: served on loopback as it is,
// any user of the machine could connect and, say, write an admin token. This gate is the only
// network listener of the embedded store: it speaks the start of the Postgres protocol itself,
// asks for a password, and only then hands the connection to PGlite's socket (a Unix socket in
// the owner-only data dir). After the hand-over it just copies bytes both ways.

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const PROTOCOL_3 = 196608;
/** A startup packet is small; anything larger is not a Postgres client. */
const MAX_STARTUP = 10_000;

export interface GateOptions {
  backendPath: string;
  /** The password of outside sessions (`verity admin`, psql), published in `postgres.url`. */
  password: string;
  /**
   * The service's own sessions: their own password, and whom to tell when an outside session
   * opens and closes (another process may then change what the service caches).
   */
  own?: { password: string; outsideOpened(): void; outsideClosed(): void };
  host?: string;
  port?: number;
}

export interface PasswordGate {
  port: number;
  close(): Promise<void>;
}

const digest = (value: Buffer | string) => createHash('sha256').update(value).digest();

function authenticationRequest(code: number): Buffer {
  const message = Buffer.alloc(9);
  message.write('R', 0);
  message.writeInt32BE(8, 1);
  message.writeInt32BE(code, 5);
  return message;
}

function fatal(code: string, text: string): Buffer {
  const fields = Buffer.concat([Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${text}\0`), Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([head, fields]);
}

/** Serves `host:port` (0: any free port), letting through to `backendPath` the connections that give `password`. */
export function openPasswordGate(options: GateOptions): Promise<PasswordGate> {
  const expected = digest(options.password);
  const own = options.own ? digest(options.own.password) : null;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let buffered = Buffer.alloc(0);
    let startup: Buffer | null = null;
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length > MAX_STARTUP) return void client.destroy();
      if (!startup) {
        if (buffered.length < 8) return;
        const length = buffered.readInt32BE(0);
        if (length < 8 || length > MAX_STARTUP) return void client.destroy();
        if (buffered.length < length) return;
        const code = buffered.readInt32BE(4);
        const packet = buffered.subarray(0, length);
        buffered = buffered.subarray(length);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) return void client.write('N'); // no TLS on loopback
        if (code !== PROTOCOL_3) return void client.end(fatal('08P01', 'unsupported protocol'));
        startup = Buffer.from(packet);
        client.write(authenticationRequest(3)); // cleartext password: loopback only
      }
      if (buffered.length < 5) return;
      if (buffered[0] !== 0x70 /* 'p' */) return void client.end(fatal('08P01', 'expected a password message'));
      const length = buffered.readInt32BE(1);
      if (buffered.length < 1 + length) return;
      const given = buffered
        .subarray(5, 1 + length)
        .toString('utf8')
        .replace(/\0$/, '');
      const rest = buffered.subarray(1 + length);
      client.off('data', onData);
      const givenDigest = digest(given);
      const isOwn = own !== null && timingSafeEqual(givenDigest, own);
      if (!isOwn && !timingSafeEqual(givenDigest, expected))
        return void client.end(fatal('28P01', 'password authentication failed for user "postgres"'));
      if (!isOwn && options.own) {
        options.own.outsideOpened();
        client.once('close', () => options.own!.outsideClosed());
      }
      const backend = net.connect(options.backendPath);
      sockets.add(backend);
      backend.on('close', () => {
        sockets.delete(backend);
        client.destroy();
      });
      backend.on('error', () => client.destroy());
      client.on('close', () => backend.destroy());
      backend.once('connect', () => {
        backend.write(startup!);
        if (rest.length) backend.write(rest);
        client.pipe(backend);
        backend.pipe(client);
      });
    };
    client.on('data', onData);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      const address = server.address() as net.AddressInfo;
      resolve({
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
