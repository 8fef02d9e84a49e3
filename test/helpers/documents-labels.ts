import { readFileSync } from 'node:fs';

// LABELS.csv of the shared passporteye-mrz set (outside the repository): a small CSV reader.

export type LabelRow = Record<string, string>;

export function parseCsv(text: string): LabelRow[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else if (c !== '\r') cell += c;
  }
  if (cell || row.length) {
    row.push(cell);
    rows.push(row);
  }
  const [header, ...body] = rows;
  return body.filter((r) => r.length > 1).map((r) => Object.fromEntries(header!.map((h, k) => [h, r[k] ?? ''])));
}

export function readLabels(dir: string): Map<string, LabelRow> {
  return new Map(parseCsv(readFileSync(`${dir}LABELS.csv`, 'utf8')).map((r) => [r.file!, r]));
}

/** The labelled MRZ lines of a row (two or three). */
export function labelledLines(row: LabelRow): string[] {
  return [row.mrz_line1, row.mrz_line2, row.mrz_line3].filter((l): l is string => !!l);
}
