// The parts of a review the session view, the review queue and the webhooks view share: decision buttons, evidence,
// facts, erase and resend.
import { useState } from 'preact/hooks';
import { Table } from '../components/index.js';
import { gql } from './api.js';
import { label, readableDetails, shown } from './details.js';
import { type CheckRow, QUERIES, type TimelineRow } from './queries.js';
import { ActionButton, type Ctx, Loading, type Outcome, can, inputValue, useLoad } from './shared.js';

/** What an approval would lack, in words (the checks of core's approval rule, from the session's approvalBlockers). */
const MISSING_FOR_APPROVAL: Record<string, string> = {
  id_verification: 'a read document',
  liveness: 'a passed liveness check',
  face_match: 'a passed face match',
};
const blockedWords = (blockers: string[]) =>
  'Approval needs ' +
  blockers.map((b) => MISSING_FOR_APPROVAL[b] ?? b).join(', ') +
  ', which this session lacks: decline it, or ask the person to verify again.';

/**
 * Approve and Decline with the required note. Approve is disabled, with the reason beside it, where
 * core's approval rule would refuse it (`blockers`); the rule allows no override, so none is offered.
 */
export function ReviewButtons({
  ctx,
  sessionId,
  blockers,
  report,
  after,
}: {
  ctx: Ctx;
  sessionId: string;
  blockers: string[];
  report: (outcome: Outcome) => void;
  after?: () => void;
}) {
  const [note, setNote] = useState('');
  if (!can(ctx.me, 'reviewer')) return <span class="hint">reviewer role needed to decide</span>;
  // The server requires the note (why); it goes in the session's timeline with the reviewer.
  const decide = (status: 'APPROVED' | 'DECLINED') => async () => {
    const data = await gql(QUERIES.reviewSession, { i: { projectId: ctx.projectId, sessionId, status, note } });
    if (after) setTimeout(after, 600);
    return 'Session ' + data.reviewSession.id + ' is now ' + data.reviewSession.status;
  };
  const why = 'approve-blocked-' + sessionId;
  return (
    <span class="row review-buttons">
      <input
        name="note"
        aria-label={'Review note for ' + sessionId}
        placeholder="Note (required)"
        value={note}
        onInput={(e) => setNote(inputValue(e))}
        onClick={(e) => e.stopPropagation()}
      />
      <ActionButton
        label="Approve"
        disabled={blockers.length > 0}
        describedBy={blockers.length ? why : undefined}
        work={decide('APPROVED')}
        report={report}
      />
      <ActionButton label="Decline" variant="danger" work={decide('DECLINED')} report={report} />
      {blockers.length ? (
        <span class="hint approve-blocked" id={why}>
          {blockedWords(blockers)}
        </span>
      ) : null}
    </span>
  );
}

/** The review images side by side; each load is recorded in the admin audit by the server. */
/**
 * An image's name: its kind, and its try when its step was tried more than once (the timeline says why each try was
 * refused).
 */
const imageName = (image: { kind: string; attempt: number }, tries: number) =>
  image.kind.replace('_', ' ') + (tries > 1 ? ', try ' + image.attempt : '');

export function EvidenceImages({ ctx, sessionId }: { ctx: Ctx; sessionId: string }) {
  const images = useLoad(
    async () => (await gql(QUERIES.sessionEvidence, { p: ctx.projectId, s: sessionId })).sessionEvidence,
    [ctx.projectId, sessionId],
  );
  if (!images.data) return <Loading error={images.error} />;
  const triesOf = (kind: string) =>
    Math.max(...images.data!.filter((image) => image.kind === kind).map((image) => image.attempt));
  return (
    <div class="row" id="evidence">
      {images.data.map((image) => (
        <figure data-attempt={image.attempt}>
          <img
            src={image.dataUrl}
            alt={imageName(image, triesOf(image.kind))}
            style="max-width: 320px; max-height: 240px"
          />
          <figcaption>{imageName(image, triesOf(image.kind))}</figcaption>
        </figure>
      ))}
    </div>
  );
}

type ReviewCheck = CheckRow;
type ReviewMove = Pick<TimelineRow, 'to' | 'reason'>;

/** A check's own data from its details (the sealed check as JSON); empty when the role may not read it. */
function checkData(check: ReviewCheck | undefined): Record<string, unknown> {
  if (!check?.details) return {};
  const parsed = JSON.parse(check.details) as { data?: Record<string, unknown> };
  return parsed.data ?? {};
}

type EvidenceRow = { name: string; value: unknown; passed: boolean; detail?: string };

/** Every item of liveness evidence a check kept: a single selfie's, or a burst's passive and motion evidence. */
function livenessEvidence(data: Record<string, unknown>): EvidenceRow[] {
  const list = (v: unknown) => ((v as { evidence?: EvidenceRow[] } | undefined)?.evidence ?? []) as EvidenceRow[];
  return [...list(data), ...list(data.passive), ...list(data.burst)];
}

/** Why the session went to a person: the reason of its last move to IN_REVIEW, and each check that asked for it. */
function reviewReasons(checks: ReviewCheck[], timeline: ReviewMove[]): string[] {
  const move = [...timeline].reverse().find((t) => t.to === 'IN_REVIEW');
  const asked = checks.filter((c) => c.status === 'review').map((c) => c.type + ': ' + (c.reason ?? 'review'));
  return [...(move?.reason ? [move.reason] : []), ...asked];
}

/** Why a session was declined: the reason of its move to DECLINED, and each check that failed. */
function declineReasons(checks: ReviewCheck[], timeline: ReviewMove[]): string[] {
  const move = [...timeline].reverse().find((t) => t.to === 'DECLINED');
  const failed = checks.filter((c) => c.status === 'failed').map((c) => c.type + ': ' + (c.reason ?? 'failed'));
  return [...(move?.reason ? [move.reason] : []), ...failed.filter((reason) => reason !== move?.reason)];
}

