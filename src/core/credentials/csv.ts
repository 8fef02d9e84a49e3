/** RFC 4180 CSV: quoted fields, doubled quotes, CRLF or LF. Yields each row as an array of strings. */
export function* csvRows(text: string): Generator<string[]> {
  let field = '';
  let row: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i += 1; } else if (c === '"') quoted = false; else field += c;
    } else if (c === '"' && field === '') {
      quoted = true;
    } else if (c === ',') {
      row.push(field); field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      row.push(field); field = '';
      if (row.length > 1 || row[0] !== '') yield row;
      row = [];
    } else {
      field += c;
    }
  }
  if (field !== '' || row.length) { row.push(field); yield row; }
}
