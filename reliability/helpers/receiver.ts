import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { freePort } from '../../test/helpers/processes.js';

// A webhook receiver as an integrator writes one: it checks the signature over the raw bytes in
// constant time, deduplicates on the event id, and can go down and come back on the same port.

export interface Arrival {
  eventId: string;
  sessionId: string;
  status: string;
  /** Deliveries of this event id (more than 1 means it was sent again after a lost answer). */
  count: number;
  firstAt: number;
}

export class WebhookReceiver {
  /** By event id: what an integrator keeps to deduplicate. */
  readonly arrivals = new Map<string, Arrival>();
  badSignatures = 0;
  private server: http.Server | null = null;

  private constructor(
    readonly port: number,
    private readonly secret: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  static async start(secret: string): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(await freePort(), secret);
    await receiver.up();
    return receiver;
  }

  async up(): Promise<void> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const expected = createHmac('sha256', this.secret).update(`${req.headers['x-svc-timestamp']}.${raw}`).digest();
        const given = Buffer.from(String(req.headers['x-svc-signature'] ?? ''), 'hex');
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
          this.badSignatures += 1;
          return void res.writeHead(400).end('bad signature');
        }
        const body = JSON.parse(raw) as { event_id: string; session_id: string; status: string };
        const seen = this.arrivals.get(body.event_id);
        if (seen) seen.count += 1;
        else
          this.arrivals.set(body.event_id, {
            eventId: body.event_id,
            sessionId: body.session_id,
            status: body.status,
            count: 1,
            firstAt: Date.now(),
          });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }

  /** Stops listening and cuts open connections: deliveries are refused until up(). */
  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server)
      await new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      });
  }

  /** Event ids of `wanted` that have not arrived. */
  missing(wanted: Iterable<string>): string[] {
    return [...wanted].filter((id) => !this.arrivals.has(id));
  }

  /** Waits until every event of `wanted` arrived (or the time is up); the ids still missing. */
  async waitFor(wanted: string[], timeoutMs: number): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.missing(wanted).length && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    return this.missing(wanted);
  }

  duplicates(): number {
    return [...this.arrivals.values()].reduce((sum, arrival) => sum + arrival.count - 1, 0);
  }
}
