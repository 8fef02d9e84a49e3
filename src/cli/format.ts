// How the CLI prints an answer: JSON for scripts (and whenever stdout is not a terminal), plain
// text for people. The text is for reading, never for parsing: a table fits TABLE_WIDTH columns
// (free text is cut and columns that do not fit are named below it), a record's values are never
// cut but wrapped, and `--wide` prints every column of a table whole.

/** The widest line people get without `--wide`. */
export const TABLE_WIDTH = 100;
const GAP = '  ';
/** Free text is cut to no fewer characters than this (or its header). */
const MIN_TEXT = 12;
/** A value longer than this is free text even without a space: it gives way before ids and times do. */
const LONG_VALUE = 48;

export interface TextOptions {
  /** The widest line; Infinity (`--wide`) prints every column of a table, every value whole. */
  width?: number;
  /**
   * Free text in tables goes on over more lines instead of being cut (`session show`: nothing of a decision is lost).
   */
  wrapCells?: boolean;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isTable = (value: unknown): value is Record<string, unknown>[] =>
  Array.isArray(value) && value.length > 0 && value.every(isRecord);
const ISO_TIME = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.\d+Z$/;

/** A value on one line, whole: lists of words joined by commas, times to the second, records as JSON. */
function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value) && value.every((item) => !isRecord(item) && !Array.isArray(item)))
    return value.map(text).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  const line = String(value).replace(/\s+/g, ' ');
  return line.replace(ISO_TIME, '$1Z');
}

const cut = (line: string, width: number): string =>
  line.length > width ? `${line.slice(0, Math.max(0, width - 1))}…` : line;

export interface ColumnShape {
  header: number;
  /** The longest value, header included. */
  natural: number;
  /** Values with spaces, JSON or long ones: these are cut first; ids, codes and times stay whole. */
  freeText: boolean;
}

/**
 * Widths that fit `width`: the widest free-text column gives way first, down to MIN_TEXT (or its
 * header); if the line is still too long, columns are left out from the right (the first stays).
 */
export function fitColumns(columns: ColumnShape[], width: number): { widths: number[]; shown: number } {
  const widths = columns.map((column) => column.natural);
  const lineWidth = (count: number) =>
    widths.slice(0, count).reduce((sum, w) => sum + w, 0) + GAP.length * Math.max(0, count - 1);
  const floor = (i: number) => Math.min(columns[i]!.natural, Math.max(columns[i]!.header, MIN_TEXT));
  while (lineWidth(columns.length) > width) {
    let widest = -1;
    for (let i = 0; i < columns.length; i++)
      if (columns[i]!.freeText && widths[i]! > floor(i) && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    if (widest < 0) break;
    widths[widest] = Math.max(floor(widest), widths[widest]! - Math.max(1, lineWidth(columns.length) - width));
  }
  let shown = columns.length;
  while (shown > 1 && lineWidth(shown) > width) shown--;
  return { widths, shown };
}

/** Rows of records as aligned columns (the union of their keys, in first-seen order), at most `width` wide. */
function rowsTable(rows: Record<string, unknown>[], width: number, wrapCells = false): string {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cells = rows.map((row) => columns.map((column) => text(row[column])));
  const shapes = columns.map((column, i) => {
    const values = cells.map((line) => line[i]!);
    return {
      header: column.length,
      natural: Math.max(column.length, ...values.map((value) => value.length)),
      freeText: values.some(
        (value) => value.includes(' ') || value.startsWith('{') || value.startsWith('[') || value.length > LONG_VALUE,
      ),
    };
  });
  const { widths, shown } = fitColumns(shapes, width);
  const lines = [columns, ...cells].flatMap((line) => {
    const parts = line
      .slice(0, shown)
      .map((value, i) => (wrapCells ? wrap(value, widths[i]!) : [cut(value, widths[i]!)]));
    const height = Math.max(...parts.map((part) => part.length));
    return Array.from({ length: height }, (_, row) =>
      parts
        .map((part, i) => (part[row] ?? '').padEnd(widths[i]!))
        .join(GAP)
        .trimEnd(),
    );
  });
  if (shown < columns.length) {
    const hidden = columns.slice(shown);
    lines.push(
      cut(
        `(${hidden.length} more column${hidden.length === 1 ? '' : 's'}: ${hidden.join(', ')}; --wide shows them)`,
        width,
      ),
    );
  }
  return lines.join('\n');
}

/** `text` broken into lines of at most `width`, at spaces where it can be. */
export function wrap(line: string, width: number): string[] {
  if (width === Infinity || line.length <= width) return [line];
  const lines: string[] = [];
  let rest = line;
  while (rest.length > width) {
    const space = rest.lastIndexOf(' ', width);
    const at = space > width / 2 ? space : width;
    lines.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  if (rest) lines.push(rest);
  return lines;
}

const indent = (block: string, by: string) =>
  block
    .split('\n')
    .map((line) => (line ? by + line : line))
    .join('\n');

/** A record as `key  value` lines (values wrapped, never cut), its records and tables below, indented. */
function recordText(record: Record<string, unknown>, width: number, wrapCells: boolean): string {
  const entries = Object.entries(record);
  const nested = entries.filter(([, value]) => isRecord(value) || isTable(value));
  const scalars = entries.filter((entry) => !nested.includes(entry));
  const keyWidth = Math.max(0, ...scalars.map(([key]) => key.length));
  const valueWidth = Math.max(20, width - keyWidth - GAP.length);
  const parts: string[] = [];
  if (scalars.length) {
    parts.push(
      scalars
        .map(([key, value]) => {
          const shown = Array.isArray(value) && value.length === 0 ? '(none)' : text(value);
          const [first = '', ...more] = wrap(shown, valueWidth);
          return [
            `${key.padEnd(keyWidth)}${GAP}${first}`.trimEnd(),
            ...more.map((line) => `${' '.repeat(keyWidth)}${GAP}${line}`),
          ].join('\n');
        })
        .join('\n'),
    );
  }
  for (const [key, value] of nested) {
    parts.push(
      isRecord(value)
        ? `${key}:\n${indent(recordText(value, width - 2, wrapCells), '  ')}`
        : `${key}:\n${rowsTable(value as Record<string, unknown>[], width, wrapCells)}`,
    );
  }
  return parts.join('\n\n');
}

/**
 * A value as people read it: a list of records as a table, a record as `key  value` lines (its records and lists of
 * records below), anything else as text.
 */
export function asTable(value: unknown, options: TextOptions = {}): string {
  const width = options.width ?? TABLE_WIDTH;
  if (Array.isArray(value)) {
    if (value.length === 0) return '(none)';
    return isTable(value)
      ? rowsTable(value, width, options.wrapCells)
      : value.map((item) => wrap(text(item), width).join('\n')).join('\n');
  }
  if (!isRecord(value)) return wrap(text(value), width).join('\n');
  return recordText(value, width, options.wrapCells === true);
}

/** JSON unless asked for a table (`--table`, or `--wide`), or stdout is a terminal and JSON was not asked for. */
export function outputFormat(
  options: { json?: boolean; table?: boolean; wide?: boolean },
  isTerminal: boolean,
): 'json' | 'table' {
  if (options.json) return 'json';
  if (options.table || options.wide) return 'table';
  return isTerminal ? 'table' : 'json';
}
