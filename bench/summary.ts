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

/** p50 and p95 of a call, in ms. */
export interface Timing {
  label: string;
  p50: number;
  p95: number;
}

/** Times `run` `repeats` times after `warmUps` untimed calls, and prints the label's p50 and p95. */
export async function timeCalls(
  label: string,
  run: () => Promise<unknown>,
  options: { repeats: number; warmUps?: number; indent?: string; width?: number },
): Promise<Timing> {
  for (let i = 0; i < (options.warmUps ?? 3); i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < options.repeats; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const at = (p: number) => samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))] ?? 0;
  const result = { label, p50: at(50), p95: at(95) };
  console.log(
    `${options.indent ?? ''}${label.padEnd(options.width ?? 44)} p50 ${result.p50.toFixed(1).padStart(7)} ms   p95 ${result.p95.toFixed(1).padStart(7)} ms`,
  );
  return result;
}
