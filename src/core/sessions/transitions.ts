import { DomainError } from '../errors.js';
import { APPROVAL_RULE } from '../vocabulary.js';
import type { SessionStatus } from './entities.js';

// The hosted session's state machine, as one table. `SessionService.move` takes an event and
// moves a session only along a row of this table; every other move is refused. docs/sessions.md's
// state diagram is `stateDiagram()` of this table (a test keeps the two equal).

export type SessionTrigger =
  | 'created'
  | 'opened'
  | 'checks_passed'
  | 'needs_review'
  | 'check_failed'
  | 'reviewer_approved'
  | 'reviewer_declined'
  | 'deadline';

export interface Transition {
  from: SessionStatus | null;
  event: SessionTrigger;
  to: SessionStatus;
  /** What must also hold, checked where the event is raised (said here for the reader and the diagram). */
  guard?: string;
}

export const TRANSITIONS: readonly Transition[] = [
  { from: null, event: 'created', to: 'NOT_STARTED' },
  { from: 'NOT_STARTED', event: 'opened', to: 'IN_PROGRESS', guard: 'the person agreed on the start screen' },
  { from: 'IN_PROGRESS', event: 'checks_passed', to: 'APPROVED', guard: 'every check of the workflow passed' },
  { from: 'IN_PROGRESS', event: 'needs_review', to: 'IN_REVIEW', guard: 'every check done, one sent to review' },
  { from: 'IN_PROGRESS', event: 'check_failed', to: 'DECLINED', guard: 'a check failed for good' },
  // A step sent before the page said it was opened (an integrator's own front end) decides the same way.
  { from: 'NOT_STARTED', event: 'checks_passed', to: 'APPROVED', guard: 'every check of the workflow passed' },
  { from: 'NOT_STARTED', event: 'needs_review', to: 'IN_REVIEW', guard: 'every check done, one sent to review' },
  { from: 'NOT_STARTED', event: 'check_failed', to: 'DECLINED', guard: 'a check failed for good' },
  { from: 'IN_REVIEW', event: 'reviewer_approved', to: 'APPROVED', guard: APPROVAL_RULE },
  { from: 'IN_REVIEW', event: 'reviewer_declined', to: 'DECLINED' },
  { from: 'NOT_STARTED', event: 'deadline', to: 'EXPIRED' },
  { from: 'IN_PROGRESS', event: 'deadline', to: 'ABANDONED' },
];

/** Where `event` takes a session in `from`; 409 `conflict` when the table has no such move. */
export function transition(from: SessionStatus | null, event: SessionTrigger): SessionStatus {
  const row = TRANSITIONS.find((candidate) => candidate.from === from && candidate.event === event);
  if (!row) throw new DomainError('conflict', `a session ${from ?? 'not yet created'} cannot take the event ${event}`);
  return row.to;
}

/** The table as a Mermaid state diagram (docs/sessions.md shows it). */
export function stateDiagram(): string {
  const lines = TRANSITIONS.map(
    ({ from, event, to, guard }) => `  ${from ?? '[*]'} --> ${to}: ${event}${guard ? ` (${guard})` : ''}`,
  );
  return [
    'stateDiagram-v2',
    ...lines,
    ...['APPROVED', 'DECLINED', 'EXPIRED', 'ABANDONED'].map((final) => `  ${final} --> [*]`),
  ].join('\n');
}
