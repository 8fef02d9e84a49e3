// How the CLI prints an answer: JSON for scripts (and whenever stdout is not a terminal), a plain
// table for people. The table is for reading, never for parsing: long values are cut.

const MAX_CELL = 48;

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  const line = text.replace(/\s+/g, ' ');
  return line.length > MAX_CELL ? `${line.slice(0, MAX_CELL - 1)}…` : line;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Rows of records as aligned columns (the union of their keys, in first-seen order). */
function rowsTable(rows: Record<string, unknown>[]): string {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const lines = [columns, ...rows.map((row) => columns.map((column) => cell(row[column])))];
  const widths = columns.map((_, i) => Math.max(...lines.map((line) => line[i]!.length)));
  return lines
    .map((line) =>
      line
        .map((text, i) => text.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** A value as people read it: a list of records as a table, a record as `key  value` lines (its lists of records as tables below), anything else as text. */
export function asTable(value: unknown): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '(none)';
    return value.every(isRecord) ? rowsTable(value) : value.map(cell).join('\n');
  }
  if (!isRecord(value)) return cell(value);
  const entries = Object.entries(value);
  const lists = entries.filter(([, v]) => Array.isArray(v) && v.length > 0 && v.every(isRecord));
  const scalars = entries.filter((entry) => !lists.includes(entry));
  const width = Math.max(0, ...scalars.map(([key]) => key.length));
  const parts = scalars.length ? [scalars.map(([key, v]) => `${key.padEnd(width)}  ${cell(v)}`.trimEnd()).join('\n')] : [];
  for (const [key, list] of lists) parts.push(`${key}:\n${rowsTable(list as Record<string, unknown>[])}`);
  return parts.join('\n\n');
}

/** JSON unless asked for a table, or stdout is a terminal and JSON was not asked for. */
export function outputFormat(options: { json?: boolean; table?: boolean }, isTerminal: boolean): 'json' | 'table' {
  if (options.json) return 'json';
  if (options.table) return 'table';
  return isTerminal ? 'table' : 'json';
}
