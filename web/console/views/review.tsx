// The review queue (#/review): sessions waiting for a person's decision, read again every few seconds.
import { useEffect, useState } from 'preact/hooks';
import { APPROVAL_RULE } from '../../../src/core/vocabulary.js';
import { Card } from '../../components/index.js';
import { gql } from '../api.js';
import { QUERIES, type SessionRow } from '../queries.js';
import { ReviewButtons } from '../review-parts.js';
import { type Ctx, Out, type Outcome, PagedList, SessionRowView } from '../shared.js';

/** How often a review queue, or a session waiting for review, is read again: other reviewers decide too. */
export const REVIEW_POLL_MS = 5000;

/**
 * Sessions waiting for a person, oldest first: read again after each decision here and every few seconds (others decide
 * too).
 */
export function ReviewView({ ctx }: { ctx: Ctx }) {
  const [outcome, report] = useState<Outcome>(null);
  const [round, setRound] = useState(0);
  const refresh = () => setRound((n) => n + 1);
  useEffect(() => {
    const timer = setInterval(refresh, REVIEW_POLL_MS);
    return () => clearInterval(timer);
  }, []);
  return (
    <Card>
      <h1>Review queue</h1>
      <p class="hint">
        Sessions in IN_REVIEW, oldest first, kept up to date. Core's rule: {APPROVAL_RULE} (409 otherwise).
      </p>
      <Out outcome={outcome} />
      <PagedList<SessionRow & { approvalBlockers: string[] }>
        heads={['Session', 'Status', 'Workflow', 'Vendor data', 'Created', 'Decide']}
        version={ctx.projectId}
        refresh={round}
        rowKey={(s) => s.id}
        load={async (after) => (await gql(QUERIES.reviewQueue, { p: ctx.projectId, a: after })).reviewQueue}
        row={(s) => (
          <SessionRowView
            session={s}
            extra={
              <ReviewButtons ctx={ctx} sessionId={s.id} blockers={s.approvalBlockers} report={report} after={refresh} />
            }
          />
        )}
      />
    </Card>
  );
}
