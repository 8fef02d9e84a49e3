import { APPROVAL_RULE } from '../vocabulary.js';
import type { AccountService } from '../accounts/service.js';
import type { BillingService } from '../billing/service.js';
import type { ChallengeService } from '../checks/challenge.js';
import type { IdempotencyService } from '../billing/idempotency.js';
import type { Check, CheckContext, CheckOutcome } from '../checks/types.js';
import type { Clock } from '../clock.js';
import { StatementBatch } from '../db/statement-batch.js';
import { DomainError } from '../errors.js';
import { digestSecret, newId, newSecret, type Sealer } from '../secrets.js';
import { type TenancyService, webhookModeOf } from '../tenancy/service.js';
import type { SandboxAllowance } from '../billing/sandbox-quota.js';
import { type ForcedVerdict, forcedOutcome, idempotencyOperation, sandboxOutcome } from '../checks/sandbox.js';
import { parseInput } from '../validation.js';
import type { WebhookService } from '../webhooks/service.js';
import type { SessionStatus } from './entities.js';
import type { EvidenceStore } from './evidence.js';
import type {
  SessionDraft,
  SessionEventRecord,
  SessionLookup,
  SessionRecord,
  SessionStore,
  SessionTx,
  SessionViewRecord,
} from './store.js';
import { type SessionTrigger, transition } from './transitions.js';
import {
  type DecisionWire,
  type ErasedWire,
  type HandoffClaimWire,
  type HandoffLinkWire,
  type HostedFlowWire,
  type StepOutcome,
  sessionView,
  testMark,
  vendorDataOnWire,
} from './views.js';
import {
  createSessionInput,
  listSessionsInput,
  reviewInput,
  SESSION_TTL,
  stepFields,
  testOutcomeInput,
} from './inputs.js';
import { HOSTED_STEPS } from './steps/index.js';
import { requiredChallengeId, SELFIE_ATTEMPTS } from './steps/selfie.js';
import {
  runCheck,
  type SessionChecks,
  type SessionWork,
  STEPS,
  type StepName,
  type StepPorts,
  type StepResult,
} from './steps/step.js';

/** Review images one purge round deletes, and the rounds one sweep runs (see purgeEvidence). */
export const EVIDENCE_PURGE_BATCH = 500;
export const EVIDENCE_PURGE_ROUNDS = 10;

/** States in which the person can still work on the session. */
const OPEN: SessionStatus[] = ['NOT_STARTED', 'IN_PROGRESS'];
/** Final: nothing moves the session any more (IN_REVIEW is announced but still decidable). */
const FINAL: SessionStatus[] = ['APPROVED', 'DECLINED', 'EXPIRED', 'ABANDONED'];

/** Who moved a session: the hosted page's user, the rules and jobs, or a reviewer. */
export type Actor = 'user' | 'system' | `api_key:${string}` | `admin:${string}`;

interface RecordedCheck {
  type: string;
  status: Check['status'];
}

/**
 * The automatic decision: any failed check is a hard fail (spoof, face mismatch, expired or
 * forged document, outside the geofence, refused location, licence not found); once every feature
 * has its check, any `review` sends the session to manual review, else it is approved.
 */
export function decide(
  features: readonly string[],
  checks: readonly RecordedCheck[],
): 'check_failed' | 'needs_review' | 'checks_passed' | null {
  if (checks.some((check) => check.status === 'failed')) return 'check_failed';
  const done = new Set(checks.map((check) => check.type));
  if (!features.every((feature) => done.has(feature))) return null;
  return checks.some((check) => check.status === 'review') ? 'needs_review' : 'checks_passed';
}

/**
 * What stands in the way of a reviewer's approval (409 `required_face_checks_incomplete`): the
 * checks of APPROVAL_RULE that the session lacks, by type; empty when it may be approved. The
 * document may be under review (that is what the reviewer rules on); liveness and face match must
 * have passed.
 */
export function approvalBlockers(checks: readonly RecordedCheck[]): string[] {
  const has = (type: string, statuses: readonly Check['status'][]) =>
    checks.some((check) => check.type === type && statuses.includes(check.status));
  return [
    has('id_verification', ['passed', 'review']) ? null : 'id_verification',
    has('liveness', ['passed']) ? null : 'liveness',
    has('face_match', ['passed']) ? null : 'face_match',
  ].filter((missing): missing is string => missing !== null);
}

/** The checks each hosted step records (the face match runs with the selfie, against the document's portrait). */
const STEP_CHECKS: Record<StepName, readonly string[]> = {
  document: ['id_verification', 'age'],
  selfie: ['liveness', 'face_match'],
  location: ['location'],
  licence: ['credential'],
};

/**
 * How a step really ended, for the page's progress and end screen: the worst status of its checks
 * once it was submitted (`submitted`: the open session's work says so; a decided session's work is
 * wiped, so its recorded checks tell), `not_run` when the session closed before it (a decline at
 * an earlier step, a forced test outcome, the deadline), null while it is still to do.
 */
export function stepOutcome(
  step: StepName,
  submitted: boolean,
  closed: boolean,
  checks: readonly RecordedCheck[],
): StepOutcome | null {
  const statuses = checks.filter((check) => STEP_CHECKS[step].includes(check.type)).map((check) => check.status);
  if (!submitted && statuses.length === 0) return closed ? 'not_run' : null;
  return statuses.includes('failed') ? 'failed' : statuses.includes('review') ? 'review' : 'passed';
}

