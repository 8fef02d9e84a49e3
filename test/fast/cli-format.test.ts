import { describe, expect, it } from 'vitest';
import { asTable, fitColumns, outputFormat, TABLE_WIDTH, wrap } from '../../src/cli/format.js';
import { modeOf, views, withMode } from '../../src/cli/views.js';

// Fast tier: how the CLI prints for people and for scripts.

const widest = (text: string) => Math.max(...text.split('\n').map((line) => line.length));

describe('CLI output', () => {
  it('is JSON for scripts and a table on a terminal, unless asked otherwise', () => {
    expect(outputFormat({}, false)).toBe('json');
    expect(outputFormat({}, true)).toBe('table');
    expect(outputFormat({ json: true }, true)).toBe('json');
    expect(outputFormat({ table: true }, false)).toBe('table');
    expect(outputFormat({ wide: true }, false)).toBe('table');
    expect(outputFormat({ json: true, wide: true }, true)).toBe('json');
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

  it('prints a record as key and value lines, its lists of records as tables below, and wraps long values instead of cutting them', () => {
    const text = asTable({ applied: 2, note: 'x'.repeat(80), keys: [{ kid: 'k' }] });
    expect(text.split('\n')[0]).toBe('applied  2');
    expect(text.split('\n')[1]).toBe(`note     ${'x'.repeat(80)}`);
    expect(text).toContain('keys:\nkid\nk');
    const long = asTable({ reason: `${'word '.repeat(40)}end` });
    expect(widest(long)).toBeLessThanOrEqual(TABLE_WIDTH);
    expect(long.replace(/\s+/g, ' ')).toContain(`${'word '.repeat(40)}end`);
  });

  it('prints a nested record as an indented block, lists of words with commas, times to the second', () => {
    expect(
      asTable({
        decision: { status: 'APPROVED', features: ['age', 'location'], decided_at: '2026-12-02T03:46:26.397Z' },
      }),
    ).toBe(
      ['decision:', '  status      APPROVED', '  features    age, location', '  decided_at  2026-12-02T03:46:26Z'].join(
        '\n',
      ),
    );
  });

  it('fits a table in 100 columns: free text is cut first, ids stay whole, and what does not fit is named', () => {
    const rows = Array.from({ length: 3 }, (_, i) => ({
      session_id: `ses_${'0'.repeat(23)}${i}`,
      status: 'NOT_STARTED',
      note: `a long remark about the session number ${i} that goes on and on`,
      created_at: '2026-12-02T03:45:38.989Z',
      updated_at: '2026-12-02T03:45:38.989Z',
      expires_at: '2026-12-02T04:45:38.989Z',
    }));
    const table = asTable(rows);
    expect(widest(table)).toBeLessThanOrEqual(TABLE_WIDTH);
    expect(table).toContain('ses_000000000000000000000000');
    expect(table.split('\n').at(-1)).toMatch(/^\(\d more columns?: .*expires_at; --wide shows them\)$/);
    const wide = asTable(rows, { width: Infinity });
    expect(wide).toContain('that goes on and on');
    expect(wide.split('\n')[0]).toContain('expires_at');
  });

  it('fitColumns: shrinks the widest free-text column to its floor, then leaves columns out from the right', () => {
    expect(
      fitColumns(
        [
          { header: 2, natural: 28, freeText: false },
          { header: 4, natural: 80, freeText: true },
        ],
        50,
      ),
    ).toEqual({ widths: [28, 20], shown: 2 });
    expect(
      fitColumns(
        [
          { header: 2, natural: 28, freeText: false },
          { header: 4, natural: 80, freeText: true },
        ],
        30,
      ),
    ).toEqual({ widths: [28, 12], shown: 1 });
  });

  it('wraps at spaces, and inside a word only when it must', () => {
    expect(wrap('aaa bbb ccc', 7)).toEqual(['aaa bbb', 'ccc']);
    expect(wrap('x'.repeat(10), 4)).toEqual(['xxxx', 'xxxx', 'xx']);
    expect(wrap('short', Infinity)).toEqual(['short']);
  });

  it('can wrap the free text of table cells instead of cutting it', () => {
    const rows = [{ id: 'evt_1', reason: `${'because '.repeat(20)}done` }];
    const table = asTable(rows, { width: 60, wrapCells: true });
    expect(widest(table)).toBeLessThanOrEqual(60);
    expect(table).not.toContain('…');
    expect(table.replace(/\s+/g, ' ')).toContain(`${'because '.repeat(20)}done`);
  });
});

describe('CLI table views', () => {
  it('say test or live for every row that has a mode', () => {
    expect(modeOf({ livemode: false })).toBe('test');
    expect(modeOf({})).toBe('live');
    expect(modeOf({ mode: 'test' })).toBe('test');
    expect(withMode({ event_id: 'evt_1', type: 'x', livemode: false })).toEqual({
      event_id: 'evt_1',
      mode: 'test',
      type: 'x',
    });
  });

  it('list sessions by id, mode, status, vendor_data and creation, and everything with --wide', () => {
    const answer = {
      sessions: [
        {
          session_id: 'ses_1',
          status: 'APPROVED',
          workflow_id: 'wf_1',
          vendor_data: 'a',
          created_at: 't',
          livemode: false,
        },
        { session_id: 'ses_2', status: 'NOT_STARTED', workflow_id: 'wf_1', vendor_data: 'b', created_at: 't' },
      ],
      nextCursor: null,
    };
    const narrow = views.sessionList(answer, false) as { sessions: Record<string, unknown>[] };
    expect(narrow.sessions.map((row) => Object.keys(row))).toEqual([
      ['session_id', 'mode', 'status', 'vendor_data', 'created_at'],
      ['session_id', 'mode', 'status', 'vendor_data', 'created_at'],
    ]);
    expect(narrow.sessions.map((row) => row.mode)).toEqual(['test', 'live']);
    expect(
      Object.keys((views.sessionList(answer, true) as { sessions: Record<string, unknown>[] }).sessions[0]!),
    ).toContain('workflow_id');
  });

  it("show a session's whole decision, checks as a table, in 100 columns", () => {
    const decidedBy = 'reviewer:ops-night-shift@example.com (second look after the document was re-read by hand)';
    const shown = views.sessionShow(
      {
        decision: {
          session_id: 'ses_1',
          status: 'DECLINED',
          decision: 'DECLINED',
          decided_by: decidedBy,
          checks: [
            {
              type: 'id_verification',
              status: 'failed',
              score: 0.2,
              data: { big: 'x'.repeat(300) },
              error: 'document_expired',
            },
          ],
          livemode: false,
        },
        timeline: [],
        webhooks: [],
      },
      false,
    );
    const text = asTable(shown, { wrapCells: true });
    expect(widest(text)).toBeLessThanOrEqual(TABLE_WIDTH);
    expect(text.replace(/\s+/g, ' ')).toContain(decidedBy);
    expect(text).toMatch(/mode +test/);
    expect(text).toMatch(/type +status +score +error\n +id_verification +failed +0\.2 +document_expired/);
    expect(text).not.toContain('x'.repeat(20));
  });
});
