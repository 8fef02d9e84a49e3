import { isDatabaseUnavailable } from './unavailable.js';

/**
 * Writes rows that arrive one per request as few statements of many rows (a group commit):
 * under load each billed call's record and charge went alone, one round trip and one commit
 * each, and that write was half of the route's cost. A row waits only for the statement in
 * flight ahead of it, so an idle instance writes each row at once.
 *
 * `write` gets the rows in order and answers one result per row, in the same order. When a
 * statement of several rows fails for a reason other than a database outage (a row the
 * database refuses), each row is written again alone, so that one bad row fails only its own
 * caller. An outage fails them all: a lone write would fail the same way, and the statement
 * may have committed before its answer was lost.
 */
export class StatementBatch<Row, Result> {
  private readonly waiting: { row: Row; resolve: (result: Result) => void; reject: (error: unknown) => void }[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly write: (rows: Row[]) => Promise<Result[]>,
    private readonly limits: { maxRows: number; maxInFlight: number } = { maxRows: 64, maxInFlight: 2 },
  ) {}

  /** Writes `row` with the rows waiting beside it; settles with its own result or error. */
  submit(row: Row): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.waiting.push({ row, resolve, reject });
      this.schedule();
    });
  }

  /** The next statement, after the calls of this turn of the event loop have joined it. */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.limits.maxInFlight || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.inFlight >= this.limits.maxInFlight || this.waiting.length === 0) return;
    const batch = this.waiting.splice(0, this.limits.maxRows);
    this.inFlight += 1;
    try {
      await this.settle(batch);
    } finally {
      this.inFlight -= 1;
      this.schedule();
    }
  }

  private async settle(batch: typeof this.waiting): Promise<void> {
    try {
      const results = await this.write(batch.map((entry) => entry.row));
      for (const [i, entry] of batch.entries()) entry.resolve(results[i]!);
    } catch (error) {
      if (batch.length === 1 || isDatabaseUnavailable(error)) {
        for (const entry of batch) entry.reject(error);
        return;
      }
      await Promise.all(batch.map((entry) => this.settle([entry])));
    }
  }
}

/**
 * A StatementBatch for each `owner` (an ORM: each database its own), made on first use. For
 * statements of modules without an object of their own to keep one in.
 */
export function batchPerOwner<Owner extends object, Row, Result>(
  write: (owner: Owner, rows: Row[]) => Promise<Result[]>,
  limits?: ConstructorParameters<typeof StatementBatch<Row, Result>>[1],
): (owner: Owner) => StatementBatch<Row, Result> {
  const batches = new WeakMap<Owner, StatementBatch<Row, Result>>();
  return (owner) => {
    let batch = batches.get(owner);
    if (!batch) {
      batch = new StatementBatch((rows) => write(owner, rows), limits);
      batches.set(owner, batch);
    }
    return batch;
  };
}
