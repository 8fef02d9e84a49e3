import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A licensing board with a JSON lookup whose speed the licence number chooses:
//   HANG-...          never answers (the connection stays open)
//   DELAY<ms>-...     answers after <ms> milliseconds
//   anything else     answers at once
// Every answer is an active licence of Ada Lovelace under the number asked for.

export const BOARD_FIELDS = { licenseNumber: 'number', firstName: 'first', lastName: 'last', status: 'status' };

export class SlowBoard {
  /** Lookups received, by licence number. */
  readonly received = new Map<string, number>();
  private readonly server: http.Server;
  private arrived: (() => void)[] = [];

  private constructor() {
    this.server = http.createServer((req, res) => {
      const number = decodeURIComponent((req.url ?? '').split('/').pop() ?? '');
      this.received.set(number, (this.received.get(number) ?? 0) + 1);
      for (const wake of this.arrived.splice(0)) wake();
      if (number.startsWith('HANG-')) return;
      const delay = Number(/^DELAY(\d+)-/.exec(number)?.[1] ?? 0);
      setTimeout(() => {
        if (!res.destroyed)
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ number, first: 'Ada', last: 'Lovelace', status: 'active' }));
      }, delay);
    });
  }

  static async start(): Promise<SlowBoard> {
    const board = new SlowBoard();
    await new Promise<void>((resolve) => board.server.listen(0, '127.0.0.1', resolve));
    return board;
  }

  /** The URL template for `verity admin board-add-http --url`. */
  get urlTemplate(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/lookup/{license_number}`;
  }

  /** Resolves once `count` lookups in all have arrived. */
  async waitForLookups(count: number): Promise<void> {
    const total = () => [...this.received.values()].reduce((sum, n) => sum + n, 0);
    while (total() < count) await new Promise<void>((resolve) => this.arrived.push(resolve));
  }

  async close(): Promise<void> {
    await new Promise((resolve) => {
      this.server.close(resolve);
      this.server.closeAllConnections();
    });
  }
}
