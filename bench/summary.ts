// Each bench ends by printing its headline figures as `BENCH_SUMMARY {json}` lines; `npm run
// bench` (bench/index.ts) runs every bench and gathers these into one table.

export interface SummaryRow {
  area: string;
  /** What was measured, e.g. "POST /api/v2/session req/s". */
  what: string;
  verity: number;
  unit: string;
  /** The same figure for the baseline run side by side, when there is one. */
  baseline?: { name: string; value: number };
}

export function summary(...rows: SummaryRow[]): void {
  for (const row of rows) console.log(`BENCH_SUMMARY ${JSON.stringify(row)}`);
}
