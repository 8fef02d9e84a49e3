import { describe, expect, it } from 'vitest';
import { progressBar, progressLine } from '../../src/cli/progress.js';

// Fast tier: the CLI's progress bar, on a fake terminal. Through the real command on a
// pseudo-terminal: test/cli.test.ts.

const CLEAR = '\r\x1b[K';

function fakeStream(isTTY: boolean, columns = 80) {
  const writes: string[] = [];
  return { isTTY, columns, writes, write: (text: string) => writes.push(text) };
}

describe('the CLI progress bar', () => {
  it('draws label, bar, share and counts, within the terminal width', () => {
    expect(progressLine('importing licences', 30_000, 60_000, 80)).toBe(
      `importing licences [${'#'.repeat(20)}${'.'.repeat(20)}] 50% 30,000/60,000`,
    );
    expect(progressLine('importing licences', 0, 0, 80)).toMatch(/\[\.+\] 0% 0\/0$/);
    // More done than the estimate said (a quoted field spanning lines): never past 100%.
    expect(progressLine('x', 12, 10, 80)).toMatch(/\[#+\] 100% 12\/10$/);
    for (const columns of [80, 40, 20, 5])
      expect(progressLine('importing licences', 1, 3, columns).length).toBeLessThan(columns);
  });

  it('writes nothing when stderr is not a terminal, or when --json asks for quiet', () => {
    for (const [stream, quiet] of [
      [fakeStream(false), false],
      [fakeStream(true), true],
    ] as const) {
      const bar = progressBar('importing licences', stream, { quiet });
      bar.update(1, 2);
      bar.update(2, 2);
      bar.finish();
      expect(stream.writes).toEqual([]);
    }
  });

  it('redraws one line at most every 100 ms, always at the end, and clears it when done', () => {
    const stream = fakeStream(true);
    let clock = 0;
    const bar = progressBar('resending', stream, { now: () => clock });
    bar.update(1, 10);
    clock = 50;
    bar.update(2, 10); // too soon: skipped
    clock = 150;
    bar.update(3, 10);
    clock = 160;
    bar.update(10, 10); // the last one is drawn however soon
    bar.finish();
    expect(stream.writes).toEqual([
      `${CLEAR}${progressLine('resending', 1, 10)}`,
      `${CLEAR}${progressLine('resending', 3, 10)}`,
      `${CLEAR}${progressLine('resending', 10, 10)}`,
      CLEAR,
    ]);
    expect(stream.writes.join('')).not.toContain('\n');
  });

  it('takes a terminal of unknown size (0 columns) as 80 wide', () => {
    const stream = fakeStream(true, 0);
    progressBar('importing licences', stream).update(1, 2);
    expect(stream.writes).toEqual([`${CLEAR}${progressLine('importing licences', 1, 2, 80)}`]);
  });

  it('leaves nothing to clear when it never drew', () => {
    const stream = fakeStream(true);
    progressBar('importing licences', stream).finish();
    expect(stream.writes).toEqual([]);
  });
});
