// A one-line progress bar for long CLI work (a licence import, a bulk webhook resend), drawn on
// stderr so stdout keeps only the answer. Drawn only on a terminal: a script, a pipe or a log file
// gets nothing from it.

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export interface Progress {
  update(done: number, total: number): void;
  /** Clears the bar's line, so what is printed next starts on a clean line. */
  finish(): void;
}

/** A terminal is redrawn at most this often (a 60,000-row import would otherwise draw 120 times a second). */
const REDRAW_MS = 100;
const CLEAR_LINE = '\r\x1b[K';

/** The line drawn for `done` of `total`: label, bar, percentage, counts; at most `columns` wide. */
export function progressLine(label: string, done: number, total: number, columns = 80): string {
  const share = total > 0 ? Math.min(1, done / total) : 0;
  const counts = `${Math.round(share * 100)}% ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}`;
  const width = Math.max(0, Math.min(40, columns - label.length - counts.length - 5));
  const filled = Math.round(share * width);
  const bar = width > 0 ? ` [${'#'.repeat(filled)}${'.'.repeat(width - filled)}]` : '';
  return `${label}${bar} ${counts}`.slice(0, Math.max(0, columns - 1));
}

const silent: Progress = { update() {}, finish() {} };

/** A bar on `stream` when it is a terminal and `quiet` is not set (--json); otherwise one that draws nothing. */
export function progressBar(
  label: string,
  stream: ProgressStream,
  options: { quiet?: boolean; now?: () => number } = {},
): Progress {
  if (stream.isTTY !== true || options.quiet) return silent;
  const now = options.now ?? Date.now;
  let drawnAt = -Infinity;
  let drawn = false;
  return {
    update(done, total) {
      const at = now();
      if (at - drawnAt < REDRAW_MS && done < total) return;
      drawnAt = at;
      drawn = true;
      // A terminal whose size is unknown (0: a pty nobody sized) is taken as 80 wide.
      stream.write(`${CLEAR_LINE}${progressLine(label, done, total, stream.columns || 80)}`);
    },
    finish() {
      if (drawn) stream.write(CLEAR_LINE);
      drawn = false;
    },
  };
}
