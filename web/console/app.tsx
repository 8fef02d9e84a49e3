// The admin console (Preact): sign in with an admin token, then one view per hash route. Every
// list is a server-side page of the GraphQL admin API; the statuses, features and roles offered
// come from core (src/core/vocabulary.ts).
import { type ComponentChildren, Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ADMIN_ROLES, APPROVAL_RULE, MEMBER_STATUSES, SESSION_STATUSES, WEBHOOK_EVENT_STATES, WORKFLOW_FEATURES } from '../../src/core/vocabulary.js';
import { Button, Card, Pager, Pill, Table } from '../components/index.js';
import { errorText, gql, PROJECT_KEY, TOKEN_KEY, whenUnauthenticated } from './api.js';
import type { DestinationHealth } from '../../src/core/webhooks/health-view.js';
import { label, readableDetails, shown } from './details.js';
import { QUERIES } from './queries.js';

type Role = (typeof ADMIN_ROLES)[number];
type SessionStatus = (typeof SESSION_STATUSES)[number];
interface Connection<T> {
  edges: { node: T }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}
interface Me {
  tokenId: string;
  role: Role;
  projectId: string | null;
}
interface Project {
  id: string;
  name: string;
  balance: number;
  currency: string;
}
interface Organization {
  id: number;
  name: string;
}
interface SessionRow {
  id: string;
  status: SessionStatus;
  /** False for a session made with a test key (vk_test_): never charged, forced outcomes allowed. */
  livemode: boolean;
  vendorData: string | null;
  svcId: string | null;
  decision: string | null;
  createdAt: string;
  decidedAt: string | null;
  workflow: { name: string } | null;
}
interface Attempt {
  attempt: number;
  at: string;
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
}
interface WebhookEventRow {
  id: string;
  type: string;
  state: string;
  url: string | null;
  attemptCount: number;
  createdAt: string;
  sessionId: string;
  attempts: Attempt[];
}
interface Member {
  memberId: string;
  email: string;
  firstName: string;
  lastName: string;
  role: string;
  status: string;
  createdAt: string;
}
/** A destination's health as core computes it (src/core/webhooks/health.ts). */
type Health = DestinationHealth;
interface WebhookStats {
  events: number;
  delivered: number;
  failed: number;
  backlog: number;
  oldestPendingAt: string | null;
  successRate: number | null;
}

/** Who is signed in and what they see; every view gets it. */
interface Ctx {
  me: Me;
  projects: Project[];
  organizations: Organization[];
  projectId: string;
}
type Outcome = { kind: 'error' | 'ok'; text: string } | null;

// Chart colours per status (pills use the design system's tones).
const COLORS: Record<SessionStatus, string> = { NOT_STARTED: '#b9c3d4', IN_PROGRESS: '#6f9cf2', IN_REVIEW: '#f2c14e', APPROVED: '#2e9e6a', DECLINED: '#d0443a', EXPIRED: '#8a94a6', ABANDONED: '#5a6577' };
const VIEWS = [
  ['dashboard', 'Dashboard'],
  ['sessions', 'Sessions'],
  ['review', 'Review queue'],
  ['webhooks', 'Webhooks'],
  ['roster', 'Roster'],
  ['billing', 'Billing'],
  ['keys', 'Keys & workflows'],
  ['audit', 'Audit'],
] as const;

const when = (iso: string | null | undefined) => (iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 19) : '');
const pct = (v: number | null) => (v === null ? '—' : (v * 100).toFixed(1) + '%');
const secs = (v: number | null) => (v === null ? '—' : v < 120 ? v.toFixed(0) + ' s' : (v / 60).toFixed(1) + ' min');
const can = (me: Me, role: Role) => ADMIN_ROLES.indexOf(me.role) >= ADMIN_ROLES.indexOf(role);
const options = (values: readonly string[], any: string) => [<option value="">{any}</option>, ...values.map((value) => <option value={value}>{value}</option>)];
const inputValue = (event: Event) => (event.target as HTMLInputElement).value;

/** The result of the last action: an alert or a status line. */
function Out({ outcome }: { outcome: Outcome }) {
  if (!outcome) return <div />;
  return (
    <div>
      <div class={outcome.kind} role={outcome.kind === 'error' ? 'alert' : 'status'}>
        {outcome.text}
      </div>
    </div>
  );
}

