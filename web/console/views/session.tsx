// One session (#/session/<id>): its checks, evidence, timeline, webhooks, and the review when it waits for one.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Card, Pill, Table } from '../../components/index.js';
import { gql } from '../api.js';
import { QUERIES } from '../queries.js';
import { Details, EraseDataButton, EvidenceImages, ResendButton, ReviewButtons, ReviewFacts } from '../review-parts.js';
import { type Ctx, Loading, Out, type Outcome, TestBadge, can, useLoad, when } from '../shared.js';
import { REVIEW_POLL_MS } from './review.js';

export function SessionView({ ctx, sessionId }: { ctx: Ctx; sessionId: string }) {
  const [outcome, report] = useState<Outcome>(null);
  const reviewer = can(ctx.me, 'reviewer');
  const loaded = useLoad(
    async () =>
      (await gql(reviewer ? QUERIES.sessionWithDetails : QUERIES.session, { p: ctx.projectId, s: sessionId })).session,
    [ctx.projectId, sessionId],
  );
  const s = loaded.data;
  // Another reviewer may decide it meanwhile: read its status now and then, and show the decision when it moves.
  useEffect(() => {
    if (s?.status !== 'IN_REVIEW') return;
    const timer = setInterval(async () => {
      const now = await gql(QUERIES.sessionStatus, { p: ctx.projectId, s: sessionId }).catch(() => null);
      if (now && now.session.status !== s.status) loaded.reload();
    }, REVIEW_POLL_MS);
    return () => clearInterval(timer);
  }, [s?.status]);
  if (!s) return <Loading error={loaded.error} />;
  const facts: [string, ComponentChildren][] = [
    ['Status', <Pill value={s.status} />],
    ['Workflow', (s.workflow?.name ?? '') + ' (' + s.workflowId + ')'],
    ['Features', s.features.join(', ')],
    ['Vendor data', s.vendorData || '—'],
    ['Account', s.svcId || '—'],
    ['Decision', s.decision ? s.decision + ' by ' + s.decidedBy + ' at ' + when(s.decidedAt) : '—'],
    ['Created', when(s.createdAt)],
    ['Expires', when(s.expiresAt)],
  ];
  return (
    <>
      <Card>
        <h1>
          Session {s.id} <TestBadge livemode={s.livemode} />
        </h1>
        <Table heads={['', '']}>
          {facts.map(([k, v]) => (
            <tr>
              <th>{k}</th>
              <td>{v}</td>
            </tr>
          ))}
        </Table>
        {s.status === 'IN_REVIEW' ? (
          <p>
            <ReviewButtons
              ctx={ctx}
              sessionId={s.id}
              blockers={s.approvalBlockers}
              report={report}
              after={loaded.reload}
            />
          </p>
        ) : null}
        {s.status !== 'NOT_STARTED' && s.status !== 'IN_PROGRESS' ? (
          <p>
            <EraseDataButton ctx={ctx} sessionId={s.id} report={report} after={loaded.reload} />
          </p>
        ) : null}
        <Out outcome={outcome} />
      </Card>
      <Card>
        <h2>Checks</h2>
        <Table heads={['Type', 'Status', 'Score', 'Reason', 'Details']}>
          {s.checks.map((c) => (
            <tr>
              <td>{c.type}</td>
              <td>
                <Pill value={c.status} />
              </td>
              <td>{c.score ?? ''}</td>
              <td>{c.reason ?? ''}</td>
              <td>
                {c.details ? (
                  <Details details={c.details} />
                ) : (
                  <span class="hint">{reviewer ? '' : 'reviewer role needed'}</span>
                )}
              </td>
            </tr>
          ))}
        </Table>
        <h2>Images</h2>
        {s.imagesRetained && reviewer ? (
          <div class="review-side-by-side">
            <EvidenceImages ctx={ctx} sessionId={s.id} />
            <ReviewFacts status={s.status} checks={s.checks} timeline={s.timeline} />
          </div>
        ) : (
          <p class="hint" id="images">
            {s.imagesRetained
              ? 'Images are kept for this session: reviewer role needed to see them.'
              : "Images: none (never taken, past the project's retention, or erased)."}
          </p>
        )}
      </Card>
      <Card>
        <h2>Timeline</h2>
        <Table heads={['At', 'From', 'To', 'By', 'Why']}>
          {s.timeline.map((t) => (
            <tr>
              <td>{when(t.at)}</td>
              <td>{t.from ?? ''}</td>
              <td>
                <Pill value={t.to} />
              </td>
              <td>{t.actor}</td>
              <td>{t.reason ?? ''}</td>
            </tr>
          ))}
        </Table>
      </Card>
      <Card>
        <h2>Webhook events</h2>
        {s.webhookEvents.length ? (
          s.webhookEvents.map((e) => (
            <div>
              <p>
                <b>{e.type}</b> <Pill value={e.state} /> → {e.url || 'no destination'}{' '}
                <ResendButton ctx={ctx} eventId={e.id} report={report} />
              </p>
              <Table heads={['#', 'At', 'HTTP', 'ms', 'Error']}>
                {e.attempts.map((a) => (
                  <tr>
                    <td>{a.attempt}</td>
                    <td>{when(a.at)}</td>
                    <td>{a.httpStatus ?? 'no answer'}</td>
                    <td>{a.latencyMs}</td>
                    <td>{a.error ?? ''}</td>
                  </tr>
                ))}
              </Table>
            </div>
          ))
        ) : (
          <p class="hint">No webhook events yet.</p>
        )}
      </Card>
    </>
  );
}
