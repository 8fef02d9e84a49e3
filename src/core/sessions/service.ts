import { APPROVAL_RULE } from '../vocabulary.js';
import { LockMode, type EntityManager } from '@mikro-orm/core';
import type { AccountService } from '../accounts/service.js';
import type { BillingService } from '../billing/service.js';
import type { ChallengeService } from '../checks/challenge.js';
import type { IdempotencyService } from '../billing/idempotency.js';
import type { StandaloneCheck } from '../checks/pipeline.js';
import type { Check, CheckContext, CheckOutcome, CombinedOutcome } from '../checks/types.js';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { preparedQuery, selectList, sqlDate } from '../db/prepared.js';
import { StatementBatch } from '../db/statement-batch.js';
import { DomainError } from '../errors.js';
import { digestSecret, newId, newSecret, type Sealer } from '../secrets.js';
import type { TenancyService } from '../tenancy/service.js';
import { type ForcedVerdict, forcedOutcome, idempotencyOperation } from '../sandbox.js';
import { parseInput } from '../validation.js';
import type { WebhookService } from '../webhooks/service.js';
import { type EvidenceKind, SessionCheck, SessionEvent, SessionHandoff, VerificationSession, type SessionStatus } from './entities.js';
import { EvidenceStore } from './evidence.js';
import { type SessionTrigger, transition } from './transitions.js';
import { type DecisionWire, type ErasedWire, type HandoffClaimWire, type HandoffLinkWire, type HostedFlowWire, sessionView, type SessionViewFields, testMark, vendorDataOnWire } from './views.js';
import { createSessionInput, listSessionsInput, reviewInput, SESSION_TTL, stepFields } from './inputs.js';

/** Failed selfies a person may retake before the liveness check is recorded as failed. */
export const SELFIE_ATTEMPTS = 3;

/** States in which the person can still work on the session. */
const OPEN: SessionStatus[] = ['NOT_STARTED', 'IN_PROGRESS'];
/** Final: nothing moves the session any more (IN_REVIEW is announced but still decidable). */
const FINAL: SessionStatus[] = ['APPROVED', 'DECLINED', 'EXPIRED', 'ABANDONED'];

/** The hosted page's steps and the features that need each (face match needs the document's portrait). */
export const STEPS = {
  document: ['id_verification', 'age', 'face_match'],
  selfie: ['liveness', 'face_match'],
  location: ['location'],
  licence: ['credential'],
} as const;
export type StepName = keyof typeof STEPS;

/** Who moved a session: the hosted page's user, the rules and jobs, or a reviewer. */
export type Actor = 'user' | 'system' | `api_key:${string}` | `admin:${string}`;

/** What one step leaves for a later one; sealed on the session and wiped when it closes. */
interface SessionWork {
  /** Steps already submitted: each runs once (no fishing for a pass by retrying). */
  stepsDone?: StepName[];
  /** Selfie bursts judged not live so far (retakes are allowed up to SELFIE_ATTEMPTS). */
  failedSelfies?: number;
  /** Tries of each step that failed for a reason the person can fix (see FIXABLE_REASONS). */
  fixableTries?: Partial<Record<StepName, number>>;
  portrait?: string;
  fullName?: string;
  firstName?: string;
  lastName?: string;
  dateOfBirth?: string;
  documentNumber?: string;
  documentExpiry?: string;
}

/** What a hosted step produced: its checks, what it leaves for later steps, and the images kept for review. */
interface StepResult {
  outcomes: CheckOutcome[];
  work: SessionWork;
  images?: { kind: EvidenceKind; bytes: Buffer }[];
}

interface RecordedCheck {
  type: string;
  status: Check['status'];
}

/**
 * The automatic decision: any failed check is a hard fail (spoof, face mismatch, expired or
 * forged document, outside the geofence, refused location, licence not found); once every feature
 * has its check, any `review` sends the session to manual review, else it is approved.
 */