/** A button that runs `work` (disabled meanwhile) and reports its text, or its error, through `report`. */
function ActionButton({
  label,
  variant,
  disabled,
  describedBy,
  work,
  report,
}: {
  label: string;
  variant?: 'primary' | 'secondary' | 'danger';
  disabled?: boolean;
  describedBy?: string;
  work: () => Promise<string>;
  report: (outcome: Outcome) => void;
}) {
  const [busy, setBusy] = useState(false);
  const run = async (event: Event) => {
    event.preventDefault();
    event.stopPropagation();
    setBusy(true);
    try {
      report({ kind: 'ok', text: await work() });
    } catch (error) {
      report({ kind: 'error', text: errorText(error) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button variant={variant} disabled={disabled || busy} aria-describedby={describedBy} onClick={run}>
      {label}
    </Button>
  );
}

/** Loads once per change of `deps`; the view shows "Loading…" until then and the error if it fails. */
function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | null; error: string | null; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setError(null);
    load().then(
      (value) => current && setData(value),
      (failure) => current && setError(errorText(failure)),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  return { data, error, reload: () => setRound((n) => n + 1) };
}

function Loading({ error }: { error: string | null }) {
  return error ? (
    <div>
      <div class="error" role="alert">
        {error}
      </div>
    </div>
  ) : (
    <p class="hint">Loading…</p>
  );
}

/**
 * A server-side paged list: `load(after)` gives a connection; a change of `version` goes back to
 * page 1, a change of `refresh` reads the page shown again (a queue others work on). `rowKey` keeps
 * each row's own state (a note being typed) on its row when rows above it go away.
 */
function PagedList<T>({
  heads,
  load,
  row,
  version,
  refresh,
  rowKey,
}: {
  heads: string[];
  load: (after: string | null) => Promise<Connection<T>>;
  row: (node: T) => ComponentChildren;
  version: unknown;
  refresh?: unknown;
  rowKey?: (node: T) => string;
}) {
  const [stack, setStack] = useState<(string | null)[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [page, setPage] = useState<Connection<T> | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setStack([]);
    setCursor(null);
  }, [version]);
  useEffect(() => {
    load(cursor).then(
      (connection) => {
        setPage(connection);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  }, [cursor, version, refresh]);
  if (!page) return <Loading error={error} />;
  return (
    <div>
      {error ? (
        <div class="error" role="alert">
          {error}
        </div>
      ) : null}
      <Table heads={heads}>
        {page.edges.length ? (
          page.edges.map((edge, i) => <Fragment key={rowKey ? rowKey(edge.node) : i}>{row(edge.node)}</Fragment>)
        ) : (
          <tr>
            <td colSpan={heads.length} class="hint">
              Nothing here.
            </td>
          </tr>
        )}
      </Table>
      <Pager
        page={stack.length + 1}
        hasPrevious={stack.length > 0}
        hasNext={page.pageInfo.hasNextPage}
        onPrevious={() => {
          setCursor(stack.at(-1) ?? null);
          setStack(stack.slice(0, -1));
        }}
        onNext={() => {
          setStack([...stack, cursor]);
          setCursor(page.pageInfo.endCursor);
        }}
      />
    </div>
  );
}

// ---------- sessions and reviews ----------

/** Marks a session made with a test key, so sandbox traffic is never mistaken for a real person's. */
function TestBadge({ livemode }: { livemode: boolean }) {
  return livemode ? null : (
    <span class="pill pill--wait test-badge" title="Made with a test API key (vk_test_): not charged, outcomes may be forced">
      Test
    </span>
  );
}

function SessionRowView({ session, extra }: { session: SessionRow; extra?: ComponentChildren }) {
  return (
    <tr
      class="link"
      onClick={() => {
        location.hash = '#/session/' + encodeURIComponent(session.id);
      }}
    >
      <td>
        {session.id} <TestBadge livemode={session.livemode} />
      </td>
      <td>
        <Pill value={session.status} />
      </td>
      <td>{session.workflow?.name ?? ''}</td>
      <td>{session.vendorData ?? ''}</td>
      <td>{when(session.createdAt)}</td>
      {extra ? <td>{extra}</td> : null}
    </tr>
  );
}

/** What an approval would lack, in words (the checks of core's approval rule, from the session's approvalBlockers). */
const MISSING_FOR_APPROVAL: Record<string, string> = { id_verification: 'a read document', liveness: 'a passed liveness check', face_match: 'a passed face match' };
const blockedWords = (blockers: string[]) => 'Approval needs ' + blockers.map((b) => MISSING_FOR_APPROVAL[b] ?? b).join(', ') + ', which this session lacks: decline it, or ask the person to verify again.';

/**
 * Approve and Decline with the required note. Approve is disabled, with the reason beside it, where
 * core's approval rule would refuse it (`blockers`); the rule allows no override, so none is offered.
 */
function ReviewButtons({ ctx, sessionId, blockers, report, after }: { ctx: Ctx; sessionId: string; blockers: string[]; report: (outcome: Outcome) => void; after?: () => void }) {
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
      <input name="note" aria-label={'Review note for ' + sessionId} placeholder="Note (required)" value={note} onInput={(e) => setNote(inputValue(e))} onClick={(e) => e.stopPropagation()} />
      <ActionButton label="Approve" disabled={blockers.length > 0} describedBy={blockers.length ? why : undefined} work={decide('APPROVED')} report={report} />
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
/** An image's name: its kind, and its try when its step was tried more than once (the timeline says why each try was refused). */
const imageName = (image: { kind: string; attempt: number }, tries: number) => image.kind.replace('_', ' ') + (tries > 1 ? ', try ' + image.attempt : '');

function EvidenceImages({ ctx, sessionId }: { ctx: Ctx; sessionId: string }) {
  const images = useLoad<{ id: string; kind: string; attempt: number; dataUrl: string }[]>(
    async () => (await gql(QUERIES.sessionEvidence, { p: ctx.projectId, s: sessionId })).sessionEvidence,
    [ctx.projectId, sessionId],
  );
  if (!images.data) return <Loading error={images.error} />;
  const triesOf = (kind: string) => Math.max(...images.data!.filter((image) => image.kind === kind).map((image) => image.attempt));
  return (
    <div class="row" id="evidence">
      {images.data.map((image) => (
        <figure data-attempt={image.attempt}>
          <img src={image.dataUrl} alt={imageName(image, triesOf(image.kind))} style="max-width: 320px; max-height: 240px" />
          <figcaption>{imageName(image, triesOf(image.kind))}</figcaption>
        </figure>
      ))}
    </div>
  );
}

type ReviewCheck = { type: string; status: string; score: number | null; reason: string | null; details?: string | null };
type ReviewMove = { to: string; reason: string | null };

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
function decisionReasons(status: string, checks: ReviewCheck[], timeline: ReviewMove[]): { heading: string; reasons: string[] } | null {
  if (status === 'IN_REVIEW') return { heading: 'Why in review', reasons: reviewReasons(checks, timeline) };
  if (timeline.some((t) => t.to === 'IN_REVIEW')) return { heading: 'Why it went to review', reasons: reviewReasons(checks, timeline) };
  if (status === 'DECLINED') return { heading: 'Why declined', reasons: declineReasons(checks, timeline) };
  return null;
}

function Details({ details }: { details: string }) {
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
function ReviewFacts({ status, checks, timeline }: { status: string; checks: ReviewCheck[]; timeline: ReviewMove[] }) {
  const id = checks.find((c) => c.type === 'id_verification');
  const face = checks.find((c) => c.type === 'face_match');
  const live = checks.find((c) => c.type === 'liveness');
  const fields = (checkData(id).fields ?? {}) as Record<string, unknown>;
  const evidence = livenessEvidence(checkData(live));
  const challenge = checkData(live).challenge as { gesture: string; performed: boolean } | undefined;
  const seen = Object.entries((checkData(live).burst as { gestures?: Record<string, boolean> } | undefined)?.gestures ?? {})
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
              {seen.length || !challenge.performed ? <span class="hint">{' (gestures seen in the burst: ' + (seen.map(label).join(', ') || 'none') + ')'}</span> : null}
            </p>
          ) : null}
          {evidence.length ? (
            <>
              <p class="hint">
                Measures of the burst against their own thresholds. A measure over its threshold is not a gesture performed: a gesture counts only as the main movement (a smile or a blink with the head held still, a turn
                that reaches the side asked).
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

function EraseDataButton({ ctx, sessionId, report, after }: { ctx: Ctx; sessionId: string; report: (outcome: Outcome) => void; after: () => void }) {
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
        return 'Data of ' + data.eraseSessionData.sessionId + (data.eraseSessionData.alreadyErased ? ' was already erased' : ' erased');
      }}
    />
  );
}

function ResendButton({ ctx, eventId, report }: { ctx: Ctx; eventId: string; report: (outcome: Outcome) => void }) {
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

const EMPTY_FILTER = { status: '', workflowId: '', vendorData: '', svcId: '', decision: '', createdFrom: '', createdTo: '' };

function SessionsView({ ctx }: { ctx: Ctx }) {
  const workflows = useLoad<{ id: string; name: string }[]>(async () => (await gql(QUERIES.workflowNames, { p: ctx.projectId })).workflows, [ctx.projectId]);
  const [form, setForm] = useState(EMPTY_FILTER);
  const [sort, setSort] = useState('CREATED_AT_DESC');
  const [applied, setApplied] = useState({ filter: EMPTY_FILTER, sort: 'CREATED_AT_DESC', round: 0 });
  const field = (name: keyof typeof EMPTY_FILTER) => ({ name, value: form[name], onInput: (e: Event) => setForm({ ...form, [name]: inputValue(e) }), onChange: (e: Event) => setForm({ ...form, [name]: inputValue(e) }) });
  const filter = () =>
    Object.fromEntries(
      Object.entries(applied.filter)
        .filter(([, value]) => value)
        .map(([key, value]) => [key, key.startsWith('created') ? value + 'T00:00:00Z' : value.trim()]),
    );
  if (!workflows.data) return <Loading error={workflows.error} />;
  return (
    <Card>
      <h1>Sessions</h1>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied({ filter: form, sort, round: applied.round + 1 });
        }}
      >
        <label>
          Status<select {...field('status')}>{options(SESSION_STATUSES, 'any')}</select>
        </label>
        <label>
          Workflow
          <select {...field('workflowId')}>
            <option value="">any</option>
            {workflows.data.map((w) => (
              <option value={w.id}>{w.name}</option>
            ))}
          </select>
        </label>
        <label>
          Vendor data
          <input {...field('vendorData')} placeholder="exact" />
        </label>
        <label>
          svc_id
          <input {...field('svcId')} placeholder="svc_…" />
        </label>
        <label>
          Decision<select {...field('decision')}>{options(['APPROVED', 'DECLINED', 'EXPIRED', 'ABANDONED'] satisfies SessionStatus[], 'any')}</select>
        </label>
        <label>
          Created from
          <input type="date" {...field('createdFrom')} />
        </label>
        <label>
          Created before
          <input type="date" {...field('createdTo')} />
        </label>
        <label>
          Sort
          <select name="sort" value={sort} onChange={(e) => setSort(inputValue(e))}>
            <option value="CREATED_AT_DESC">newest first</option>
            <option value="CREATED_AT_ASC">oldest first</option>
          </select>
        </label>
        <Button type="submit">Search</Button>
      </form>
      <PagedList<SessionRow>
        heads={['Session', 'Status', 'Workflow', 'Vendor data', 'Created']}
        version={`${ctx.projectId}/${applied.round}`}
        load={async (after) => (await gql(QUERIES.sessions, { p: ctx.projectId, f: filter(), s: applied.sort, a: after })).sessions}
        row={(s) => <SessionRowView session={s} />}
      />
    </Card>
  );
}

function SessionView({ ctx, sessionId }: { ctx: Ctx; sessionId: string }) {
  const [outcome, report] = useState<Outcome>(null);
  const reviewer = can(ctx.me, 'reviewer');
  const loaded = useLoad(async () => (await gql(reviewer ? QUERIES.sessionWithDetails : QUERIES.session, { p: ctx.projectId, s: sessionId })).session, [ctx.projectId, sessionId]);
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
  type CheckRow = { type: string; status: string; score: number | null; reason: string | null; details?: string | null };
  type TimelineRow = { from: string | null; to: string; actor: string; reason: string | null; at: string };
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
            <ReviewButtons ctx={ctx} sessionId={s.id} blockers={s.approvalBlockers} report={report} after={loaded.reload} />
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
          {s.checks.map((c: CheckRow) => (
            <tr>
              <td>{c.type}</td>
              <td>
                <Pill value={c.status} />
              </td>
              <td>{c.score ?? ''}</td>
              <td>{c.reason ?? ''}</td>
              <td>{c.details ? <Details details={c.details} /> : <span class="hint">{reviewer ? '' : 'reviewer role needed'}</span>}</td>
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
            {s.imagesRetained ? 'Images are kept for this session: reviewer role needed to see them.' : "Images: none (never taken, past the project's retention, or erased)."}
          </p>
        )}
      </Card>
      <Card>
        <h2>Timeline</h2>
        <Table heads={['At', 'From', 'To', 'By', 'Why']}>
          {s.timeline.map((t: TimelineRow) => (
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
          s.webhookEvents.map((e: WebhookEventRow) => (
            <div>
              <p>
                <b>{e.type}</b> <Pill value={e.state} /> → {e.url || 'no destination'} <ResendButton ctx={ctx} eventId={e.id} report={report} />
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

/** How often a review queue, or a session waiting for review, is read again: other reviewers decide too. */
const REVIEW_POLL_MS = 5000;

/** Sessions waiting for a person, oldest first: read again after each decision here and every few seconds (others decide too). */
function ReviewView({ ctx }: { ctx: Ctx }) {
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
      <p class="hint">Sessions in IN_REVIEW, oldest first, kept up to date. Core's rule: {APPROVAL_RULE} (409 otherwise).</p>
      <Out outcome={outcome} />
      <PagedList<SessionRow & { approvalBlockers: string[] }>
        heads={['Session', 'Status', 'Workflow', 'Vendor data', 'Created', 'Decide']}
        version={ctx.projectId}
        refresh={round}
        rowKey={(s) => s.id}
        load={async (after) => (await gql(QUERIES.reviewQueue, { p: ctx.projectId, a: after })).reviewQueue}
        row={(s) => <SessionRowView session={s} extra={<ReviewButtons ctx={ctx} sessionId={s.id} blockers={s.approvalBlockers} report={report} after={refresh} />} />}
      />
    </Card>
  );
}

/** Sensitive reads (identity data, every review image served), newest first: admins only. */
function AuditView({ ctx }: { ctx: Ctx }) {
  if (!can(ctx.me, 'admin'))
    return (
      <Card>
        <p class="hint">admin role needed to read the audit</p>
      </Card>
    );
  type AuditRow = { tokenId: string; action: string; target: string; at: string };
  return (
    <Card>
      <h1>Audit</h1>
      <p class="hint">Each identity read and each review image served, with the admin token that did it. Decisions and their notes are in each session's timeline.</p>
      <PagedList<AuditRow>
        heads={['At', 'Token', 'Action', 'Target']}
        version={ctx.projectId}
        load={async (after) => (await gql(QUERIES.adminAudit, { p: ctx.projectId, a: after })).adminAudit}
        row={(r) => (
          <tr>
            <td>{when(r.at)}</td>
            <td>{r.tokenId}</td>
            <td>{r.action}</td>
            <td>{r.target}</td>
          </tr>
        )}
      />
    </Card>
  );
}

// ---------- webhooks and roster ----------

function WebhooksView({ ctx }: { ctx: Ctx }) {
  const [outcome, report] = useState<Outcome>(null);
  const [state, setState] = useState('');
  return (
    <Card>
      <h1>Webhook deliveries</h1>
      <form class="row">
        <label>
          State
          <select name="state" aria-label="State" value={state} onChange={(e) => setState(inputValue(e))}>
            {options(WEBHOOK_EVENT_STATES, 'any state')}
          </select>
        </label>
      </form>
      <Out outcome={outcome} />
      <PagedList<WebhookEventRow>
        heads={['Event', 'Session', 'Destination', 'Type', 'State', 'Attempts', 'Last answer', 'Created', '']}
        version={`${ctx.projectId}/${state}`}
        load={async (after) => (await gql(QUERIES.webhookEvents, { p: ctx.projectId, st: state || null, a: after })).webhookEvents}
        row={(e) => {
          const last = e.attempts.at(-1);
          return (
            <tr>
              <td>{e.id}</td>
              <td>
                <a href={'#/session/' + encodeURIComponent(e.sessionId)}>{e.sessionId}</a>
              </td>
              <td class="destination">{e.url ?? <span class="hint">no destination</span>}</td>
              <td>{e.type}</td>
              <td>
                <Pill value={e.state} />
              </td>
              <td>{e.attemptCount}</td>
              <td>{last ? (last.httpStatus === null ? last.error || 'no answer' : 'HTTP ' + last.httpStatus) : ''}</td>
              <td>{when(e.createdAt)}</td>
              <td>
                <ResendButton ctx={ctx} eventId={e.id} report={report} />
              </td>
            </tr>
          );
        }}
      />
    </Card>
  );
}

function RosterView({ ctx }: { ctx: Ctx }) {
  const [organizationId, setOrganizationId] = useState(ctx.organizations[0]?.id ?? null);
  const [status, setStatus] = useState('');
  const [outcome, report] = useState<Outcome>(null);
  const [round, setRound] = useState(0);
  const [invite, setInvite] = useState({ email: '', firstName: '', lastName: '', notify: false });
  const admin = can(ctx.me, 'admin');
  if (organizationId === null)
    return (
      <Card>
        <h1>Roster</h1>
        <p class="hint">No organization is visible to this token.</p>
      </Card>
    );
  const memberAction = (name: 'reactivateMember' | 'deactivateMember', label: string, memberId: string) =>
    admin ? (
      <ActionButton
        label={label}
        variant="secondary"
        report={report}
        work={async () => {
          const data = await gql(QUERIES[name], { i: { organizationId, memberId } });
          setRound((n) => n + 1);
          return data[name].email + ' is now ' + data[name].status;
        }}
      />
    ) : null;
  const sendInvite = async (event: Event) => {
    event.preventDefault();
    try {
      const data = await gql(QUERIES.inviteMembers, {
        i: {
          organizationId,
          members: [{ email: invite.email.trim(), firstName: invite.firstName.trim() || null, lastName: invite.lastName.trim() || null }],
          notify: invite.notify,
          invite: invite.notify ? 'email' : 'face',
        },
      });
      const result: { created: { member: { email: string }; activationLink: string | null }[]; skipped: { email: string; reason: string }[] } = data.inviteMembers;
      const made = result.created[0];
      report({
        kind: 'ok',
        text: made ? 'Invited ' + made.member.email + (made.activationLink ? ': activation link ' + made.activationLink : ' (emailed)') : 'Not invited: ' + result.skipped.map((s) => s.email + ' ' + s.reason).join(', '),
      });
      setInvite({ email: '', firstName: '', lastName: '', notify: false });
      setRound((n) => n + 1);
    } catch (error) {
      report({ kind: 'error', text: errorText(error) });
    }
  };
  const text = (name: 'email' | 'firstName' | 'lastName') => ({ name, value: invite[name], onInput: (e: Event) => setInvite({ ...invite, [name]: inputValue(e) }) });
  return (
    <Card>
      <h1>Roster</h1>
      <form class="row">
        <label>
          Organization
          <select aria-label="Organization" value={String(organizationId)} onChange={(e) => setOrganizationId(Number(inputValue(e)))}>
            {ctx.organizations.map((o) => (
              <option value={String(o.id)}>{o.name + ' (#' + o.id + ')'}</option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select aria-label="Member status" value={status} onChange={(e) => setStatus(inputValue(e))}>
            {options(MEMBER_STATUSES, 'any status')}
          </select>
        </label>
      </form>
      <h2>Invite a member</h2>
      <form class="row" onSubmit={sendInvite}>
        <label>
          Email
          <input type="email" required placeholder="person@example.com" {...text('email')} />
        </label>
        <label>
          First name
          <input placeholder="First name" {...text('firstName')} />
        </label>
        <label>
          Last name
          <input placeholder="Last name" {...text('lastName')} />
        </label>
        <label>
          Email the link
          <input type="checkbox" name="notify" checked={invite.notify} onChange={(e) => setInvite({ ...invite, notify: (e.target as HTMLInputElement).checked })} />
        </label>
        <Button type="submit" disabled={!admin}>
          Invite
        </Button>
      </form>
      <Out outcome={outcome} />
      <h2>Members</h2>
      <PagedList<Member>
        heads={['Member', 'Email', 'Name', 'Role', 'Status', 'Since', '']}
        version={`${organizationId}/${status}/${round}`}
        load={async (after) => (await gql(QUERIES.members, { o: organizationId, st: status || null, a: after })).members}
        row={(m) => (
          <tr>
            <td>{m.memberId}</td>
            <td>{m.email}</td>
            <td>{(m.firstName + ' ' + m.lastName).trim()}</td>
            <td>{m.role}</td>
            <td>
              <Pill value={m.status} />
            </td>
            <td>{when(m.createdAt)}</td>
            <td>{m.status === 'deactivated' ? memberAction('reactivateMember', 'Reactivate', m.memberId) : memberAction('deactivateMember', 'Deactivate', m.memberId)}</td>
          </tr>
        )}
      />
    </Card>
  );
}

// ---------- billing, keys and workflows ----------

function BillingView({ ctx }: { ctx: Ctx }) {
  const loaded = useLoad(async () => {
    const wallet = await gql(QUERIES.billing, { p: ctx.projectId });
    const organizations = [];
    for (const org of ctx.organizations) organizations.push({ org, billing: (await gql(QUERIES.organizationBilling, { o: org.id })).organizationBilling });
    return { wallet, organizations };
  }, [ctx.projectId]);
  if (!loaded.data) return <Loading error={loaded.error} />;
  const { wallet, organizations } = loaded.data;
  const project = ctx.projects.find((p) => p.id === ctx.projectId);
  type Charge = { item: string; amount: number; currency: string; refunded: boolean; createdAt: string };
  type Invoice = { period: string; seats: number; amount: number };
  return (
    <>
      <Card>
        <h1>Billing</h1>
        <p>
          Wallet of {project ? project.name : ctx.projectId}: <span class="big">{wallet.project.balance.toFixed(2) + ' ' + wallet.project.currency}</span>
        </p>
        <h2>Latest charges</h2>
        <Table heads={['When', 'Item', 'Amount', '']}>
          {wallet.charges.map((c: Charge) => (
            <tr>
              <td>{when(c.createdAt)}</td>
              <td>{c.item}</td>
              <td>{c.amount.toFixed(2) + ' ' + c.currency}</td>
              <td>{c.refunded ? <Pill value="refunded" /> : ''}</td>
            </tr>
          ))}
        </Table>
      </Card>
      {organizations.map(({ org, billing: b }) => (
        <Card>
          <h2>Roster billing: {org.name}</h2>
          <p>
            {b.subscription ? 'Plan ' + b.subscription.plan + ' (' + b.subscription.status + '), ' + b.subscription.pricePerSeat + ' ' + b.currency + ' per seat' : 'No plan'}
            {' · seats ' + b.seats + ' · next charge ' + b.estimatedNextCharge + ' ' + b.currency + ' · owed ' + b.balance + ' ' + b.currency}
          </p>
          <Table heads={['Period', 'Seats', 'Amount']}>
            {b.invoices.map((i: Invoice) => (
              <tr>
                <td>{i.period}</td>
                <td>{i.seats}</td>
                <td>{i.amount + ' ' + b.currency}</td>
              </tr>
            ))}
          </Table>
        </Card>
      ))}
    </>
  );
}

function KeysView({ ctx }: { ctx: Ctx }) {
  const [outcome, report] = useState<Outcome>(null);
  const [keyName, setKeyName] = useState('');
  const [keyMode, setKeyMode] = useState<'live' | 'test'>('live');
  const [workflowName, setWorkflowName] = useState('');
  const [features, setFeatures] = useState<string[]>([]);
  const [retention, setRetention] = useState<string | null>(null);
  const loaded = useLoad(() => gql(QUERIES.keys, { p: ctx.projectId }), [ctx.projectId]);
  if (!loaded.data) return <Loading error={loaded.error} />;
  const data = loaded.data;
  type Key = { id: string; name: string; prefix: string; mode: 'live' | 'test'; createdAt: string; revokedAt: string | null };
  type Workflow = { id: string; name: string; features: string[]; createdAt: string };
  type Destination = { url: string; mode: string; active: boolean };
  const admin = can(ctx.me, 'admin');
  const later = () => setTimeout(loaded.reload, 800);
  return (
    <>
      <Out outcome={outcome} />
      <Card>
        <h2>Review images</h2>
        <p class="hint">Document images and the selfie frame are kept sealed while a session is open or in review, then for this many days after the decision (0: deleted at the decision).</p>
        <form class="row" onSubmit={(e) => e.preventDefault()}>
          <label>
            Days kept after the decision
            <input name="retention" type="number" min="0" max="3650" disabled={!admin} value={retention ?? String(data.project.evidenceRetentionDays)} onInput={(e) => setRetention(inputValue(e))} />
          </label>
          {admin ? (
            <ActionButton
              label="Save retention"
              report={report}
              work={async () => {
                const saved = await gql(QUERIES.setEvidenceRetention, { i: { projectId: ctx.projectId, days: Number(retention ?? data.project.evidenceRetentionDays) } });
                return 'Review images are kept ' + saved.setEvidenceRetention.evidenceRetentionDays + ' days after the decision';
              }}
            />
          ) : null}
        </form>
      </Card>
      <Card>
        <h1>API keys</h1>
        <p class="hint">Secrets are shown once, at creation; the list never holds them.</p>
        <Table heads={['Prefix', 'Name', 'Mode', 'Created', 'Revoked', '']}>
          {data.apiKeys.map((k: Key) => (
            <tr>
              <td>{k.prefix}…</td>
              <td>{k.name}</td>
              <td>{k.mode}</td>
              <td>{when(k.createdAt)}</td>
              <td>{when(k.revokedAt)}</td>
              <td>
                {admin && !k.revokedAt ? (
                  <ActionButton
                    label="Revoke"
                    variant="danger"
                    report={report}
                    work={async () => {
                      await gql(QUERIES.revokeApiKey, { i: { projectId: ctx.projectId, apiKeyId: k.id } });
                      later();
                      return 'Key ' + k.prefix + '… revoked';
                    }}
                  />
                ) : null}
              </td>
            </tr>
          ))}
        </Table>
        <form class="row">
          <input placeholder="Key name" aria-label="Key name" value={keyName} onInput={(e) => setKeyName(inputValue(e))} />
          <label>
            Mode
            <select name="keyMode" aria-label="Key mode" value={keyMode} onChange={(e) => setKeyMode((e.target as HTMLSelectElement).value as 'live' | 'test')}>
              <option value="live">live (charged, real sessions)</option>
              <option value="test">test (vk_test_, never charged)</option>
            </select>
          </label>
          <ActionButton
            label="Create API key"
            disabled={!admin}
            report={report}
            work={async () => {
              const made = (await gql(QUERIES.createApiKey, { i: { projectId: ctx.projectId, name: keyName.trim() || null, mode: keyMode } })).createApiKey;
              later();
              return 'New ' + keyMode + ' key (shown once, copy it now): ' + made.key;
            }}
          />
        </form>
      </Card>
      <Card>
        <h2>Workflows</h2>
        <Table heads={['Id', 'Name', 'Features', 'Created']}>
          {data.workflows.map((w: Workflow) => (
            <tr>
              <td>{w.id}</td>
              <td>{w.name}</td>
              <td>{w.features.join(', ')}</td>
              <td>{when(w.createdAt)}</td>
            </tr>
          ))}
        </Table>
        <form class="row">
          <input placeholder="Workflow name" aria-label="Workflow name" value={workflowName} onInput={(e) => setWorkflowName(inputValue(e))} />
          {WORKFLOW_FEATURES.map((feature) => (
            <label>
              {feature}
              <input
                type="checkbox"
                value={feature}
                checked={features.includes(feature)}
                onChange={(e) => setFeatures((e.target as HTMLInputElement).checked ? [...features, feature] : features.filter((f) => f !== feature))}
              />
            </label>
          ))}
          <ActionButton
            label="Create workflow"
            disabled={!admin}
            report={report}
            work={async () => {
              const wf = (await gql(QUERIES.createWorkflow, { i: { projectId: ctx.projectId, name: workflowName.trim(), features } })).createWorkflow;
              later();
              return 'Workflow ' + wf.name + ' created: ' + wf.id;
            }}
          />
        </form>
      </Card>
      <Card>
        <h2>Callback destinations</h2>
        <Table heads={['URL', 'Mode', 'Active', '']}>
          {data.callbackDestinations.map((d: Destination) => (
            <tr>
              <td>{d.url}</td>
              <td>{d.mode}</td>
              <td>
                <Pill value={d.active ? 'active' : 'disabled'} />
              </td>
              <td>
                {admin ? (
                  <ActionButton
                    label={d.active ? 'Disable' : 'Enable'}
                    variant="secondary"
                    report={report}
                    work={async () => {
                      await gql(QUERIES.setCallbackActive, { i: { projectId: ctx.projectId, url: d.url, mode: d.mode, active: !d.active } });
                      later();
                      return d.url + ' (' + d.mode + ')' + (d.active ? ' disabled' : ' enabled');
                    }}
                  />
                ) : null}
              </td>
            </tr>
          ))}
        </Table>
      </Card>
    </>
  );
}

// ---------- dashboard ----------

function BarChart({ items, label, format }: { items: { label: string; value: number; color: string }[]; label: string; format?: (value: number) => string }) {
  if (!items.length) return <p class="hint">No data in this range.</p>;
  const [width, barH, gap, labelW] = [560, 22, 6, 190];
  const max = Math.max(1, ...items.map((i) => i.value));
  return (
    <svg width="100%" viewBox={`0 0 ${width} ${Math.max(30, items.length * (barH + gap))}`} role="img" aria-label={label}>
      {items.map((item, index) => {
        const y = index * (barH + gap);
        const w = ((width - labelW - 60) * item.value) / max;
        return (
          <g>
            <text x={0} y={y + 15} font-size={12}>
              {item.label}
            </text>
            <rect x={labelW} y={y} width={Math.max(1, w)} height={barH} fill={item.color} rx={3} />
            <text x={labelW + w + 6} y={y + 15} font-size={12}>
              {format ? format(item.value) : item.value}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

function StackedDays({ rows }: { rows: { day: string; status: SessionStatus; count: number }[] }) {
  const days = [...new Set(rows.map((r) => r.day))];
  if (!days.length) return <p class="hint">No sessions in this range.</p>;
  const max = Math.max(1, ...days.map((d) => rows.filter((r) => r.day === d).reduce((sum, r) => sum + r.count, 0)));
  const [width, height] = [620, 180];
  const slot = (width - 40) / days.length;
  return (
    <div>
      <svg width="100%" viewBox={`0 0 ${width} ${height + 40}`} role="img" aria-label="Sessions per day by status">
        {days.map((day, i) => {
          let y = height;
          return (
            <g>
              {SESSION_STATUSES.map((status) => {
                const row = rows.find((r) => r.day === day && r.status === status);
                if (!row) return null;
                const barHeight = (height * row.count) / max;
                y -= barHeight;
                return (
                  <rect x={40 + i * slot + 2} y={y} width={Math.max(2, slot - 4)} height={barHeight} fill={COLORS[status]}>
                    <title>{day + ' ' + status + ': ' + row.count}</title>
                  </rect>
                );
              })}
              {days.length <= 14 || i % Math.ceil(days.length / 10) === 0 ? (
                <text x={40 + i * slot} y={height + 14} font-size={10}>
                  {day.slice(5)}
                </text>
              ) : null}
            </g>
          );
        })}
        <text x={0} y={12} font-size={10}>
          {String(max)}
        </text>
      </svg>
      <p>
        {SESSION_STATUSES.map((s) => (
          <span class="legend-item">
            <svg width={10} height={10} aria-hidden="true">
              <rect width={10} height={10} fill={COLORS[s]} rx={2} />
            </svg>{' '}
            <span class="pill">{s}</span>
          </span>
        ))}
      </p>
    </div>
  );
}

/** The webhook headline: how receivers answer now (attempts of the last hour), unhealthy destinations first; the 30-day event figures below. */
function WebhookCard({ health, w }: { health: Health[]; w: WebhookStats }) {
  const weighted = (attempts: 'attemptsLastHour' | 'attemptsLastDay', rate: 'successRateLastHour' | 'successRateLastDay') => health.reduce((sum, d) => sum + d[attempts] * (d[rate] ?? 0), 0);
  const hourAttempts = health.reduce((sum, d) => sum + d.attemptsLastHour, 0);
  const dayAttempts = health.reduce((sum, d) => sum + d.attemptsLastDay, 0);
  const hourRate = hourAttempts ? weighted('attemptsLastHour', 'successRateLastHour') / hourAttempts : null;
  const dayRate = dayAttempts ? weighted('attemptsLastDay', 'successRateLastDay') / dayAttempts : null;
  const sick = health.filter((d) => !d.healthy);
  const last = (d: Health) => (d.lastStatus !== null ? 'last answer ' + d.lastStatus : d.lastError ? 'last error: ' + d.lastError : 'no attempt yet');
  return (
    <Card id="webhook-health">
      <h2>Webhooks</h2>
      {sick.length ? (
        <div class="unhealthy">
          <p>
            <b class="headline">{sick.length + ' unhealthy destination' + (sick.length > 1 ? 's' : '')}</b>
          </p>
          {sick.map((d) => (
            <p>
              <b>{d.destination}</b>
              {d.livemode ? '' : ' (test mode)'}
              {' · ' + d.consecutiveFailures + ' failed in a row · ' + last(d) + ' · ' + pct(d.successRateLastHour) + ' ok in the last hour'}
              {d.lastSuccessAt ? ' · last success ' + when(d.lastSuccessAt) : ' · no success in 7 days'}
              {d.nextRetryAt ? ' · next retry ' + when(d.nextRetryAt) : ''}
            </p>
          ))}
        </div>
      ) : null}
      <p>
        Attempts answered 2xx, last hour{' '}
        <span class="big" id="webhook-recent-success">
          {pct(hourRate)}
        </span>
        {' (' + hourAttempts + ' attempts) · last day ' + pct(dayRate) + ' (' + dayAttempts + ')'}
      </p>
      <p>{health.length + ' destination' + (health.length === 1 ? '' : 's') + ', ' + (health.length - sick.length) + ' healthy'}</p>
      <p class="hint">
        {'30 days: events eventually delivered ' + pct(w.successRate) + ' · backlog '}
        <b>{w.backlog}</b>
        {w.oldestPendingAt ? ' (oldest ' + when(w.oldestPendingAt) + ')' : ''}
        {' · delivered ' + w.delivered + ' · failed ' + w.failed + ' of ' + w.events}
      </p>
    </Card>
  );
}

function DashboardView({ ctx }: { ctx: Ctx }) {
  const loaded = useLoad(() => gql(QUERIES.dashboard, { p: ctx.projectId }), [ctx.projectId]);
  const data = loaded.data;
  if (!data) return <Loading error={loaded.error} />;
  const t = data.timeToDecision;
  type Rate = { workflowId: string; workflowName: string | null; sessions: number; approvalRate: number | null };
  type Reason = { source: string; type: string; reason: string; count: number };
  return (
    <>
      <h1>Dashboard (last 30 days)</h1>
      <div class="grid">
        <Card>
          <h2>Sessions per day</h2>
          <StackedDays rows={data.sessionsPerDay} />
        </Card>
        <Card>
          <h2>Approval rate per workflow</h2>
          <BarChart
            label="Approval rate per workflow"
            format={pct}
            items={data.approvalRates.map((r: Rate) => ({ label: (r.workflowName || r.workflowId) + ' (' + r.sessions + ')', value: r.approvalRate ?? 0, color: '#2e9e6a' }))}
          />
        </Card>
        <Card>
          <h2>Time to decision</h2>
          <p>
            Median{' '}
            <span class="big" id="median">
              {secs(t.medianSeconds)}
            </span>
            {' · p90 ' + secs(t.p90Seconds) + ' · ' + t.decided + ' decided'}
          </p>
        </Card>
        <Card>
          <h2>Check failure reasons</h2>
          <BarChart
            label="Check failure reasons"
            items={data.checkFailureReasons.slice(0, 12).map((r: Reason) => ({ label: r.type + ': ' + r.reason + (r.source === 'standalone' ? ' (standalone)' : ''), value: r.count, color: '#d0443a' }))}
          />
        </Card>
        <WebhookCard health={data.webhookHealth} w={data.webhookStats} />
      </div>
    </>
  );
}

// ---------- sign-in, frame and routing ----------

function SignIn({ error, onSignIn }: { error: string | null; onSignIn: (token: string) => void }) {
  const [token, setToken] = useState('');
  return (
    <main class="console">
      <Card>
        <form
          id="signin"
          onSubmit={(e) => {
            e.preventDefault();
            onSignIn(token.trim());
          }}
        >
          <h1>Verity admin</h1>
          <p class="hint">Sign in with an admin token (viewer, reviewer or admin). It stays in this tab only.</p>
          <input type="password" name="token" placeholder="vat_..." autocomplete="off" required aria-label="Admin token" value={token} onInput={(e) => setToken(inputValue(e))} />
          <p>
            <Button type="submit">Sign in</Button>
          </p>
          {error ? (
            <div class="error" role="alert">
              {error}
            </div>
          ) : null}
        </form>
      </Card>
    </main>
  );
}

function useHashRoute(): [string, string | undefined] {
  const read = () => location.hash.replace(/^#\/?/, '').split('/');
  const [parts, setParts] = useState(read());
  useEffect(() => {
    const update = () => setParts(read());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return [parts[0] || 'dashboard', parts[1] ? decodeURIComponent(parts[1]) : undefined];
}

function Console({ ctx, onProject, onSignOut }: { ctx: Ctx; onProject: (id: string) => void; onSignOut: () => void }) {
  const [view, arg] = useHashRoute();
  const tab = view === 'session' ? 'sessions' : view;
  const body =
    view === 'session' && arg ? (
      <SessionView ctx={ctx} sessionId={arg} />
    ) : view === 'sessions' ? (
      <SessionsView ctx={ctx} />
    ) : view === 'review' ? (
      <ReviewView ctx={ctx} />
    ) : view === 'webhooks' ? (
      <WebhooksView ctx={ctx} />
    ) : view === 'roster' ? (
      <RosterView ctx={ctx} />
    ) : view === 'billing' ? (
      <BillingView ctx={ctx} />
    ) : view === 'keys' ? (
      <KeysView ctx={ctx} />
    ) : view === 'audit' ? (
      <AuditView ctx={ctx} />
    ) : (
      <DashboardView ctx={ctx} />
    );
  return (
    <>
      <header class="bar">
        <b>Verity admin</b>
        <select aria-label="Project" value={ctx.projectId} onChange={(e) => onProject(inputValue(e))}>
          {ctx.projects.map((p) => (
            <option value={p.id}>{p.name + ' (' + p.id + ')'}</option>
          ))}
        </select>
        <span class="who">{ctx.me.role + (ctx.me.projectId ? ' · one project' : ' · all projects')}</span>
        {/* The GraphQL IDE in this tab: it reads the token this console signed in with (this tab's sessionStorage). */}
        <a class="graphiql-link" href="/graphql">
          GraphQL
        </a>
        <Button variant="secondary" onClick={onSignOut}>
          Sign out
        </Button>
      </header>
      <nav class="views">
        {VIEWS.map(([id, label]) => (
          <a href={'#/' + id} class={tab === id ? 'on' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      {/* A new project or view starts its component afresh. */}
      <main class="console" key={`${ctx.projectId}/${view}/${arg ?? ''}`}>
        {body}
      </main>
    </>
  );
}

export function App() {
  const [ctx, setCtx] = useState<Ctx | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [starting, setStarting] = useState(Boolean(sessionStorage.getItem(TOKEN_KEY)));
  const signOut = () => {
    sessionStorage.removeItem(TOKEN_KEY);
    setCtx(null);
  };
  whenUnauthenticated(signOut);
  const start = async () => {
    try {
      const data = await gql(QUERIES.start);
      const remembered = sessionStorage.getItem(PROJECT_KEY);
      const projectId = data.projects.some((p: Project) => p.id === remembered) ? remembered : data.projects[0]?.id;
      setCtx({ me: data.me, projects: data.projects, organizations: data.organizations, projectId });
      setError(null);
      if (!location.hash) location.hash = '#/dashboard';
    } catch (failure) {
      sessionStorage.removeItem(TOKEN_KEY);
      setError(errorText(failure));
    } finally {
      setStarting(false);
    }
  };
  useEffect(() => {
    if (starting) void start();
  }, []);
  if (starting)
    return (
      <main class="console">
        <p class="hint">Loading…</p>
      </main>
    );
  if (!ctx)
    return (
      <SignIn
        error={error}
        onSignIn={(token) => {
          sessionStorage.setItem(TOKEN_KEY, token);
          void start();
        }}
      />
    );
  return (
    <Console
      ctx={ctx}
      onSignOut={signOut}
      onProject={(projectId) => {
        sessionStorage.setItem(PROJECT_KEY, projectId);
        setCtx({ ...ctx, projectId });
      }}
    />
  );
}
