import { describe, expect, it } from 'vitest';
import { asTable, outputFormat } from '../src/cli/format.js';

// Fast tier: how the CLI prints for people and for scripts.

describe('CLI output', () => {
  it('is JSON for scripts and a table on a terminal, unless asked otherwise', () => {
    expect(outputFormat({}, false)).toBe('json');
    expect(outputFormat({}, true)).toBe('table');
    expect(outputFormat({ json: true }, true)).toBe('json');
    expect(outputFormat({ table: true }, false)).toBe('table');
  });

  it('prints a list of records as aligned columns, the union of their keys', () => {
    expect(
      asTable([
        { kid: 'a1', state: 'current' },
        { kid: 'b22', state: 'next', retires_at: null },
      ]),
    ).toBe(['kid  state    retires_at', 'a1   current', 'b22  next'].join('\n'));
    expect(asTable([])).toBe('(none)');
  });

  it('prints a record as key and value lines, its lists of records as tables below, and cuts long values', () => {
    const text = asTable({ applied: 2, note: 'x'.repeat(80), keys: [{ kid: 'k' }] });
    expect(text.split('\n')[0]).toBe('applied  2');
    expect(text.split('\n')[1]).toMatch(/^note {5}x{47}…$/);
    expect(text).toContain('keys:\nkid\nk');
  });
});