/**
 * Which try of a step the next submission is (1 for the first): selfies count their retakes, other steps their fixable
 * failures.
 */
function tryOf(work: SessionWork, step: StepName): number {
  return (step === 'selfie' ? (work.failedSelfies ?? 0) : (work.fixableTries?.[step] ?? 0)) + 1;
}

/**
 * Failures a person can fix by doing the step again: an expired document (they may hold
 * another), a licence number not found (a mistyped digit), a refused location prompt. The
 * workflow says how many tries a step gets (`maxStepTries`, default 3). Spoof evidence, a face
 * mismatch, a document whose check digits fail, a name that does not match and being outside the
 * area stay hard fails.
 */
export const FIXABLE_REASONS: Partial<Record<StepName, readonly string[]>> = {
  document: ['expired'],
  licence: ['not_found'],
  location: ['permission_denied'],
};

/** The failed check of a step the person may fix by trying again: every failure of the step must be fixable. */
export function fixableFailure(
  step: StepName,
  outcomes: readonly { check: { status: string; error: string | null }; reason?: string }[],
): { reason: string; error: string | null } | null {
  const reasons = FIXABLE_REASONS[step];
  const failed = outcomes.filter((outcome) => outcome.check.status === 'failed');
  if (!reasons || failed.length === 0 || !failed.every((outcome) => reasons.includes(outcome.reason ?? '')))
    return null;
  return { reason: failed[0]!.reason!, error: failed[0]!.check.error };
}

/** The steps a workflow needs on the hosted page, in the order the page shows them. */
export function stepsOf(features: readonly string[]): StepName[] {
  return (Object.keys(STEPS) as StepName[]).filter((step) => STEPS[step].some((feature) => features.includes(feature)));
}

const iso = (date: Date | null | undefined) => date?.toISOString() ?? null;

/**
 * Who asks for sessions: a project id (operators: console, CLI) sees every mode; an API key sees
 * only its own mode, so test and live data never mix.
 */
export type SessionOwner = string | { projectId: string; livemode: boolean };
/** The owner's project, and the mode it sees (null: both). */
const ownerOf = (owner: SessionOwner): Omit<SessionLookup, 'id'> =>
  typeof owner === 'string' ? { projectId: owner, livemode: null } : owner;
const lookupOf = (owner: SessionOwner, id: string): SessionLookup => ({ id, ...ownerOf(owner) });

/**
 * A transaction's working copy of a session: what it changes, and what it appends, written by one statement at its end.
 */
const draftOf = (session: SessionRecord): SessionDraft => ({ session: { ...session }, events: [], checks: [] });

/** The hosted steps that run real models: in a test session each spends the sandbox's daily quota. */
const MODEL_STEPS: ReadonlySet<StepName> = new Set<StepName>(['document', 'selfie']);

/** The move a forced test outcome makes from NOT_STARTED. */
const FORCED_TRIGGER = {
  approve: 'checks_passed',
  decline: 'check_failed',
  review: 'needs_review',
} as const satisfies Record<ForcedVerdict, SessionTrigger>;

