/** RFC 4180 CSV: quoted fields, doubled quotes, CRLF or LF. Yields each row as an array of strings. */
export function* csvRows(text: string): Generator<string[]> {
  let field = '';
  let row: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') {
      quoted = true;
    } else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      row.push(field);
      field = '';
      if (row.length > 1 || row[0] !== '') yield row;
      row = [];
    } else {
      field += c;
    }
  }
  if (field !== '' || row.length) {
    row.push(field);
    yield row;
  }
}

/** Lines after the header: what a progress bar counts towards (a quoted line break makes it an overestimate). */
export function dataLineCount(text: string): number {
  let breaks = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) breaks += 1;
  const lines = breaks + (text.length > 0 && !text.endsWith('\n') ? 1 : 0);
  return Math.max(0, lines - 1);
}
