import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/core/errors.js';
import { SESSION_STATUSES } from '../../src/core/vocabulary.js';
import { type SessionTrigger, stateDiagram, transition, TRANSITIONS } from '../../src/core/sessions/transitions.js';

// The session state machine's table (fast tier: no database): every move in it is allowed, every
// other (from, event) pair is refused, and docs/sessions.md's diagram is the table's.

const TRIGGERS: SessionTrigger[] = [
  'created',
  'opened',
  'checks_passed',
  'needs_review',
  'check_failed',
  'reviewer_approved',
  'reviewer_declined',
  'deadline',
];
const FINAL = ['APPROVED', 'DECLINED', 'EXPIRED', 'ABANDONED'];

describe('the session transition table', () => {
  it('allows exactly the moves it lists, and refuses every other pair with 409 conflict', () => {
    for (const from of [null, ...SESSION_STATUSES]) {
      for (const trigger of TRIGGERS) {
        const row = TRANSITIONS.find((candidate) => candidate.from === from && candidate.event === trigger);
        if (row) {
          expect(transition(from, trigger), `${from} + ${trigger}`).toBe(row.to);
        } else {
          const refused = (() => {
            try {
              transition(from, trigger);
              return null;
            } catch (error) {
              return error;
            }
          })();
          expect(refused, `${from} + ${trigger}`).toBeInstanceOf(DomainError);
          expect((refused as DomainError).code).toBe('conflict');
        }
      }
    }
  });

  it('nothing leaves a final state, and each (from, event) has one row', () => {
    expect(TRANSITIONS.filter((row) => row.from && FINAL.includes(row.from))).toEqual([]);
    const keys = TRANSITIONS.map((row) => `${row.from}/${row.event}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("the sessions guide (docs/sessions.md) shows the table's own diagram", () => {
    const guide = readFileSync(new URL('../../docs/sessions.md', import.meta.url), 'utf8');
    expect(guide).toContain('```mermaid\n' + stateDiagram() + '\n```');
  });
});