function encodeCursor(session: SessionRecord): string {
  return Buffer.from(`${session.createdAt.toISOString()}|${session.id}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || Number.isNaN(createdAt.getTime()))
    throw new DomainError('validation_error', 'cursor is not one this API gave out', {
      data: { errors: { cursor: 'invalid' } },
    });
  return { createdAt, id };
}

export interface SessionDeps {
  /** The session tables: the only way this service reaches them. */
  store: SessionStore;
  /** The review images. */
  evidence: EvidenceStore;
  clock: Clock;
  sealer: Sealer;
  tenancy: TenancyService;
  accounts: AccountService;
  billing: BillingService;
  idempotency: IdempotencyService;
  webhooks: WebhookService;
  checks: SessionChecks;
  challenges: ChallengeService;
  /** Test sessions' model steps spend the project's daily sandbox quota. */
  sandboxQuota: SandboxAllowance;
  /** Public base URL: the hosted page lives under it. */
  baseUrl: string;
  /** Where each committed move of a session is logged, for ops. */
  logger?: { info(object: object, message: string): void };
}

/**
 * One move of a session's state machine, as ops read it in the log (ids, states, actor and reason: never identity
 * data).
 */
interface SessionMove {
  session_id: string;
  project_id: string;
  from: SessionStatus;
  to: SessionStatus;
  actor: Actor;
  reason: string;
}

const moveOf = (session: SessionRecord, event: SessionEventRecord): SessionMove => ({
  session_id: session.id,
  project_id: session.projectId,
  from: event.fromStatus ?? event.toStatus,
  to: event.toStatus,
  actor: event.actor as Actor,
  reason: event.reason ?? '',
});

/** How long a "continue on your phone" link can be claimed. */
export const HANDOFF_TTL_MS = 10 * 60_000;

/** Hosted verification sessions: creation, the state machine, the hosted steps, review, expiry. */
export class SessionService {
  /** Polls of GET /session/{id} arriving together are read by one statement. */
  private readonly views = new StatementBatch<SessionLookup, SessionViewRecord | null>((lookups) =>
    this.deps.store.views(lookups),
  );

  /** What the steps (steps/) use of this service. */
  private readonly stepPorts: StepPorts;

  constructor(private readonly deps: SessionDeps) {
    this.stepPorts = {
      checks: deps.checks,
      accounts: deps.accounts,
      contextOf: (session, mode) => this.contextOf(session, mode),
      minAgeOf: (session) => this.minAgeOf(session),
      countFailedSelfie: (session, reason, frame) => this.countFailedSelfie(session, reason, frame),
    };
  }

  private now(): Date {
    return this.deps.clock.now();
  }

  // ---- integrator API ----

  /**
   * A new session; with an `Idempotency-Key`, a retry answers the first session (`replayed`) instead of creating (and
   * charging) another.
   */
  async create(
    owner: SessionOwner,
    actor: Actor,
    raw: unknown,
    options: { idempotencyKey?: string; testOutcome?: string } = {},
  ) {
    const { projectId, livemode: mode } = ownerOf(owner);
    const livemode = mode ?? true;
    const forced = forcedOutcome({ livemode }, options.testOutcome);
    if (forced?.kind === 'error') throw forced.error;
    const { value, replayed } = await this.deps.idempotency.once(
      projectId,
      options.idempotencyKey,
      idempotencyOperation(livemode, 'session:create', options.testOutcome),
      raw,
      () => this.createOnce(projectId, livemode, actor, raw, forced?.verdict),
    );
    if (!replayed) await this.deps.webhooks.dispatch(value.eventIds);
    const { eventIds: _, ...session } = value;
    return { session, replayed };
  }

  private async createOnce(
    projectId: string,
    livemode: boolean,
    actor: Actor,
    raw: unknown,
    forced: ForcedVerdict | undefined,
  ) {
    const input = parseInput(createSessionInput, raw);
    const workflow = await this.deps.tenancy.getWorkflow(projectId, input.workflow_id);
    if (
      input.callback !== undefined &&
      !(await this.deps.tenancy.isApprovedCallback(projectId, input.callback, webhookModeOf(livemode)))
    ) {
      throw new DomainError(
        'callback_not_allowed',
        `callback must exactly match an active approved HTTPS destination of the project${livemode ? '' : ' for test mode'}`,
      );
    }
    const svcId = input.svc_access_token
      ? await this.deps.accounts.resolveForProject(projectId, { svcAccessToken: input.svc_access_token })
      : null;

    const token = newSecret('sst');
    const now = this.now();
    const id = newId('ses');
    // The debit and the session commit together: no session unpaid, no payment without a session.
    // A test key's session is never charged.
    const { session, eventIds } = await this.deps.billing.chargedTransaction(
      livemode ? projectId : null,
      'session',
      id,
      async (tx) => {
        const draft = draftOf({
          id,
          projectId,
          workflowId: workflow.id,
          status: transition(null, 'created'),
          features: workflow.features,
          tokenDigest: digestSecret(token),
          redirectUrl: input.redirect_url ?? null,
          callback: input.callback ?? null,
          vendorData: input.vendor_data ?? null,
          metadata: input.metadata ?? null,
          svcId,
          livemode,
          workSealed: null,
          decision: null,
          decidedAt: null,
          decidedBy: null,
          startedAt: null,
          dataErasedAt: null,
          expiresAt: new Date(now.getTime() + (input.ttl_seconds ?? SESSION_TTL.defaultSeconds) * 1000),
          createdAt: now,
          updatedAt: now,
        });
        draft.events.push({ fromStatus: null, toStatus: draft.session.status, actor, reason: 'created', at: now });
        // A forced test outcome decides at once, through the state table like any other decision.
        const eventId = forced
          ? await this.move(tx, draft, FORCED_TRIGGER[forced], actor, `test outcome: ${forced}`)
          : null;
        await this.deps.store.insert(tx, draft);
        return { session: draft.session, eventIds: eventId ? [eventId] : [] };
      },
    );
    return {
      ...sessionView(session),
      eventIds,
      // The token rides in the fragment: browsers never send it to a server or a log.
      url: `${this.deps.baseUrl}/verify/${session.id}#${token}`,
      session_token: token,
    };
  }

  async list(owner: SessionOwner, raw: unknown) {
    const { status, vendor_data: vendorData, limit, cursor } = parseInput(listSessionsInput, raw);
    const rows = await this.deps.store.list({
      ...ownerOf(owner),
      status,
      vendorData,
      after: cursor ? decodeCursor(cursor) : null,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    return {
      sessions: page.map(sessionView),
      nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!) : null,
    };
  }

  /** The owner's session, locked until the transaction ends: two requests moving it at once take turns. */
  private async lock(tx: SessionTx, owner: SessionOwner, sessionId: string): Promise<SessionRecord> {
    const session = await this.deps.store.lock(tx, lookupOf(owner, sessionId));
    if (!session) throw new DomainError('not_found', 'session not found');
    return session;
  }

  /** The owner's session as committed: integrators poll the decision. */
  private async read(owner: SessionOwner, sessionId: string): Promise<SessionRecord> {
    const session = await this.deps.store.find(lookupOf(owner, sessionId));
    if (!session) throw new DomainError('not_found', 'session not found');
    return session;
  }

  /**
   * GET /session/{id}, the call integrators poll: only the columns of the view, into a plain
   * object, by one prepared statement shared by the polls that arrive together.
   */
  async get(owner: SessionOwner, sessionId: string) {
    const view = await this.views.submit(lookupOf(owner, sessionId));
    if (!view) throw new DomainError('not_found', 'session not found');
    return sessionView(view);
  }

  /** The authoritative result: every check run, and the bound account's reusable profile. */
  async decision(owner: SessionOwner, sessionId: string): Promise<DecisionWire> {
    const session = await this.read(owner, sessionId);
    const checks = await this.checksOf(session.id);
    return {
      session_id: session.id,
      status: session.status,
      decision: session.decision ?? null,
      decided_at: iso(session.decidedAt),
      decided_by: session.decidedBy ?? null,
      workflow_id: session.workflowId,
      features: session.features,
      vendor_data: vendorDataOnWire(session),
      checks,
      ...(session.svcId ? { svc_id: session.svcId, identity: await this.identityOf(session, session.svcId) } : {}),
      ...testMark(session),
    };
  }

  async timeline(projectId: string, sessionId: string) {
    await this.read(projectId, sessionId);
    const events = await this.deps.store.timeline(sessionId);
    return events.map((event) => ({
      from: event.fromStatus ?? null,
      to: event.toStatus,
      actor: event.actor,
      reason: event.reason ?? null,
      at: event.at.toISOString(),
    }));
  }

  /**
   * Manual review (PATCH status, GraphQL). Only IN_REVIEW can be decided; approval needs the
   * document read (passed or under review: that is what the reviewer rules on) and passed liveness
   * and face match. The row lock makes two reviewers deciding at once have exactly one winner.
   */
  async review(owner: SessionOwner, sessionId: string, actor: Actor, raw: unknown, note?: string) {
    const { status } = parseInput(reviewInput, raw);
    const outcome = await this.transaction(async (tx) => {
      const session = await this.lock(tx, owner, sessionId);
      if (FINAL.includes(session.status))
        throw new DomainError('session_closed', `session is already ${session.status}`);
      if (session.status !== 'IN_REVIEW')
        throw new DomainError(
          'review_not_pending',
          `only IN_REVIEW sessions can be decided; this one is ${session.status}`,
        );
      if (status === 'APPROVED') {
        const missing = approvalBlockers(await this.deps.store.checks(session.id, tx));
        if (missing.length)
          throw new DomainError('required_face_checks_incomplete', `${APPROVAL_RULE}; missing: ${missing.join(', ')}`);
      }
      const draft = draftOf(session);
      const eventId = await this.move(
        tx,
        draft,
        status === 'APPROVED' ? 'reviewer_approved' : 'reviewer_declined',
        actor,
        note ? `manual review: ${note}` : 'manual review',
      );
      await this.deps.store.save(tx, draft);
      return { session: draft.session, eventId };
    });
    await this.deps.webhooks.dispatch(outcome.eventId ? [outcome.eventId] : []);
    return sessionView(outcome.session);
  }

  // ---- the hosted page ----

  /**
   * The session a hosted-page token opens; 401 token_missing / invalid_token otherwise. A hosted
   * request is authenticated once, and the methods below take the session it opened.
   */
  async authenticate(token: string | undefined): Promise<SessionRecord> {
    if (!token) throw new DomainError('token_missing', 'session token required');
    const session = await this.deps.store.byTokenDigest(digestSecret(token));
    if (!session) throw new DomainError('invalid_token', 'session token is invalid');
    return session;
  }

  /** "Continue on your phone": a one-time link to this session for another device, valid HANDOFF_TTL_MS. */
  async createHandoff(session: SessionRecord): Promise<HandoffLinkWire> {
    if (!OPEN.includes(session.status)) throw new DomainError('session_closed', 'session already closed');
    const code = newSecret('shl');
    const now = this.now();
    const expiresAt = new Date(now.getTime() + HANDOFF_TTL_MS);
    await this.deps.store.addHandoff({
      id: newId('shf'),
      sessionId: session.id,
      linkDigest: digestSecret(code),
      createdAt: now,
      expiresAt,
    });
    // Like the session link, the code rides in the fragment, never sent to a server or a log.
    return { url: `${this.deps.baseUrl}/verify/${session.id}#${code}`, expires_at: expiresAt.toISOString() };
  }

  /**
   * Claims a handoff link: exactly one claim wins (a conditional update) and gets the phone its
   * own session token; a used, expired or unknown link is invalid_token.
   */
  async claimHandoff(code: string | undefined): Promise<HandoffClaimWire> {
    if (!code) throw new DomainError('token_missing', 'handoff link code required');
    const phoneToken = newSecret('sst');
    const sessionId = await this.deps.store.claimHandoff(digestSecret(code), digestSecret(phoneToken), this.now());
    if (!sessionId)
      throw new DomainError('invalid_token', 'this continue-on-phone link was already used or has expired');
    return { session_id: sessionId, session_token: phoneToken };
  }

  private async branding(projectId: string) {
    const branding = await this.deps.tenancy.projectBranding(projectId);
    return {
      project_name: branding.name,
      privacy_policy_url: branding.privacyPolicyUrl,
      support_url: branding.supportUrl ?? null,
      logo: branding.hasLogo,
    };
  }

  /** The logo of the session's project (PNG), for the hosted page; not_found when it has none. */
  async logo(session: SessionRecord): Promise<Buffer> {
    const logo = await this.deps.tenancy.projectLogo(session.projectId);
    if (!logo) throw new DomainError('not_found', 'this project has no logo');
    return logo;
  }

  /**
   * What the page shows: the steps, which are done, and where to go at the end (`checks`: when the caller has just read
   * them).
   */
  async flowState(session: SessionRecord, known?: readonly Check[]): Promise<HostedFlowWire> {
    const checks = known ?? (await this.checksOf(session.id));
    const done = this.workOf(session).stepsDone ?? [];
    const closed = !OPEN.includes(session.status);
    // The steps as they really ended: a decline at the selfie leaves the location step not run.
    const steps = stepsOf(session.features).map((step) => ({
      step,
      done: closed || done.includes(step),
      outcome: stepOutcome(step, done.includes(step), closed, checks),
    }));
    const [branding, retentionDays, continuedOnPhone] = await Promise.all([
      this.branding(session.projectId),
      this.deps.tenancy.evidenceRetentionDays(session.projectId),
      closed ? false : this.deps.store.handoffClaimed(session.id),
    ]);
    return {
      session_id: session.id,
      status: session.status,
      // Whom the person verifies for: the start screen names them, with their logo and privacy
      // policy, and says how long the photos are kept (the project's retention).
      ...branding,
      retention_days: retentionDays,
      features: session.features,
      steps,
      continued_on_phone: continuedOnPhone,
      checks: checks.map((check) => ({ type: check.type, status: check.status, error: check.error })),
      expires_at: session.expiresAt.toISOString(),
      geofence: session.metadata?.expected_lat !== undefined,
      finished: closed,
      // A hint only: integrators read the decision endpoint for the result.
      redirect_to: closed && session.redirectUrl ? this.redirectWithStatus(session.redirectUrl, session.status) : null,
      ...testMark(session),
    };
  }

  /**
   * Test mode on the hosted page: a tester picks the outcome of a test session instead of running
   * the models, with the values of the `Verity-Test-Outcome` header. approve, decline and review
   * decide the session through the state table as a forced outcome on creation does (free: no
   * model runs, no quota is spent); an error code answers that error, so the tester sees how the
   * page shows it. A live session has no such thing (404).
   */
  async pickTestOutcome(session: SessionRecord, raw: unknown): Promise<HostedFlowWire> {
    if (session.livemode)
      throw new DomainError('not_found', 'outcomes can be picked only on a test session (made with a vk_test_ key)');
    const { outcome } = parseInput(testOutcomeInput, raw);
    const forced = forcedOutcome({ livemode: false }, outcome)!;
    if (forced.kind === 'error') throw forced.error;
    const committed = await this.transaction(async (tx) => {
      const locked = await this.lock(tx, session.projectId, session.id);
      this.assertAcceptsInput(locked);
      const draft = draftOf(locked);
      const eventId = await this.move(
        tx,
        draft,
        FORCED_TRIGGER[forced.verdict],
        'user',
        `test outcome: ${forced.verdict} (picked on the hosted page)`,
      );
      await this.deps.store.save(tx, draft);
      return { session: draft.session, eventId };
    });
    await this.deps.webhooks.dispatch(committed.eventId ? [committed.eventId] : []);
    return this.flowState(committed.session);
  }

  private redirectWithStatus(redirectUrl: string, status: SessionStatus): string {
    const url = new URL(redirectUrl);
    url.searchParams.set('status', status);
    return url.toString();
  }

  /** The person opened the page: NOT_STARTED becomes IN_PROGRESS (once); reusable checks are filled in. */
  async start(session: SessionRecord) {
    this.assertNotLapsed(session);
    return this.flowState(await this.open(session));
  }

  /**
   * NOT_STARTED becomes IN_PROGRESS; only the request that opened it fills in the reusable checks
   * (a concurrent one finds it opened). Returns the session as it now stands.
   */
  private async open(session: SessionRecord): Promise<SessionRecord> {
    if (session.status !== 'NOT_STARTED') return session;
    const opened = await this.openOnce(session);
    if (!opened) return this.read(session.projectId, session.id);
    return this.reuseFromAccount(opened);
  }

  /**
   * The move `opened` in one statement (every hosted session takes it, on its first step): the
   * status, the start time and the timeline entry, only while the session is still NOT_STARTED.
   * Answers the session as opened, or null when another request opened it first.
   */
  private async openOnce(session: SessionRecord): Promise<SessionRecord | null> {
    const now = this.now();
    const event: SessionEventRecord = {
      fromStatus: 'NOT_STARTED',
      toStatus: transition('NOT_STARTED', 'opened'),
      actor: 'user',
      reason: 'page opened',
      at: now,
    };
    if (!(await this.deps.store.open(session.id, event))) return null;
    this.deps.logger?.info(moveOf(session, event), 'session moved');
    return { ...session, status: event.toStatus, startedAt: now, updatedAt: now };
  }

  /** A session past its deadline takes no more input, even before the sweep has moved it. */
  private assertNotLapsed(session: SessionRecord): void {
    if (OPEN.includes(session.status) && this.now() >= session.expiresAt)
      throw new DomainError('session_expired', 'this verification link has expired; ask for a new one');
  }

  private assertAcceptsInput(session: SessionRecord): void {
    this.assertNotLapsed(session);
    if (!OPEN.includes(session.status)) throw new DomainError('session_closed', `session is already ${session.status}`);
  }

  private contextOf(session: SessionRecord, mode: 'fresh' | 'account' = 'fresh'): CheckContext {
    return {
      projectId: session.projectId,
      livemode: session.livemode,
      mode,
      svcId: mode === 'account' ? (session.svcId ?? null) : null,
      today: this.now(),
    };
  }

  /**
   * Bound accounts skip what they already hold: a verified identity answers the document and age
   * checks in account mode (proofs only), marked `reused: true`, unless its document has expired.
   */
  private async reuseFromAccount(session: SessionRecord): Promise<SessionRecord> {
    if (!session.svcId) return session;
    // Nothing reusable (or a document that has expired since): the person verifies fully.
    const identity = await this.deps.accounts
      .stateFor(session)
      .reusableIdentity(session.svcId, this.now())
      .catch(() => null);
    if (!identity) return session;
    const outcomes: CheckOutcome[] = [];
    const context = this.contextOf(session, 'account');
    if (session.features.includes('id_verification'))
      outcomes.push(await runCheck(this.deps.checks.idVerification, {}, context));
    if (session.features.includes('age')) {
      const outcome = await runCheck(this.deps.checks.age, { bands: [this.minAgeOf(session)] }, context);
      outcome.check.data = { ...outcome.check.data, reused: true };
      outcomes.push(outcome);
    }
    return outcomes.length
      ? (
          await this.commit(session, 'document', outcomes, {
            fullName: identity.fullName,
            dateOfBirth: identity.dateOfBirth,
          })
        ).session
      : session;
  }

  private minAgeOf(session: SessionRecord): number {
    const value = session.metadata?.min_age;
    return typeof value === 'number' ? value : 18;
  }

  /**
   * What refuses a step before its body is read (so an upload nobody would take is never
   * buffered): a step this session does not have, a session that takes no input, a step done.
   */
  assertStepAccepts(session: SessionRecord, step: string): void {
    if (!(step in STEPS) || !stepsOf(session.features).includes(step as StepName))
      throw new DomainError('not_found', `this session has no ${step} step`);
    this.assertAcceptsInput(session);
    if ((this.workOf(session).stepsDone ?? []).includes(step as StepName))
      throw new DomainError('conflict', `the ${step} step is already complete`);
  }

  /**
   * Before a selfie's frames are read: where the workflow has liveness, the burst names its
   * challenge and the challenge can still be answered (nothing is consumed here).
   */
  async assertSelfieChallenge(session: SessionRecord, challengeId: unknown): Promise<void> {
    if (!session.features.includes('liveness')) return;
    await this.deps.challenges.open(session.projectId, requiredChallengeId(challengeId));
  }

  /** Runs the checks of one step of the hosted page and applies the automatic decision. */
  async submitStep(authenticated: SessionRecord, step: string, input: Record<string, unknown>) {
    let session = authenticated;
    this.assertStepAccepts(session, step);
    session = await this.open(session);
    const work = this.workOf(session);
    if (!session.livemode && MODEL_STEPS.has(step as StepName)) await this.deps.sandboxQuota.spend(session.projectId);
    const ran = await HOSTED_STEPS[step as StepName](
      session,
      stepFields(step as StepName, input),
      work,
      this.stepPorts,
    );
    const { work: patch, images } = ran;
    const outcomes = session.livemode ? ran.outcomes : ran.outcomes.map(sandboxOutcome);
    const fixable = fixableFailure(step as StepName, outcomes);
    if (fixable) await this.askAgainUnlessLastTry(session, step as StepName, fixable.reason, fixable.error, images);
    const committed = await this.commit(
      session,
      step as StepName,
      outcomes,
      patch,
      images,
      tryOf(work, step as StepName),
    );
    return this.flowState(committed.session, committed.checks);
  }

  /**
   * A try that failed for a fixable reason: counted and written in the timeline (the session stays
   * where it is), then the person is asked again with 422 `step_retry_required`, until the step's
   * last try, whose failure is recorded like any other. The try's images are kept for the review
   * (numbered by try), so a reviewer sees the refused document beside the one that followed.
   */
  private async askAgainUnlessLastTry(
    session: SessionRecord,
    step: StepName,
    reason: string,
    error: string | null,
    images: StepResult['images'] = [],
  ): Promise<void> {
    const tries = (await this.deps.tenancy.getWorkflow(session.projectId, session.workflowId)).maxStepTries;
    const tried = await this.transaction(async (tx) => {
      const locked = await this.lock(tx, session.projectId, session.id);
      this.assertAcceptsInput(locked);
      const work = this.workOf(locked);
      const count = (work.fixableTries?.[step] ?? 0) + 1;
      if (count >= tries) return count;
      work.fixableTries = { ...work.fixableTries, [step]: count };
      const draft = draftOf(locked);
      draft.session.workSealed = this.deps.sealer.seal(JSON.stringify(work));
      draft.events.push({
        fromStatus: locked.status,
        toStatus: locked.status,
        actor: 'user',
        reason: `${step}: ${reason}, asked again (try ${count} of ${tries})`,
        at: this.now(),
      });
      await this.deps.evidence.keep(tx, locked.id, images, count, this.now());
      await this.deps.store.save(tx, draft);
      return count;
    });
    if (tried < tries) {
      throw new DomainError(
        'step_retry_required',
        `${error ?? reason}. Try again (${tries - tried} ${tries - tried === 1 ? 'try' : 'tries'} left).`,
        { data: { step, reason, tries_left: tries - tried } },
      );
    }
  }

  private workOf(session: SessionRecord): SessionWork {
    return session.workSealed ? (JSON.parse(this.deps.sealer.open(session.workSealed)) as SessionWork) : {};
  }

  /** A gesture challenge for the selfie burst (single use, 60 s). */
  async challenge(session: SessionRecord) {
    this.assertAcceptsInput(session);
    if (!session.features.includes('liveness')) throw new DomainError('not_found', 'this session has no liveness step');
    return this.deps.challenges.create(session.projectId);
  }

  /**
   * Counts a selfie judged not live. A retake still to come is written in the timeline with its
   * reason and keeps its frame for the review (numbered by try); the last failure is recorded by
   * the step's commit like any other.
   */
  private async countFailedSelfie(session: SessionRecord, reason: string, frame: Buffer | null): Promise<number> {
    return this.transaction(async (tx) => {
      const locked = await this.lock(tx, session.projectId, session.id);
      const work = this.workOf(locked);
      const failures = (work.failedSelfies ?? 0) + 1;
      work.failedSelfies = failures;
      const draft = draftOf(locked);
      draft.session.workSealed = this.deps.sealer.seal(JSON.stringify(work));
      if (failures < SELFIE_ATTEMPTS) {
        draft.events.push({
          fromStatus: locked.status,
          toStatus: locked.status,
          actor: 'user',
          reason: `selfie: ${reason}, retake asked (try ${failures} of ${SELFIE_ATTEMPTS})`,
          at: this.now(),
        });
        await this.deps.evidence.keep(
          tx,
          locked.id,
          frame ? [{ kind: 'selfie', bytes: frame }] : [],
          failures,
          this.now(),
        );
      }
      await this.deps.store.save(tx, draft);
      return failures;
    });
  }

  /**
   * Stores a step's checks and moves the session, under the session's row lock; returns the
   * session as committed and its checks (those recorded before, then this step's).
   */
  private async commit(
    session: SessionRecord,
    step: StepName,
    outcomes: CheckOutcome[],
    patch: SessionWork,
    images: StepResult['images'] = [],
    attempt = 1,
  ): Promise<{ session: SessionRecord; checks: Check[] }> {
    const committed = await this.transaction(async (tx) => {
      const locked = await this.lock(tx, session.projectId, session.id);
      this.assertAcceptsInput(locked);
      const before = this.workOf(locked);
      if ((before.stepsDone ?? []).includes(step))
        throw new DomainError('conflict', `the ${step} step is already complete`);
      const recorded = await this.checksOf(locked.id, tx);
      const now = this.now();
      const draft = draftOf(locked);
      for (const { check, reason } of outcomes) {
        draft.checks.push({
          type: check.type,
          status: check.status,
          score: check.score ?? null,
          detailSealed: this.deps.sealer.seal(JSON.stringify({ data: check.data, error: check.error })),
          reason: check.status === 'passed' ? null : (reason ?? null),
          createdAt: now,
        });
      }
      await this.deps.evidence.keep(tx, locked.id, images, attempt, now);
      const work: SessionWork = {
        ...before,
        ...Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)),
        stepsDone: [...(before.stepsDone ?? []), step],
      };
      draft.session.workSealed = this.deps.sealer.seal(JSON.stringify(work));
      draft.session.updatedAt = now;
      const checks = [...recorded, ...outcomes.map(({ check }) => check)];
      const next = decide(locked.features, checks);
      const failed = outcomes.find(({ check }) => check.status === 'failed');
      const eventId = next
        ? await this.move(
            tx,
            draft,
            next,
            'system',
            failed ? `${failed.check.type}: ${failed.reason ?? 'failed'}` : `${step} completed`,
          )
        : null;
      await this.deps.store.save(tx, draft);
      return { session: draft.session, checks, eventId };
    });
    await this.deps.webhooks.dispatch(committed.eventId ? [committed.eventId] : []);
    return committed;
  }

  /** The moves made inside each open transaction, logged once it commits. */
  private readonly movesIn = new WeakMap<SessionTx, SessionMove[]>();

  /**
   * A transaction whose session moves are logged after it has committed: a rolled-back move (a lost race) never
   * happened.
   */
  private async transaction<T>(work: (tx: SessionTx) => Promise<T>): Promise<T> {
    const moves: SessionMove[] = [];
    const result = await this.deps.store.transaction(async (tx) => {
      this.movesIn.set(tx, moves);
      return work(tx);
    });
    for (const move of moves) this.deps.logger?.info(move, 'session moved');
    return result;
  }

  /**
   * Moves a session along a row of the transition table (transitions.ts; any other move is a 409)
   * inside a transaction: the timeline entry and the decision fields (on the draft, which the
   * caller saves), the webhook outbox row and, for an approved bound live session, the account's
   * verified identity, all committed together (a crash loses none of them). Returns the webhook
   * event id when one is due; the caller queues it after the commit.
   */
  private async move(
    tx: SessionTx,
    draft: SessionDraft,
    trigger: SessionTrigger,
    actor: Actor,
    reason: string,
  ): Promise<string | null> {
    const session = draft.session;
    const event: SessionEventRecord = {
      fromStatus: session.status,
      toStatus: transition(session.status, trigger),
      actor,
      reason: reason.slice(0, 200),
      at: this.now(),
    };
    const { toStatus: to, at: now } = event;
    this.movesIn.get(tx)?.push(moveOf(session, event));
    draft.events.push(event);
    session.status = to;
    session.updatedAt = now;
    if (to === 'IN_PROGRESS') return null;
    if (FINAL.includes(to)) {
      if (to === 'APPROVED' && session.svcId) await this.verifyAccount(tx, session);
      session.decision = to;
      session.decidedAt = now;
      session.decidedBy = actor;
      // Nothing raw outlives the decision: the portrait and the read fields go in the same
      // commit (a crash right after it must not leave them behind).
      session.workSealed = null;
      if ((await this.deps.tenancy.evidenceRetentionDays(session.projectId, tx)) === 0)
        await this.deps.evidence.erase(tx, session.id);
    }
    const lower = to.toLowerCase();
    return this.deps.webhooks.record(tx, session.projectId, session.id, {
      type: `verification.${lower}`,
      livemode: session.livemode,
      callback: session.callback,
      body: {
        type: `verification.${lower}`,
        session_id: session.id,
        status: to,
        vendor_data: vendorDataOnWire(session),
        decision: lower,
        occurred_at: now.toISOString(),
      },
    });
  }

  /**
   * An approved bound session records the document's identity on the account (sealed); a test session records nothing
   * (AccountService.stateFor).
   */
  private async verifyAccount(tx: SessionTx, session: SessionRecord): Promise<void> {
    const known = this.workOf(session);
    const date = (value: string | undefined) => (value && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined);
    if (!known.fullName?.trim() || !date(known.dateOfBirth)) return;
    const expiry = date(known.documentExpiry);
    await this.deps.accounts.stateFor(session).recordVerifiedIdentity(
      {
        svcId: session.svcId,
        fullName: known.fullName,
        dateOfBirth: known.dateOfBirth,
        ...(known.documentNumber ? { documentNumber: known.documentNumber } : {}),
        ...(expiry ? { documentExpiry: expiry } : {}),
        ...(known.country && /^[A-Z]{3}$/.test(known.country) ? { nationality: known.country } : {}),
        humanVerified: session.features.includes('liveness') || undefined,
      },
      tx,
    );
  }

  /** A session's checks with their detail opened, oldest first. */
  private async checksOf(sessionId: string, tx?: SessionTx): Promise<Check[]> {
    const rows = await this.deps.store.checks(sessionId, tx);
    return rows.map((row) => {
      const detail = JSON.parse(this.deps.sealer.open(row.detailSealed)) as {
        data: Record<string, unknown>;
        error: string | null;
      };
      return {
        type: row.type as Check['type'],
        status: row.status,
        ...(row.score != null ? { score: row.score } : {}),
        data: detail.data,
        error: detail.error,
      };
    });
  }

  /** The bound account's reusable profile as the session's mode sees it (none for a test session). */
  private async identityOf(session: SessionRecord, svcId: string) {
    const account = this.deps.accounts.stateFor(session);
    const identity = await account.verifiedIdentity(svcId).catch(() => null);
    return { full_name: identity?.fullName ?? null, licenses: await account.licenseSummaries(svcId) };
  }

  /**
   * DELETE /api/v2/session/{id}/data: erases the session's sealed data (the read fields and check
   * details, the work between steps) and its images now; the status, the decision and the
   * timeline stay. Idempotent: a second call answers `already_erased: true`. An open session is
   * refused (409 `conflict`): its steps still need what they left.
   */
  async eraseData(owner: SessionOwner, sessionId: string, actor: Actor): Promise<ErasedWire> {
    return this.transaction(async (tx) => {
      const session = await this.lock(tx, owner, sessionId);
      if (session.dataErasedAt)
        return {
          session_id: session.id,
          status: session.status,
          erased: true,
          already_erased: true,
          erased_at: session.dataErasedAt.toISOString(),
        };
      if (OPEN.includes(session.status))
        throw new DomainError(
          'conflict',
          `session is ${session.status}: erase its data once it is decided or has expired`,
        );
      const now = this.now();
      await this.deps.evidence.erase(tx, session.id);
      await this.deps.store.sealChecks(
        tx,
        session.id,
        this.deps.sealer.seal(JSON.stringify({ data: { erased: true }, error: null })),
      );
      const draft = draftOf(session);
      Object.assign(draft.session, { workSealed: null, dataErasedAt: now, updatedAt: now });
      draft.events.push({
        fromStatus: session.status,
        toStatus: session.status,
        actor,
        reason: 'data erased',
        at: now,
      });
      await this.deps.store.save(tx, draft);
      return {
        session_id: session.id,
        status: session.status,
        erased: true,
        already_erased: false,
        erased_at: now.toISOString(),
      };
    });
  }

  /** The review images of a session of the project (404 for another project's session); the caller audits the read. */
  async evidenceOf(projectId: string, sessionId: string) {
    await this.read(projectId, sessionId);
    return this.deps.evidence.list(sessionId);
  }

  /**
   * Part of the sweep: deletes review images past their project's retention, in rounds of
   * EVIDENCE_PURGE_BATCH and at most EVIDENCE_PURGE_ROUNDS of them: a backlog (a retention
   * shortened, a first start on old data) goes over the next minutes' sweeps, none of them long.
   */
  async purgeEvidence(): Promise<number> {
    let purged = 0;
    for (let round = 0; round < EVIDENCE_PURGE_ROUNDS; round++) {
      const deleted = await this.deps.evidence.purgeExpired(this.now(), EVIDENCE_PURGE_BATCH);
      purged += deleted;
      if (deleted < EVIDENCE_PURGE_BATCH) break;
    }
    return purged;
  }

  // ---- the sweep (a pg-boss job) ----

  /** Sessions past their deadline: never opened -> EXPIRED; opened, not finished -> ABANDONED. */
  async expireDue(limit = 500): Promise<number> {
    const now = this.now();
    let moved = 0;
    for (const { id, projectId } of await this.deps.store.due(OPEN, now, limit)) {
      const outcome = await this.transaction(async (tx) => {
        const session = await this.lock(tx, projectId, id);
        if (!OPEN.includes(session.status) || session.expiresAt > now) return null;
        const draft = draftOf(session);
        const eventId = await this.move(tx, draft, 'deadline', 'system', 'deadline passed');
        await this.deps.store.save(tx, draft);
        return { eventId };
      });
      if (outcome) {
        moved += 1;
        await this.deps.webhooks.dispatch(outcome.eventId ? [outcome.eventId] : []);
      }
    }
    return moved;
  }
}
