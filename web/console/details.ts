// Check details as a reviewer reads them: fields with their values, not a JSON dump.

/** A value as text: a dash for none, JSON for the odd object. */
export const shown = (v: unknown): string =>
  v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v);

/** A field name as people read it: `document_number` is "document number", `dob` stays. */
export const label = (key: string) => key.replace(/_/g, ' ');

/**
 * A check's details (its data and error, as the API stores them) as readable fields: nested objects
 * flattened into "passive · live score", lists of plain values joined, lists of records (evidence
 * measures) counted, since the liveness panel shows them in full.
 */
export function readableDetails(details: string): [string, string][] {
  const { data, error } = JSON.parse(details) as { data?: Record<string, unknown>; error?: string | null };
  const rows: [string, string][] = error ? [['error', error]] : [];
  const walk = (value: unknown, path: string[], depth: number) => {
    if (Array.isArray(value)) {
      if (value.every((item) => item === null || typeof item !== 'object'))
        rows.push([path.map(label).join(' · '), value.map(shown).join(', ') || '—']);
      else rows.push([path.map(label).join(' · '), value.length + (value.length === 1 ? ' item' : ' items')]);
    } else if (value !== null && typeof value === 'object' && depth < 3) {
      for (const [key, inner] of Object.entries(value)) walk(inner, [...path, key], depth + 1);
    } else
      rows.push([
        path.map(label).join(' · '),
        typeof value === 'number' ? String(Number(value.toFixed(4))) : shown(value),
      ]);
  };
  for (const [key, value] of Object.entries(data ?? {})) walk(value, [key], 1);
  return rows;
}
