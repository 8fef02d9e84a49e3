// What a command's answer shows in a table for people: the columns they read first, a `mode`
// column (test or live) wherever rows have a mode, and with `--wide` every field. JSON answers
// (scripts, `--json`) are never shaped here: they are what the core returned.

type Row = Record<string, unknown>;

/** Reshapes an answer for a table; `wide` keeps every field. */
export type TableView = (value: unknown, wide: boolean) => unknown;

const isRow = (value: unknown): value is Row => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `test` or `live`: a row's own `mode`, else its `livemode` (sessions and decisions say
 * `livemode: false` only for test data, so a row without it is live).
 */
export function modeOf(row: Row): 'test' | 'live' {
  if (row.mode === 'test' || row.mode === 'live') return row.mode;
  return row.livemode === false ? 'test' : 'live';
}

/** The row with `mode` second (after its id), `livemode` folded into it. */
export function withMode(row: Row): Row {
  const { livemode: _livemode, mode: _mode, ...rest } = row;
  const [first, ...others] = Object.entries(rest);
  return Object.fromEntries([...(first ? [first] : []), ['mode', modeOf(row)], ...others]);
}

/** Only `columns`, in that order (unless `wide`). */
function pick(row: Row, columns: readonly string[], wide: boolean): Row {
  return wide
    ? row
    : Object.fromEntries(columns.filter((column) => column in row).map((column) => [column, row[column]]));
}

/** A list of rows: each with its mode, narrowed to `columns`. */
export const rowsView =
  (columns: readonly string[], options: { mode?: boolean } = {}): TableView =>
  (value, wide) =>
    Array.isArray(value)
      ? value.map((row) => (isRow(row) ? pick(options.mode ? withMode(row) : row, columns, wide) : row))
      : value;

const WEBHOOK_EVENT_COLUMNS = ['event_id', 'mode', 'type', 'state', 'created_at'] as const;
const webhookEvents = rowsView(WEBHOOK_EVENT_COLUMNS, { mode: true });

/** `admin session list`: `{ sessions, nextCursor }`. */
export const sessionListView: TableView = (value, wide) => {
  if (!isRow(value) || !Array.isArray(value.sessions)) return value;
  return {
    ...value,
    sessions: rowsView(['session_id', 'mode', 'status', 'vendor_data', 'created_at'], { mode: true })(
      value.sessions,
      wide,
    ),
  };
};

/**
 * `admin session show`: the decision as `key  value` lines (never cut: wrapped), its checks as a
 * table, then the timeline and the session's webhook events.
 */
export const sessionShowView: TableView = (value, wide) => {
  if (!isRow(value) || !isRow(value.decision)) return value;
  const { checks, ...decision } = value.decision;
  return {
    decision: {
      ...withMode(decision),
      ...(Array.isArray(checks) ? { checks: rowsView(['type', 'status', 'score', 'error'])(checks, wide) } : {}),
    },
    timeline: value.timeline,
    webhooks: Array.isArray(value.webhooks) ? webhookEvents(value.webhooks, wide) : value.webhooks,
  };
};

export const views = {
  sessionList: sessionListView,
  sessionShow: sessionShowView,
  webhookEvents,
  apiKeys: rowsView(['id', 'mode', 'name', 'prefix', 'createdAt', 'revokedAt'], { mode: true }),
  callbacks: rowsView(['id', 'mode', 'url', 'active', 'createdAt'], { mode: true }),
  projects: rowsView(['id', 'name', 'balance', 'currency', 'isDemo', 'createdAt']),
  workflows: rowsView(['id', 'name', 'maxStepTries', 'features']),
  keys: rowsView(['kid', 'state', 'activates_at', 'retires_at']),
} satisfies Record<string, TableView>;