export function decide(features: readonly string[], checks: readonly RecordedCheck[]): 'check_failed' | 'needs_review' | 'checks_passed' | null {
  if (checks.some((check) => check.status === 'failed')) return 'check_failed';
  const done = new Set(checks.map((check) => check.type));
  if (!features.every((feature) => done.has(feature))) return null;
  return checks.some((check) => check.status === 'review') ? 'needs_review' : 'checks_passed';
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
export function fixableFailure(step: StepName, outcomes: readonly { check: { status: string; error: string | null }; reason?: string }[]): { reason: string; error: string | null } | null {
  const reasons = FIXABLE_REASONS[step];
  const failed = outcomes.filter((outcome) => outcome.check.status === 'failed');
  if (!reasons || failed.length === 0 || !failed.every((outcome) => reasons.includes(outcome.reason ?? ''))) return null;
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
/** The owner's session by id ($1), project ($2) and, for a key of one mode, livemode ($3). */
const OF_OWNER = 'where id = $1 and project_id = $2 and ($3::boolean is null or livemode = $3)';
const lookupOf = (owner: SessionOwner, id: string): SessionLookup => (typeof owner === 'string' ? { id, projectId: owner, livemode: null } : { id, projectId: owner.projectId, livemode: owner.livemode });

/** The columns of a session's wire view, of `verification_session s`. */
const SESSION_VIEW_COLUMNS = 's.id, s.status, s.workflow_id, s.features, s.vendor_data, s.redirect_url, s.callback, s.svc_id, s.livemode, s.expires_at, s.created_at, s.updated_at, s.started_at, s.decided_at';
/** One poll: the session, and the owner it must belong to (a key of one mode sees only that mode's). */
interface SessionLookup {
  id: string;
  projectId: string;
  livemode: boolean | null;
}
interface SessionViewRow {
  id: string;
  status: SessionStatus;
  workflow_id: string;
  features: string[];
  vendor_data: string | null;
  redirect_url: string | null;
  callback: string | null;
  svc_id: string | null;
  livemode: boolean;
  expires_at: Date | string;
  created_at: Date | string;
  updated_at: Date | string;
  started_at: Date | string | null;
  decided_at: Date | string | null;
}
const dateOrNull = (value: Date | string | null) => (value === null ? null : sqlDate(value));
const viewFieldsOf = (row: SessionViewRow): SessionViewFields => ({
  id: row.id,
  status: row.status,
  workflowId: row.workflow_id,
  features: row.features,
  vendorData: row.vendor_data,
  redirectUrl: row.redirect_url,
  callback: row.callback,
  svcId: row.svc_id,
  livemode: row.livemode,
  expiresAt: sqlDate(row.expires_at),
  createdAt: sqlDate(row.created_at),
  updatedAt: sqlDate(row.updated_at),
  startedAt: dateOrNull(row.started_at),
  decidedAt: dateOrNull(row.decided_at),
});

const ownedBy = (owner: SessionOwner) => (typeof owner === 'string' ? { projectId: owner } : { projectId: owner.projectId, livemode: owner.livemode });

/** The move a forced test outcome makes from NOT_STARTED. */
const FORCED_TRIGGER = { approve: 'checks_passed', decline: 'check_failed', review: 'needs_review' } as const satisfies Record<ForcedVerdict, SessionTrigger>;

function encodeCursor(session: VerificationSession): string {
  return Buffer.from(`${session.createdAt.toISOString()}|${session.id}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || Number.isNaN(createdAt.getTime())) throw new DomainError('validation_error', 'cursor is not one this API gave out', { data: { errors: { cursor: 'invalid' } } });
  return { createdAt, id };
}

/** Runs a standalone check's steps (validate, prepare, execute) without the wallet or the standalone record. */
async function runCheck<I, P>(check: StandaloneCheck<I, P>, raw: Record<string, unknown>, context: CheckContext): Promise<CheckOutcome> {
  const outcome: CheckOutcome | CombinedOutcome = await check.execute(await check.prepare(parseInput(check.input, raw), context), context);
  if (!('check' in outcome)) throw new Error(`${check.type} returned a combined outcome inside a session`);
  return outcome;
}

export interface SessionChecks {
  idVerification: StandaloneCheck<any, any>;
  age: StandaloneCheck<any, any>;
  antispoof: StandaloneCheck<any, any>;
  faceMatch: StandaloneCheck<any, any>;
  location: StandaloneCheck<any, any>;
  credential: StandaloneCheck<any, any>;
}

export interface SessionDeps {
  orm: Orm;
  clock: Clock;
  sealer: Sealer;
  tenancy: TenancyService;
  accounts: AccountService;
  billing: BillingService;
  idempotency: IdempotencyService;
  webhooks: WebhookService;
  checks: SessionChecks;
  challenges: ChallengeService;
  /** Public base URL: the hosted page lives under it. */
  baseUrl: string;
  /** Where each committed move of a session is logged, for ops. */
  logger?: { info(object: object, message: string): void };
}

/** One move of a session's state machine, as ops read it in the log (ids, states, actor and reason: never identity data). */
interface SessionMove {
  session_id: string;
  project_id: string;
  from: SessionStatus;
  to: SessionStatus;
  actor: Actor;
  reason: string;
}

/** Hosted verification sessions: creation, the state machine, the hosted steps, review, expiry. */
/** How long a "continue on your phone" link can be claimed. */
export const HANDOFF_TTL_MS = 10 * 60_000;

export class SessionService {
  private readonly evidence: EvidenceStore;
  /** Polls of GET /session/{id} arriving together are read by one statement. */
  private readonly views = new StatementBatch<SessionLookup, SessionViewRow | null>((lookups) => this.readViews(lookups));

  constructor(private readonly deps: SessionDeps) {
    this.evidence = new EvidenceStore(deps.orm, deps.sealer);
  }

  private now(): Date {
    return this.deps.clock.now();
  }

  // ---- integrator API ----

  /** A new session; with an `Idempotency-Key`, a retry answers the first session (`replayed`) instead of creating (and charging) another. */
  async create(owner: SessionOwner, actor: Actor, raw: unknown, options: { idempotencyKey?: string; testOutcome?: string } = {}) {
    const { projectId, livemode = true } = ownedBy(owner);
    const forced = forcedOutcome({ livemode }, options.testOutcome);
    if (forced?.kind === 'error') throw forced.error;
    const { value, replayed } = await this.deps.idempotency.once(projectId, options.idempotencyKey, idempotencyOperation(livemode, 'session:create', options.testOutcome), raw, () =>
      this.createOnce(projectId, livemode, actor, raw, forced?.verdict),
    );
    if (!replayed) await this.deps.webhooks.dispatch(value.eventIds);
    const { eventIds: _, ...session } = value;
    return { session, replayed };
  }

  private async createOnce(projectId: string, livemode: boolean, actor: Actor, raw: unknown, forced: ForcedVerdict | undefined) {
    const input = parseInput(createSessionInput, raw);
    const workflow = await this.deps.tenancy.getWorkflow(projectId, input.workflow_id);
    if (input.callback !== undefined && !(await this.deps.tenancy.isApprovedCallback(projectId, input.callback))) {
      throw new DomainError('callback_not_allowed', 'callback must exactly match an active approved HTTPS destination of the project');
    }
    const svcId = input.svc_access_token ? await this.deps.accounts.resolveForProject(projectId, { svcAccessToken: input.svc_access_token }) : null;

    const token = newSecret('sst');
    const now = this.now();
    const id = newId('ses');
    // The debit and the session commit together: no session unpaid, no payment without a session.
    // A test key's session is never charged.
    const { session, eventIds } = await this.deps.billing.chargedTransaction(livemode ? projectId : null, 'session', id, async (em) => {
      const created = em.create(VerificationSession, {
        id,
        projectId,
        workflowId: workflow.id,
        status: 'NOT_STARTED',
        features: workflow.features,
        tokenDigest: digestSecret(token),
        redirectUrl: input.redirect_url ?? null,
        callback: input.callback ?? null,
        vendorData: input.vendor_data ?? null,
        metadata: input.metadata ?? null,
        svcId,
        livemode,
        expiresAt: new Date(now.getTime() + (input.ttl_seconds ?? SESSION_TTL.defaultSeconds) * 1000),
        createdAt: now,
        updatedAt: now,
      });
      em.create(SessionEvent, { sessionId: created.id, fromStatus: null, toStatus: transition(null, 'created'), actor, reason: 'created', at: now });
      // A forced test outcome decides at once, through the state table like any other decision.
      const eventId = forced ? await this.move(em, created, FORCED_TRIGGER[forced], actor, `test outcome: ${forced}`) : null;
      return { session: created, eventIds: eventId ? [eventId] : [] };
    });
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
    const after = cursor ? decodeCursor(cursor) : null;
    const rows = await this.deps.orm.em.fork().find(
      VerificationSession,
      {
        ...ownedBy(owner),
        ...(status ? { status } : {}),
        ...(vendorData !== undefined ? { vendorData } : {}),
        ...(after ? { $or: [{ createdAt: { $lt: after.createdAt } }, { createdAt: after.createdAt, id: { $lt: after.id } }] } : {}),
      },
      { orderBy: { createdAt: 'desc', id: 'desc' }, limit: limit + 1 },
    );
    const page = rows.slice(0, limit);
    return { sessions: page.map(sessionView), nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!) : null };
  }

  private async load(em: EntityManager, owner: SessionOwner, sessionId: string, lock = false): Promise<VerificationSession> {
    const session = await em.findOne(VerificationSession, { id: sessionId, ...ownedBy(owner) }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
    if (!session) throw new DomainError('not_found', 'session not found');
    return session;
  }

  /**
   * A session of its owner as committed, by one prepared statement: integrators poll the decision.
   * Never inside a transaction: it reads on a connection of its own.
   */
  private async read(em: EntityManager, owner: SessionOwner, sessionId: string): Promise<VerificationSession> {
    const { id, projectId, livemode } = lookupOf(owner, sessionId);
    const [row] = await preparedQuery<Record<string, unknown>>(this.deps.orm, 'session_of_owner', `select ${this.sessionColumns()} from verification_session ${OF_OWNER}`, [id, projectId, livemode]);
    if (!row) throw new DomainError('not_found', 'session not found');
    return em.map(VerificationSession, row);
  }

  /**
   * GET /session/{id}, the call integrators poll: only the columns of the view, into a plain
   * object, by one prepared statement shared by the polls that arrive together. Building an
   * entity (identity map, change-set snapshot) was a fifth of the route's CPU, for a read that
   * changes nothing.
   */
  async get(owner: SessionOwner, sessionId: string) {
    const row = await this.views.submit(lookupOf(owner, sessionId));
    if (!row) throw new DomainError('not_found', 'session not found');
    return sessionView(viewFieldsOf(row));
  }

  /** The views of several polls in one statement, each only if its caller owns it; null where not. */
  private async readViews(lookups: SessionLookup[]): Promise<(SessionViewRow | null)[]> {
    // Answered by the lookup's position: two callers may ask for one id, and only its owner gets it.
    const rows = await preparedQuery<SessionViewRow & { asked: number }>(
      this.deps.orm,
      'session_views_of_owners',
      `select asked.n::int as asked, ${SESSION_VIEW_COLUMNS} from verification_session s
       join unnest($1::varchar[], $2::varchar[], $3::boolean[]) with ordinality as asked(id, project_id, livemode, n)
         on s.id = asked.id and s.project_id = asked.project_id and (asked.livemode is null or s.livemode = asked.livemode)`,
      [lookups.map((l) => l.id), lookups.map((l) => l.projectId), lookups.map((l) => l.livemode)],
    );
    const answers: (SessionViewRow | null)[] = lookups.map(() => null);
    for (const row of rows) answers[row.asked - 1] = row;
    return answers;
  }

  /** The authoritative result: every check run, and the bound account's reusable profile. */
  async decision(owner: SessionOwner, sessionId: string): Promise<DecisionWire> {
    const em = this.deps.orm.em.fork();
    const session = await this.read(em, owner, sessionId);
    const checks = await this.checksOf(em, session.id);
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
      ...(session.svcId ? { svc_id: session.svcId, identity: await this.identityOf(session.svcId) } : {}),
      ...testMark(session),
    };
  }

  async timeline(projectId: string, sessionId: string) {
    const em = this.deps.orm.em.fork();
    await this.load(em, projectId, sessionId);
    const events = await em.find(SessionEvent, { sessionId }, { orderBy: { id: 'asc' } });
    return events.map((event) => ({ from: event.fromStatus ?? null, to: event.toStatus, actor: event.actor, reason: event.reason ?? null, at: event.at.toISOString() }));
  }

  /**
   * Manual review (PATCH status, GraphQL). Only IN_REVIEW can be decided; approval needs the
   * document read (passed or under review: that is what the reviewer rules on) and passed liveness
   * and face match. The row lock makes two reviewers deciding at once have exactly one winner.
   */
  async review(owner: SessionOwner, sessionId: string, actor: Actor, raw: unknown, note?: string) {
    const { status } = parseInput(reviewInput, raw);
    const outcome = await this.transaction(async (em) => {
      const session = await this.load(em, owner, sessionId, true);
      if (FINAL.includes(session.status)) throw new DomainError('session_closed', `session is already ${session.status}`);
      if (session.status !== 'IN_REVIEW') throw new DomainError('review_not_pending', `only IN_REVIEW sessions can be decided; this one is ${session.status}`);
      if (status === 'APPROVED') {
        const checks = await this.recordedChecks(em, session.id);
        const has = (type: string, statuses: Check['status'][]) => checks.some((check) => check.type === type && statuses.includes(check.status));
        const missing = [has('id_verification', ['passed', 'review']) ? null : 'id_verification', has('liveness', ['passed']) ? null : 'liveness', has('face_match', ['passed']) ? null : 'face_match'].filter(Boolean);
        if (missing.length) throw new DomainError('required_face_checks_incomplete', `${APPROVAL_RULE}; missing: ${missing.join(', ')}`);
      }
      const eventId = await this.move(em, session, status === 'APPROVED' ? 'reviewer_approved' : 'reviewer_declined', actor, note ? `manual review: ${note}` : 'manual review');
      return { session, eventId };
    });
    await this.deps.webhooks.dispatch(outcome.eventId ? [outcome.eventId] : []);
    return sessionView(outcome.session);
  }

  // ---- the hosted page ----

  /**
   * The session a hosted-page token opens; 401 token_missing / invalid_token otherwise. A hosted
   * request is authenticated once, and the methods below take the session it opened.
   */
  async authenticate(token: string | undefined): Promise<VerificationSession> {
    if (!token) throw new DomainError('token_missing', 'session token required');
    const em = this.deps.orm.em.fork();
    const digest = digestSecret(token);
    // Every call of the hosted page comes here, twice: one prepared statement, not the ORM's query building.
    const [row] = await preparedQuery<Record<string, unknown>>(this.deps.orm, 'session_by_token', `select ${this.sessionColumns()} from verification_session where token_digest = $1`, [digest]);
    const session = row ? em.map(VerificationSession, row) : await this.phoneSession(em, digest);
    if (!session) throw new DomainError('invalid_token', 'session token is invalid');
    return session;
  }

  private columns?: string;
  private sessionColumns(): string {
    this.columns ??= selectList(this.deps.orm, VerificationSession);
    return this.columns;
  }

  /** The session a phone opened through a claimed handoff link, by its own token's digest. */
  private async phoneSession(em: EntityManager, digest: string): Promise<VerificationSession | null> {
    const handoff = await em.findOne(SessionHandoff, { phoneTokenDigest: digest });
    return handoff ? em.findOne(VerificationSession, { id: handoff.sessionId }) : null;
  }

  /** "Continue on your phone": a one-time link to this session for another device, valid HANDOFF_TTL_MS. */
  async createHandoff(session: VerificationSession): Promise<HandoffLinkWire> {
    if (!OPEN.includes(session.status)) throw new DomainError('session_closed', 'session already closed');
    const code = newSecret('shl');
    const now = this.now();
    const expiresAt = new Date(now.getTime() + HANDOFF_TTL_MS);
    const em = this.deps.orm.em.fork();
    em.create(SessionHandoff, { id: newId('shf'), sessionId: session.id, linkDigest: digestSecret(code), createdAt: now, expiresAt });
    await em.flush();
    // Like the session link, the code rides in the fragment, never sent to a server or a log.
    return { url: `${this.deps.baseUrl}/verify/${session.id}#${code}`, expires_at: expiresAt.toISOString() };
  }

  /**
   * Claims a handoff link: exactly one claim wins (a conditional update) and gets the phone its
   * own session token; a used, expired or unknown link is invalid_token.
   */
  async claimHandoff(code: string | undefined): Promise<HandoffClaimWire> {
    if (!code) throw new DomainError('token_missing', 'handoff link code required');
    const linkDigest = digestSecret(code);
    const phoneToken = newSecret('sst');
    const now = this.now();
    const em = this.deps.orm.em.fork();
    const won = await em.nativeUpdate(SessionHandoff, { linkDigest, claimedAt: null, expiresAt: { $gt: now } }, { claimedAt: now, phoneTokenDigest: digestSecret(phoneToken) });
    if (won !== 1) throw new DomainError('invalid_token', 'this continue-on-phone link was already used or has expired');
    const handoff = await em.findOneOrFail(SessionHandoff, { linkDigest });
    return { session_id: handoff.sessionId, session_token: phoneToken };
  }

  private async branding(projectId: string) {
    const branding = await this.deps.tenancy.projectBranding(projectId);
    return { project_name: branding.name, privacy_policy_url: branding.privacyPolicyUrl, logo: branding.hasLogo };
  }

  /** The logo of the session's project (PNG), for the hosted page; not_found when it has none. */
  async logo(session: VerificationSession): Promise<Buffer> {
    const logo = await this.deps.tenancy.projectLogo(session.projectId);
    if (!logo) throw new DomainError('not_found', 'this project has no logo');
    return logo;
  }

  /** What the page shows: the steps, which are done, and where to go at the end (`checks`: when the caller has just read them). */
  async flowState(session: VerificationSession, known?: readonly Check[]): Promise<HostedFlowWire> {
    const checks = known ?? (await this.checksOf(this.deps.orm.em.fork(), session.id));
    const done = this.workOf(session).stepsDone ?? [];
    const closed = !OPEN.includes(session.status);
    const steps = stepsOf(session.features).map((step) => ({ step, done: closed || done.includes(step) }));
    return {
      session_id: session.id,
      status: session.status,
      // Whom the person verifies for: the start screen names them, with their logo and privacy policy.
      ...(await this.branding(session.projectId)),
      features: session.features,
      steps,
      checks: checks.map((check) => ({ type: check.type, status: check.status, error: check.error })),
      expires_at: session.expiresAt.toISOString(),
      geofence: session.metadata?.expected_lat !== undefined,
      finished: closed,
      // A hint only: integrators read the decision endpoint for the result.
      redirect_to: closed && session.redirectUrl ? this.redirectWithStatus(session.redirectUrl, session.status) : null,
    };
  }

  private redirectWithStatus(redirectUrl: string, status: SessionStatus): string {
    const url = new URL(redirectUrl);
    url.searchParams.set('status', status);
    return url.toString();
  }

  /** The person opened the page: NOT_STARTED becomes IN_PROGRESS (once); reusable checks are filled in. */
  async start(session: VerificationSession) {
    this.assertNotLapsed(session);
    return this.flowState(await this.open(session));
  }

  /**
   * NOT_STARTED becomes IN_PROGRESS; only the request that opened it fills in the reusable checks
   * (a concurrent one finds it opened). Returns the session as it now stands.
   */
  private async open(session: VerificationSession): Promise<VerificationSession> {
    if (session.status !== 'NOT_STARTED') return session;
    const opened = await this.openOnce(session);
    if (!opened) return this.load(this.deps.orm.em.fork(), session.projectId, session.id);
    return this.reuseFromAccount(opened);
  }

  /**
   * The move `opened` in one statement (every hosted session takes it, on its first step): the
   * status, the start time and the timeline entry, only while the session is still NOT_STARTED.
   * Answers the session as opened, or null when another request opened it first.
   */
  private async openOnce(session: VerificationSession): Promise<VerificationSession | null> {
    const move: SessionMove = { session_id: session.id, project_id: session.projectId, from: 'NOT_STARTED', to: transition('NOT_STARTED', 'opened'), actor: 'user', reason: 'page opened' };
    const now = this.now();
    const rows = await preparedQuery<{ id: string }>(
      this.deps.orm,
      'session_open',
      `with opened as (
         update verification_session set status = $3, started_at = $5, updated_at = $5 where id = $1 and status = $2 returning id
       ), logged as (
         insert into session_event (session_id, from_status, to_status, actor, reason, at) select id, $2, $3, $4, $6, $5 from opened
       )
       select id from opened`,
      [move.session_id, move.from, move.to, move.actor, now, move.reason],
    );
    if (rows.length === 0) return null;
    this.deps.logger?.info(move, 'session moved');
    return Object.assign(session, { status: move.to, startedAt: now, updatedAt: now });
  }

  /** A session past its deadline takes no more input, even before the sweep has moved it. */
  private assertNotLapsed(session: VerificationSession): void {
    if (OPEN.includes(session.status) && this.now() >= session.expiresAt) throw new DomainError('session_expired', 'this verification link has expired; ask for a new one');
  }

  private assertAcceptsInput(session: VerificationSession): void {
    this.assertNotLapsed(session);
    if (!OPEN.includes(session.status)) throw new DomainError('session_closed', `session is already ${session.status}`);
  }

  private contextOf(session: VerificationSession, mode: 'fresh' | 'account' = 'fresh'): CheckContext {
    return { projectId: session.projectId, mode, svcId: mode === 'account' ? (session.svcId ?? null) : null, today: this.now() };
  }

  /**
   * Bound accounts skip what they already hold: a verified identity answers the document and age
   * checks in account mode (proofs only), marked `reused: true`, unless its document has expired.
   */
  private async reuseFromAccount(session: VerificationSession): Promise<VerificationSession> {
    if (!session.svcId) return session;
    // Nothing reusable (or a document that has expired since): the person verifies fully.
    const identity = await this.deps.accounts.reusableIdentity(session.svcId, this.now()).catch(() => null);
    if (!identity) return session;
    const outcomes: CheckOutcome[] = [];
    const context = this.contextOf(session, 'account');
    if (session.features.includes('id_verification')) outcomes.push(await runCheck(this.deps.checks.idVerification, {}, context));
    if (session.features.includes('age')) {
      const outcome = await runCheck(this.deps.checks.age, { bands: [this.minAgeOf(session)] }, context);
      outcome.check.data = { ...outcome.check.data, reused: true };
      outcomes.push(outcome);
    }
    return outcomes.length ? (await this.commit(session, 'document', outcomes, { fullName: identity.fullName, dateOfBirth: identity.dateOfBirth })).session : session;
  }

  private minAgeOf(session: VerificationSession): number {
    const value = session.metadata?.min_age;
    return typeof value === 'number' ? value : 18;
  }

  /** Runs the checks of one step of the hosted page and applies the automatic decision. */
  async submitStep(authenticated: VerificationSession, step: string, input: Record<string, unknown>) {
    let session = authenticated;
    if (!(step in STEPS) || !stepsOf(session.features).includes(step as StepName)) throw new DomainError('not_found', `this session has no ${step} step`);
    this.assertAcceptsInput(session);
    session = await this.open(session);
    const work = this.workOf(session);
    const { outcomes, work: patch, images } = await this.runStep(session, step as StepName, stepFields(step as StepName, input), work);
    const fixable = fixableFailure(step as StepName, outcomes);
    if (fixable) await this.askAgainUnlessLastTry(session, step as StepName, fixable.reason, fixable.error);
    const committed = await this.commit(session, step as StepName, outcomes, patch, images);
    return this.flowState(committed.session, committed.checks);
  }

  /**
   * A try that failed for a fixable reason: counted and written in the timeline (the session stays
   * where it is), then the person is asked again with 422 `step_retry_required`, until the step's
   * last try, whose failure is recorded like any other.
   */
  private async askAgainUnlessLastTry(session: VerificationSession, step: StepName, reason: string, error: string | null): Promise<void> {
    const tries = (await this.deps.tenancy.getWorkflow(session.projectId, session.workflowId)).maxStepTries;
    const tried = await this.transaction(async (em) => {
      const locked = await this.load(em, session.projectId, session.id, true);
      this.assertAcceptsInput(locked);
      const work = this.workOf(locked);
      const count = (work.fixableTries?.[step] ?? 0) + 1;
      if (count >= tries) return count;
      work.fixableTries = { ...work.fixableTries, [step]: count };
      locked.workSealed = this.deps.sealer.seal(JSON.stringify(work));
      em.create(SessionEvent, { sessionId: locked.id, fromStatus: locked.status, toStatus: locked.status, actor: 'user', reason: `${step}: ${reason}, asked again (try ${count} of ${tries})`, at: this.now() });
      return count;
    });
    if (tried < tries) {
      throw new DomainError('step_retry_required', `${error ?? reason}. Try again (${tries - tried} ${tries - tried === 1 ? 'try' : 'tries'} left).`, { data: { step, reason, tries_left: tries - tried } });
    }
  }

  private workOf(session: VerificationSession): SessionWork {
    return session.workSealed ? (JSON.parse(this.deps.sealer.open(session.workSealed)) as SessionWork) : {};
  }

  private async runStep(session: VerificationSession, step: StepName, input: Record<string, unknown>, work: SessionWork): Promise<StepResult> {
    const has = (feature: string) => session.features.includes(feature);
    const fresh = this.contextOf(session);
    const { checks } = this.deps;
    switch (step) {
      case 'document': {
        const reading = await runCheck(checks.idVerification, { front_image: input.front_image, back_image: input.back_image }, fresh);
        const data = reading.check.data as { fields?: Record<string, string | undefined>; portrait?: string; dob?: string };
        const fields = data.fields ?? {};
        const patch: SessionWork = {
          portrait: data.portrait || undefined,
          fullName: fields.full_name,
          dateOfBirth: data.dob,
          documentNumber: fields.document_number,
          documentExpiry: fields.date_of_expiry,
        };
        const outcomes: CheckOutcome[] = [];
        if (has('id_verification')) {
          // The portrait stays in the sealed work for the face match; the record keeps the fields.
          const { portrait: _portrait, ...kept } = reading.check.data;
          outcomes.push({ ...reading, check: { ...reading.check, data: kept } });
        }
        if (has('age')) outcomes.push(await this.ageFromDocument(session, data.dob));
        const candidates: { kind: EvidenceKind; bytes: unknown }[] = [
          { kind: 'document_front', bytes: input.front_image },
          { kind: 'document_back', bytes: input.back_image },
          { kind: 'document_portrait', bytes: data.portrait ? Buffer.from(data.portrait, 'base64') : undefined },
        ];
        const images = candidates.filter((image): image is { kind: EvidenceKind; bytes: Buffer } => Buffer.isBuffer(image.bytes));
        return { outcomes, work: patch, images };
      }
      case 'selfie': {
        const frames = input.frames;
        if (!Array.isArray(frames) || frames.length === 0) throw new DomainError('validation_error', 'frames (a burst of 3 to 8 selfie images) are required', { data: { errors: { frames: 'required' } } });
        const outcomes: CheckOutcome[] = [];
        if (has('liveness')) outcomes.push(await this.livenessFromBurst(session, frames, input.challenge_id, input.captured_ms));
        // The face match uses the burst's middle frame, the one passive liveness judged.
        const selfie = frames[Math.floor((frames.length - 1) / 2)] as Buffer;
        if (has('face_match')) outcomes.push(await this.faceMatchInSession(session, selfie, work));
        return { outcomes, work: {}, images: Buffer.isBuffer(selfie) ? [{ kind: 'selfie', bytes: selfie }] : [] };
      }
      case 'location': {
        const metadata = session.metadata ?? {};
        const geofence = {
          ...(typeof metadata.expected_lat === 'number' ? { expected_latitude: metadata.expected_lat, expected_longitude: metadata.expected_lng } : {}),
          ...(typeof metadata.radius_m === 'number' ? { radius_m: metadata.radius_m } : {}),
        };
        return { outcomes: [await runCheck(checks.location, { ...input, ...geofence }, fresh)], work: {} };
      }
      case 'licence': {
        // A licence proves something only when it is the person's: it is matched against a
        // verified name when the session has one, else against the name typed in the form.
        const verified = await this.verifiedHolderName(session, work);
        if (verified) return { outcomes: [await runCheck(checks.credential, { ...input, full_name: verified, first_name: undefined, last_name: undefined }, fresh)], work: {} };
        if (!input.full_name && !(input.first_name && input.last_name)) {
          throw new DomainError('validation_error', "the licence holder's name is required (full_name, or first_name and last_name): a licence found without a name is not proof it is yours", {
            data: { errors: { full_name: 'required' } },
          });
        }
        return { outcomes: [await runCheck(checks.credential, input, fresh)], work: {} };
      }
    }
  }

  /**
   * The verified name a licence in this session must carry: the name read from the document in
   * this session, else the bound account's verified identity; null when the session has neither
   * (then the name typed in the form is matched). Any name typed is ignored when one exists.
   */
  private async verifiedHolderName(session: VerificationSession, work: SessionWork): Promise<string | null> {
    if (work.fullName) return work.fullName;
    if (session.svcId) return (await this.deps.accounts.verifiedIdentity(session.svcId))?.fullName ?? null;
    return null;
  }

  /** A gesture challenge for the selfie burst (single use, 60 s). */
  async challenge(session: VerificationSession) {
    this.assertAcceptsInput(session);
    if (!session.features.includes('liveness')) throw new DomainError('not_found', 'this session has no liveness step');
    return this.deps.challenges.create(session.projectId);
  }

  /**
   * Liveness on the hosted page: the anti-spoof burst with its gesture challenge, as the
   * session's `liveness` check. A burst judged not live may be retaken (bad light and a slow turn
   * happen); the SELFIE_ATTEMPTS-th failure is recorded, which declines the session. The page
   * sends when it took each frame (`captured_ms`, after receiving the challenge), so frames taken
   * before the challenge, or over more than a few seconds, are refused.
   */
  private async livenessFromBurst(session: VerificationSession, frames: unknown[], challengeId: unknown, capturedMs: unknown): Promise<CheckOutcome> {
    if (typeof challengeId !== 'string' || !challengeId) {
      throw new DomainError('validation_error', 'challenge_id is required: ask for a challenge, then take the burst while doing its gesture', { data: { errors: { challenge_id: 'required' } } });
    }
    if (!Array.isArray(capturedMs)) {
      throw new DomainError('validation_error', 'captured_ms is required: for each frame, the milliseconds between receiving the challenge and taking the frame', { data: { errors: { captured_ms: 'required' } } });
    }
    const { check, reason } = await runCheck(this.deps.checks.antispoof, { frames, challengeId, captured_ms: capturedMs }, this.contextOf(session));
    const liveness: Check = { type: 'liveness', status: check.status, score: check.data.live_score as number, data: check.data, error: check.error };
    if (check.status !== 'passed') {
      const failures = await this.countFailedSelfie(session);
      if (failures < SELFIE_ATTEMPTS) {
        throw new DomainError('face_rescan_required', `${check.error ?? 'the selfie could not be confirmed live'}. Try again (${SELFIE_ATTEMPTS - failures} left).`);
      }
    }
    return { check: liveness, reason };
  }

  private async countFailedSelfie(session: VerificationSession): Promise<number> {
    return this.deps.orm.em.fork().transactional(async (em) => {
      const locked = await this.load(em, session.projectId, session.id, true);
      const work = this.workOf(locked);
      work.failedSelfies = (work.failedSelfies ?? 0) + 1;
      locked.workSealed = this.deps.sealer.seal(JSON.stringify(work));
      return work.failedSelfies;
    });
  }

  private async ageFromDocument(session: VerificationSession, dob: string | undefined): Promise<CheckOutcome> {
    if (!dob) {
      return { check: { type: 'age', status: 'review', data: { dob: null, bands: {} }, error: 'the date of birth could not be read from the document' }, reason: 'dob_unreadable' };
    }
    return runCheck(this.deps.checks.age, { dob, bands: [this.minAgeOf(session)] }, this.contextOf(session));
  }

  /** Selfie against the document portrait, or against the bound account's face reference. */
  private async faceMatchInSession(session: VerificationSession, selfie: Buffer, work: SessionWork): Promise<CheckOutcome> {
    if (work.portrait) return runCheck(this.deps.checks.faceMatch, { image1: Buffer.from(work.portrait, 'base64'), image2: selfie }, this.contextOf(session));
    if (session.svcId && (await this.deps.accounts.faceReference(session.svcId))) {
      const outcome = await runCheck(this.deps.checks.faceMatch, { image2: selfie }, this.contextOf(session, 'account'));
      outcome.check.data = { ...outcome.check.data, reused: true };
      return outcome;
    }
    if (!(work.stepsDone ?? []).includes('document')) throw new DomainError('conflict', 'take the photo of the document first: the selfie is compared with its portrait');
    return { check: { type: 'face_match', status: 'failed', data: { similarity: null }, error: 'no face on the document to compare the selfie with' }, reason: 'no_reference' };
  }

  /**
   * Stores a step's checks and moves the session, under the session's row lock; returns the
   * session as committed and its checks (those recorded before, then this step's).
   */
  private async commit(session: VerificationSession, step: StepName, outcomes: CheckOutcome[], patch: SessionWork, images: StepResult['images'] = []): Promise<{ session: VerificationSession; checks: Check[] }> {
    const { locked, checks, eventId } = await this.transaction(async (em) => {
      const locked = await this.load(em, session.projectId, session.id, true);
      this.assertAcceptsInput(locked);
      const before = this.workOf(locked);
      if ((before.stepsDone ?? []).includes(step)) throw new DomainError('conflict', `the ${step} step is already complete`);
      const recorded = await this.checksOf(em, locked.id);
      const now = this.now();
      for (const { check, reason } of outcomes) {
        em.create(SessionCheck, {
          sessionId: locked.id,
          type: check.type,
          status: check.status,
          score: check.score ?? null,
          detailSealed: this.deps.sealer.seal(JSON.stringify({ data: check.data, error: check.error })),
          reason: check.status === 'passed' ? null : (reason ?? null),
          createdAt: now,
        });
      }
      this.evidence.keep(em, locked.id, images, now);
      const work: SessionWork = { ...before, ...Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)), stepsDone: [...(before.stepsDone ?? []), step] };
      locked.workSealed = this.deps.sealer.seal(JSON.stringify(work));
      locked.updatedAt = now;
      const checks = [...recorded, ...outcomes.map(({ check }) => check)];
      const next = decide(locked.features, checks);
      const failed = outcomes.find(({ check }) => check.status === 'failed');
      return { locked, checks, eventId: next ? await this.move(em, locked, next, 'system', failed ? `${failed.check.type}: ${failed.reason ?? 'failed'}` : `${step} completed`) : null };
    });
    await this.deps.webhooks.dispatch(eventId ? [eventId] : []);
    return { session: locked, checks };
  }

  /** The moves made inside each open transaction, logged once it commits. */
  private readonly movesIn = new WeakMap<EntityManager, SessionMove[]>();

  /** A transaction whose session moves are logged after it has committed: a rolled-back move (a lost race) never happened. */
  private async transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    const moves: SessionMove[] = [];
    const result = await this.deps.orm.em.fork().transactional(async (em) => {
      this.movesIn.set(em, moves);
      return work(em);
    });
    for (const move of moves) this.deps.logger?.info(move, 'session moved');
    return result;
  }

  /**
   * Moves a session along a row of the transition table (transitions.ts; any other move is a 409)
   * inside a transaction: the timeline entry, the decision fields, the webhook
   * outbox row and, for an approved bound session, the account's verified identity, all committed
   * together (a crash loses none of them). Returns the webhook event id when one is due; the
   * caller queues it after the commit.
   */
  private async move(em: EntityManager, session: VerificationSession, trigger: SessionTrigger, actor: Actor, reason: string): Promise<string | null> {
    const to = transition(session.status, trigger);
    const now = this.now();
    this.movesIn.get(em)?.push({ session_id: session.id, project_id: session.projectId, from: session.status, to, actor, reason: reason.slice(0, 200) });
    em.create(SessionEvent, { sessionId: session.id, fromStatus: session.status, toStatus: to, actor, reason: reason.slice(0, 200), at: now });
    session.status = to;
    session.updatedAt = now;
    if (to === 'IN_PROGRESS') return null;
    if (FINAL.includes(to)) {
      if (to === 'APPROVED' && session.svcId) await this.verifyAccount(em, session);
      session.decision = to;
      session.decidedAt = now;
      session.decidedBy = actor;
      // Nothing raw outlives the decision: the portrait and the read fields go in the same
      // commit (a crash right after it must not leave them behind).
      session.workSealed = null;
      if ((await this.deps.tenancy.evidenceRetentionDays(session.projectId, em)) === 0) await this.evidence.erase(em, session.id);
    }
    const lower = to.toLowerCase();
    const event = await this.deps.webhooks.record(em, session.projectId, session.id, {
      type: `verification.${lower}`,
      callback: session.callback,
      body: { type: `verification.${lower}`, session_id: session.id, status: to, vendor_data: vendorDataOnWire(session), decision: lower, occurred_at: now.toISOString(), ...testMark(session) },
    });
    return event.id;
  }

  /** An approved bound session records the document's identity on the account (sealed). */
  private async verifyAccount(em: EntityManager, session: VerificationSession): Promise<void> {
    const known = this.workOf(session);
    const date = (value: string | undefined) => (value && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined);
    if (!known.fullName?.trim() || !date(known.dateOfBirth)) return;
    const expiry = date(known.documentExpiry);
    await this.deps.accounts.recordVerifiedIdentity(
      {
        svcId: session.svcId,
        fullName: known.fullName,
        dateOfBirth: known.dateOfBirth,
        ...(known.documentNumber ? { documentNumber: known.documentNumber } : {}),
        ...(expiry ? { documentExpiry: expiry } : {}),
        humanVerified: session.features.includes('liveness') || undefined,
      },
      em,
    );
  }

  private async recordedChecks(em: EntityManager, sessionId: string): Promise<RecordedCheck[]> {
    return em.find(SessionCheck, { sessionId }, { fields: ['type', 'status'], orderBy: { id: 'asc' } });
  }

  private async checksOf(em: EntityManager, sessionId: string): Promise<Check[]> {
    const rows = await em.find(SessionCheck, { sessionId }, { orderBy: { id: 'asc' } });
    return rows.map((row) => {
      const detail = JSON.parse(this.deps.sealer.open(row.detailSealed)) as { data: Record<string, unknown>; error: string | null };
      return { type: row.type as Check['type'], status: row.status, ...(row.score != null ? { score: row.score } : {}), data: detail.data, error: detail.error };
    });
  }

  private async identityOf(svcId: string) {
    const identity = await this.deps.accounts.verifiedIdentity(svcId).catch(() => null);
    return { full_name: identity?.fullName ?? null, licenses: await this.deps.accounts.licenseSummaries(svcId) };
  }

  /**
   * DELETE /api/v2/session/{id}/data: erases the session's sealed data (the read fields and check
   * details, the work between steps) and its images now; the status, the decision and the
   * timeline stay. Idempotent: a second call answers `already_erased: true`. An open session is
   * refused (409 `conflict`): its steps still need what they left.
   */
  async eraseData(owner: SessionOwner, sessionId: string, actor: Actor): Promise<ErasedWire> {
    return this.transaction(async (em) => {
      const session = await this.load(em, owner, sessionId, true);
      if (session.dataErasedAt) return { session_id: session.id, status: session.status, erased: true, already_erased: true, erased_at: session.dataErasedAt.toISOString() };
      if (OPEN.includes(session.status)) throw new DomainError('conflict', `session is ${session.status}: erase its data once it is decided or has expired`);
      const now = this.now();
      await this.evidence.erase(em, session.id);
      const erased = this.deps.sealer.seal(JSON.stringify({ data: { erased: true }, error: null }));
      await em.nativeUpdate(SessionCheck, { sessionId: session.id }, { detailSealed: erased });
      session.workSealed = null;
      session.dataErasedAt = now;
      session.updatedAt = now;
      em.create(SessionEvent, { sessionId: session.id, fromStatus: session.status, toStatus: session.status, actor, reason: 'data erased', at: now });
      return { session_id: session.id, status: session.status, erased: true, already_erased: false, erased_at: now.toISOString() };
    });
  }

  /** The review images of a session of the project (404 for another project's session); the caller audits the read. */
  async evidenceOf(projectId: string, sessionId: string) {
    await this.load(this.deps.orm.em.fork(), projectId, sessionId);
    return this.evidence.list(sessionId);
  }

  /** Part of the sweep: deletes review images past their project's retention. */
  async purgeEvidence(): Promise<number> {
    return this.evidence.purgeExpired(this.now());
  }

  // ---- the sweep (a pg-boss job) ----

  /** Sessions past their deadline: never opened -> EXPIRED; opened, not finished -> ABANDONED. */
  async expireDue(limit = 500): Promise<number> {
    const now = this.now();
    const due = await this.deps.orm.em.fork().find(VerificationSession, { status: { $in: OPEN }, expiresAt: { $lte: now } }, { fields: ['id', 'projectId'], limit, orderBy: { expiresAt: 'asc' } });
    let moved = 0;
    for (const { id, projectId } of due) {
      const outcome = await this.transaction(async (em) => {
        const session = await this.load(em, projectId, id, true);
        if (!OPEN.includes(session.status) || session.expiresAt > now) return null;
        return { eventId: await this.move(em, session, 'deadline', 'system', 'deadline passed') };
      });
      if (outcome) {
        moved += 1;
        await this.deps.webhooks.dispatch(outcome.eventId ? [outcome.eventId] : []);
      }
    }
    return moved;
  }
}