/**
 * The heading and reasons the review panel opens with, by what happened: waiting for a person (why
 * in review), sent to a person and decided since (why it went to review), declined by the rules
 * (why declined); nothing for a session approved without review.
 */
function decisionReasons(
  status: string,
  checks: ReviewCheck[],
  timeline: ReviewMove[],
): { heading: string; reasons: string[] } | null {
  if (status === 'IN_REVIEW') return { heading: 'Why in review', reasons: reviewReasons(checks, timeline) };
  if (timeline.some((t) => t.to === 'IN_REVIEW'))
    return { heading: 'Why it went to review', reasons: reviewReasons(checks, timeline) };
  if (status === 'DECLINED') return { heading: 'Why declined', reasons: declineReasons(checks, timeline) };
  return null;
}

export function Details({ details }: { details: string }) {
  return (
    <dl class="details">
      {readableDetails(details).map(([name, value]) => (
        <div>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * What a reviewer decides on, beside the images: why the session is in review, the fields read
 * from the document, the face-match score and the liveness evidence, each from the session's checks.
 */
export function ReviewFacts({
  status,
  checks,
  timeline,
}: {
  status: string;
  checks: ReviewCheck[];
  timeline: ReviewMove[];
}) {
  const id = checks.find((c) => c.type === 'id_verification');
  const face = checks.find((c) => c.type === 'face_match');
  const live = checks.find((c) => c.type === 'liveness');
  const fields = (checkData(id).fields ?? {}) as Record<string, unknown>;
  const evidence = livenessEvidence(checkData(live));
  const challenge = checkData(live).challenge as { gesture: string; performed: boolean } | undefined;
  const seen = Object.entries(
    (checkData(live).burst as { gestures?: Record<string, boolean> } | undefined)?.gestures ?? {},
  )
    .filter(([, done]) => done)
    .map(([gesture]) => gesture);
  const decided = decisionReasons(status, checks, timeline);
  return (
    <div id="review-facts">
      {decided ? (
        <>
          <h3>{decided.heading}</h3>
          <p id="review-reason">{decided.reasons.length ? decided.reasons.join('; ') : '—'}</p>
        </>
      ) : null}
      <h3>Read fields</h3>
      {Object.keys(fields).length ? (
        <Table heads={['Field', 'Value']}>
          {Object.entries(fields).map(([k, v]) => (
            <tr>
              <th>{label(k)}</th>
              <td>{shown(v)}</td>
            </tr>
          ))}
        </Table>
      ) : (
        <p class="hint">{id ? 'No field read from the document.' : 'No document check.'}</p>
      )}
      <h3>Face match</h3>
      <p id="face-match">{face ? 'score ' + shown(face.score) + ' (' + face.status + ')' : 'No face-match check.'}</p>
      <h3>Liveness</h3>
      {live ? (
        <>
          <p id="liveness">{'live score ' + shown(live.score) + ' (' + live.status + ')'}</p>
          {challenge ? (
            <p id="liveness-challenge">
              {'gesture asked: ' + label(challenge.gesture) + (challenge.performed ? ', performed' : ', not performed')}
              {seen.length || !challenge.performed ? (
                <span class="hint">
                  {' (gestures seen in the burst: ' + (seen.map(label).join(', ') || 'none') + ')'}
                </span>
              ) : null}
            </p>
          ) : null}
          {evidence.length ? (
            <>
              <p class="hint">
                Measures of the burst against their own thresholds. A measure over its threshold is not a gesture
                performed: a gesture counts only as the main movement (a smile or a blink with the head held still, a
                turn that reaches the side asked).
              </p>
              <Table heads={['Measure', 'Value', 'Over its threshold', 'What it measures']}>
                {evidence.map((e) => (
                  <tr>
                    <td>{label(e.name)}</td>
                    <td>{typeof e.value === 'number' ? Number(e.value.toFixed(3)) : shown(e.value)}</td>
                    <td>{e.passed ? 'yes' : 'no'}</td>
                    <td class="hint">{e.detail ?? ''}</td>
                  </tr>
                ))}
              </Table>
            </>
          ) : null}
        </>
      ) : (
        <p class="hint" id="liveness">
          No liveness check.
        </p>
      )}
    </div>
  );
}

export function EraseDataButton({
  ctx,
  sessionId,
  report,
  after,
}: {
  ctx: Ctx;
  sessionId: string;
  report: (outcome: Outcome) => void;
  after: () => void;
}) {
  if (!can(ctx.me, 'admin')) return null;
  return (
    <ActionButton
      label="Erase data"
      variant="danger"
      report={report}
      work={async () => {
        if (!confirm("Erase this session's sealed data and images now? The decision stays.")) return 'Nothing erased';
        const data = await gql(QUERIES.eraseSessionData, { i: { projectId: ctx.projectId, sessionId } });
        setTimeout(after, 600);
        return (
          'Data of ' +
          data.eraseSessionData.sessionId +
          (data.eraseSessionData.alreadyErased ? ' was already erased' : ' erased')
        );
      }}
    />
  );
}

export function ResendButton({
  ctx,
  eventId,
  report,
}: {
  ctx: Ctx;
  eventId: string;
  report: (outcome: Outcome) => void;
}) {
  if (!can(ctx.me, 'admin')) return null;
  return (
    <ActionButton
      label="Resend"
      variant="secondary"
      report={report}
      work={async () => {
        const data = await gql(QUERIES.resendWebhookEvent, { i: { projectId: ctx.projectId, eventId } });
        return 'Event ' + data.resendWebhookEvent.id + ' queued again (' + data.resendWebhookEvent.state + ')';
      }}
    />
  );
}
