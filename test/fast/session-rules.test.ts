// The hosted session's rules on a fake store, in milliseconds: creation, the state machine through
// a step, a step done twice, a fixable failure asked again until its last try, review, expiry,
// erasure, a forced test outcome. The fakes are held to their stores' contracts (test/contracts/);
// the SQL is exercised by the HTTP tests (sessions, session-transitions, session-evidence) and the
// races in reliability/.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { StandaloneCheck } from '../../src/core/checks/pipeline.js';
import { ManualClock } from '../../src/core/clock.js';
import { DomainError } from '../../src/core/errors.js';
import { Sealer } from '../../src/core/secrets.js';
import {
  approvalBlockers,
  EVIDENCE_PURGE_BATCH,
  EVIDENCE_PURGE_ROUNDS,
  type SessionDeps,
  SessionService,
  stepOutcome,
} from '../../src/core/sessions/service.js';
import { SELFIE_ATTEMPTS } from '../../src/core/sessions/steps/selfie.js';
import type { SessionChecks } from '../../src/core/sessions/steps/step.js';
import type { SessionTx } from '../../src/core/sessions/store.js';
import { FakeEvidenceStore } from '../fakes/evidence-store.js';
import { FakeSessionStore } from '../fakes/session-store.js';

/** The purge scripted: `backlog` images are due, deleted up to each round's batch; the rounds asked are kept. */
class ScriptedPurgeEvidence extends FakeEvidenceStore {
  purgeRounds: number[] = [];
  backlog = 0;
  override async purgeExpired(_now: Date, limit: number): Promise<number> {
    this.purgeRounds.push(limit);
    const deleted = Math.min(limit, this.backlog);
    this.backlog -= deleted;
    return deleted;
  }
}

/** A location check that answers by the body's `source`, as the real one does for a refused prompt. */
const locationCheck: StandaloneCheck<Record<string, unknown>, Record<string, unknown>> = {
  type: 'location',
  input: z.record(z.string(), z.unknown()),
  prepare: async (input) => input,
  execute: async (input) =>
    input.source === 'permission_denied'
      ? {
          check: { type: 'location', status: 'failed', data: {}, error: 'location permission was denied' },
          reason: 'permission_denied',
        }
      : { check: { type: 'location', status: 'passed', data: { latitude: input.latitude }, error: null } },
};
/**
 * A document reader that refuses a front image reading "expired" as an expired document (fixable), and passes any
 * other.
 */
const documentCheck: StandaloneCheck<Record<string, unknown>, Record<string, unknown>> = {
  type: 'id_verification',
  input: z.record(z.string(), z.unknown()),
  prepare: async (input) => input,
  execute: async (input) =>
    String(input.front_image) === 'expired'
      ? {
          check: {
            type: 'id_verification',
            status: 'failed',
            data: { fields: {} },
            error: 'the document expired on 2020-01-01',
          },
          reason: 'expired',
        }
      : { check: { type: 'id_verification', status: 'passed', data: { fields: { full_name: 'Ada' } }, error: null } },
};
/** Anti-spoof that judges a burst live only when its first frame reads "live" (else the gesture was not seen). */
const antispoofCheck: StandaloneCheck<Record<string, unknown>, Record<string, unknown>> = {
  type: 'antispoof',
  input: z.record(z.string(), z.unknown()),
  prepare: async (input) => input,
  execute: async (input) =>
    String((input.frames as Buffer[])[0]) === 'live'
      ? { check: { type: 'antispoof', status: 'passed', data: { live_score: 1 }, error: null } }
      : {
          check: {
            type: 'antispoof',
            status: 'failed',
            data: { live_score: 1 },
            error: 'the challenge asked to smile, which the frames do not show',
          },
          reason: 'gesture_not_performed',
        },
};
const unused = new Proxy({} as StandaloneCheck<unknown, unknown>, {
  get: () => {
    throw new Error('not used here');
  },
});

function setUp(options: { features?: string[]; retentionDays?: number; supportUrl?: string } = {}) {
  const store = new FakeSessionStore();
  const evidence = new ScriptedPurgeEvidence(store);
  const clock = new ManualClock(new Date('2026-11-28T10:00:00Z'));
  const webhooks: { sessionId: string; type: string }[] = [];
  const features = options.features ?? ['location'];
  const deps: SessionDeps = {
    store,
    evidence,
    clock,
    sealer: new Sealer(Sealer.generateKey()),
    tenancy: {
      getWorkflow: async (projectId: string, id: string) => ({
        id,
        projectId,
        name: 'w',
        features,
        maxStepTries: 2,
        createdAt: '',
      }),
      isApprovedCallback: async () => true,
      evidenceRetentionDays: async () => options.retentionDays ?? 30,
      projectBranding: async () => ({
        name: 'Acme',
        privacyPolicyUrl: null,
        supportUrl: options.supportUrl ?? null,
        hasLogo: false,
      }),
    } as unknown as SessionDeps['tenancy'],
    accounts: {} as SessionDeps['accounts'],
    billing: {
      chargedTransaction: (_p: string | null, _i: string, _f: string, work: (tx: SessionTx) => Promise<unknown>) =>
        store.inTransaction(work),
    } as unknown as SessionDeps['billing'],
    idempotency: {
      once: async (_p: string, _k: string | undefined, _o: string, _r: unknown, work: () => Promise<unknown>) => ({
        value: await work(),
        replayed: false,
      }),
    } as unknown as SessionDeps['idempotency'],
    webhooks: {
      record: async (_tx: SessionTx, _projectId: string, sessionId: string, payload: { type: string }) => {
        webhooks.push({ sessionId, type: payload.type });
        return `evt_${webhooks.length}`;
      },
      dispatch: async () => {},
    } as unknown as SessionDeps['webhooks'],
    checks: {
      idVerification: documentCheck,
      age: unused,
      antispoof: antispoofCheck,
      faceMatch: unused,
      location: locationCheck,
      credential: unused,
    } as SessionChecks,
    challenges: {} as SessionDeps['challenges'],
    sandboxQuota: { spend: async () => {} },
    baseUrl: 'https://verity.test',
  };
  return { service: new SessionService(deps), store, evidence, clock, webhooks };
}

const errorCode = async (promise: Promise<unknown>) =>
  promise.then(
    () => 'no error',
    (error: unknown) => (error instanceof DomainError ? error.code : String(error)),
  );

describe('session rules on a fake store', () => {
  it('creates a NOT_STARTED session whose token is kept only as a digest, with its first timeline entry', async () => {
    const { service, store } = setUp();
    const { session } = await service.create('prj_1', 'api_key:k1', { workflow_id: 'wf_1' });
    expect(session.status).toBe('NOT_STARTED');
    const stored = store.sessions.get(session.session_id)!;
    expect(stored.tokenDigest).not.toContain(session.session_token);
    expect(session.url).toBe(`https://verity.test/verify/${session.session_id}#${session.session_token}`);
    expect(await store.timeline(session.session_id)).toEqual([
      expect.objectContaining({ fromStatus: null, toStatus: 'NOT_STARTED', actor: 'api_key:k1', reason: 'created' }),
    ]);
    expect(await service.get('prj_2', session.session_id).catch((error: DomainError) => error.code)).toBe('not_found');
  });

  it('a passing step opens the session, records its check and approves it with one webhook; nothing raw outlives the decision', async () => {
    const { service, store, webhooks } = setUp();
    const { session } = await service.create('prj_1', 'api_key:k1', { workflow_id: 'wf_1' });
    const hosted = await service.authenticate(session.session_token);
    const flow = await service.submitStep(hosted, 'location', { latitude: 1, longitude: 2, source: 'gps' });
    expect(flow).toMatchObject({
      status: 'APPROVED',
      finished: true,
      checks: [{ type: 'location', status: 'passed' }],
    });
    expect((await store.timeline(session.session_id)).map((event) => `${event.fromStatus}>${event.toStatus}`)).toEqual([
      'null>NOT_STARTED',
      'NOT_STARTED>IN_PROGRESS',
      'IN_PROGRESS>APPROVED',
    ]);
    expect(webhooks).toEqual([{ sessionId: session.session_id, type: 'verification.approved' }]);
    const stored = store.sessions.get(session.session_id)!;
    expect(stored).toMatchObject({ decision: 'APPROVED', decidedBy: 'system', workSealed: null });
    const decision = await service.decision({ projectId: 'prj_1', livemode: true }, session.session_id);
    expect(decision.checks).toEqual([{ type: 'location', status: 'passed', data: { latitude: 1 }, error: null }]);
  });

  it('a step already done is a conflict, and a closed session takes no more input', async () => {
    const { service } = setUp({ features: ['location', 'licence'] });
    const { session } = await service.create('prj_1', 'api_key:k1', { workflow_id: 'wf_1' });
    const hosted = await service.authenticate(session.session_token);
    await service.submitStep(hosted, 'location', { latitude: 1, longitude: 2, source: 'gps' });
    expect(
      await errorCode(
        service.submitStep(await service.authenticate(session.session_token), 'location', {
          latitude: 1,
          longitude: 2,
        }),
      ),
    ).toBe('conflict');
  });

  it('a fixable failure is asked again until the last try, whose failure declines the session', async () => {
    const { service, store } = setUp();
    const { session } = await service.create('prj_1', 'api_key:k1', { workflow_id: 'wf_1' });
    const denied = async () =>
      service.submitStep(await service.authenticate(session.session_token), 'location', {
        source: 'permission_denied',
      });
    expect(await errorCode(denied())).toBe('step_retry_required');
    expect(store.sessions.get(session.session_id)!.status).toBe('IN_PROGRESS');
    expect(await denied()).toMatchObject({ status: 'DECLINED', checks: [{ type: 'location', status: 'failed' }] });
    expect((await store.timeline(session.session_id)).map((event) => event.reason)).toEqual([
      'created',
      'page opened',
      'location: permission_denied, asked again (try 1 of 2)',
      'location: permission_denied',
    ]);
  });

  it('review decides only IN_REVIEW, and approval needs the face checks', async () => {
    const { service, store } = setUp();
    const { session } = await service.create('prj_1', 'api_key:k1', { workflow_id: 'wf_1' });
    expect(await errorCode(service.review('prj_1', session.session_id, 'admin:a1', { status: 'APPROVED' }))).toBe(
      'review_not_pending',
    );
    store.sessions.get(session.session_id)!.status = 'IN_REVIEW';
    expect(await errorCode(service.review('prj_1', session.session_id, 'admin:a1', { status: 'APPROVED' }))).toBe(
      'required_face_checks_incomplete',
    );
    expect(
      await service.review('prj_1', session.session_id, 'admin:a1', { status: 'DECLINED' }, 'blurry'),
    ).toMatchObject({ status: 'DECLINED' });
    expect(store.sessions.get(session.session_id)).toMatchObject({ decision: 'DECLINED', decidedBy: 'admin:a1' });
    expect(await errorCode(service.review('prj_1', session.session_id, 'admin:a1', { status: 'APPROVED' }))).toBe(
      'session_closed',
    );
  });

  it('the sweep expires a session never opened and abandons one opened, and a lapsed link takes no input', async () => {
    const { service, store, clock } = setUp({ features: ['location', 'licence'] });
    const never = (await service.create('prj_1', 'api_key:k1', { workflow_id: 'wf_1', ttl_seconds: 300 })).session;
    const opened = (await service.create('prj_1', 'api_key:k1', { workflow_id: 'wf_1', ttl_seconds: 300 })).session;
    await service.start(await service.authenticate(opened.session_token));
    clock.advance(301_000);
    expect(
      await errorCode(
        service.submitStep(await service.authenticate(never.session_token), 'location', { latitude: 1, longitude: 2 }),
      ),
    ).toBe('session_expired');
    expect(await service.expireDue()).toBe(2);
    expect(store.sessions.get(never.session_id)!.status).toBe('EXPIRED');
    expect(store.sessions.get(opened.session_id)!.status).toBe('ABANDONED');
    expect(await service.expireDue()).toBe(0);
  });

  it('the sweep works in bounded batches: a purge backlog goes in rounds over several sweeps, and at most a batch of due sessions a run', async () => {
    const { service, store, evidence, clock } = setUp();
    evidence.backlog = EVIDENCE_PURGE_BATCH * EVIDENCE_PURGE_ROUNDS * 2 + 7;
    expect(await service.purgeEvidence()).toBe(EVIDENCE_PURGE_BATCH * EVIDENCE_PURGE_ROUNDS);
    expect(evidence.purgeRounds).toEqual(Array(EVIDENCE_PURGE_ROUNDS).fill(EVIDENCE_PURGE_BATCH));
    expect(await service.purgeEvidence()).toBe(EVIDENCE_PURGE_BATCH * EVIDENCE_PURGE_ROUNDS);
    expect(await service.purgeEvidence()).toBe(7);
    // The last round came back short: nothing more is due, so that sweep asked no further.
    expect(evidence.purgeRounds.length).toBe(2 * EVIDENCE_PURGE_ROUNDS + 1);

    for (let i = 0; i < 5; i++) await service.create('prj_1', 'api_key:k1', { workflow_id: 'wf_1', ttl_seconds: 300 });
    clock.advance(301_000);
    expect(await service.expireDue(3)).toBe(3);
    expect(await service.expireDue(3)).toBe(2);
    expect([...store.sessions.values()].map((session) => session.status)).toEqual(Array(5).fill('EXPIRED'));
  });

  it('erasure is refused while open, then wipes the check details and images once, and says so the second time', async () => {
    const { service, store, evidence } = setUp({ features: ['location', 'licence'] });
    const { session } = await service.create('prj_1', 'api_key:k1', { workflow_id: 'wf_1' });
    await service.submitStep(await service.authenticate(session.session_token), 'location', {
      latitude: 1,
      longitude: 2,
    });
    await store.transaction((tx) =>
      evidence.keep(tx, session.session_id, [{ kind: 'selfie', bytes: Buffer.from('x') }], 1, new Date()),
    );
    expect(await errorCode(service.eraseData('prj_1', session.session_id, 'admin:a1'))).toBe('conflict');
    store.sessions.get(session.session_id)!.status = 'DECLINED';
    expect(await service.eraseData('prj_1', session.session_id, 'admin:a1')).toMatchObject({
      erased: true,
      already_erased: false,
    });
    expect((await service.decision('prj_1', session.session_id)).checks).toEqual([
      { type: 'location', status: 'passed', data: { erased: true }, error: null },
    ]);
    expect(evidence.images.has(session.session_id)).toBe(false);
    expect(await service.eraseData('prj_1', session.session_id, 'admin:a1')).toMatchObject({ already_erased: true });
  });

  it('a forced test outcome decides at creation through the state table, with its webhook', async () => {
    const { service, store, webhooks } = setUp();
    const { session } = await service.create(
      { projectId: 'prj_1', livemode: false },
      'api_key:k1',
      { workflow_id: 'wf_1' },
      { testOutcome: 'decline' },
    );
    expect(session).toMatchObject({ status: 'DECLINED', livemode: false });
    expect((await store.timeline(session.session_id)).map((event) => event.toStatus)).toEqual([
      'NOT_STARTED',
      'DECLINED',
    ]);
    expect(webhooks).toEqual([{ sessionId: session.session_id, type: 'verification.declined' }]);
    expect(await errorCode(service.get({ projectId: 'prj_1', livemode: true }, session.session_id))).toBe('not_found');
  });

  it('a handoff link is claimed once, and the phone token opens the same session', async () => {
    const { service, clock } = setUp();
    const { session } = await service.create('prj_1', 'api_key:k1', { workflow_id: 'wf_1' });
    const link = await service.createHandoff(await service.authenticate(session.session_token));
    const code = link.url.split('#')[1];
    const claim = await service.claimHandoff(code);
    expect((await service.authenticate(claim.session_token)).id).toBe(session.session_id);
    expect(await errorCode(service.claimHandoff(code))).toBe('invalid_token');
    const late = await service.createHandoff(await service.authenticate(session.session_token));
    clock.advance(11 * 60_000);
    expect(await errorCode(service.claimHandoff(late.url.split('#')[1]))).toBe('invalid_token');
  });

  it('approval blockers: the checks of the approval rule the session lacks (the document may be in review)', () => {
    expect(approvalBlockers([])).toEqual(['id_verification', 'liveness', 'face_match']);
    expect(
      approvalBlockers([
        { type: 'id_verification', status: 'review' },
        { type: 'liveness', status: 'passed' },
        { type: 'face_match', status: 'failed' },
      ]),
    ).toEqual(['face_match']);
    expect(
      approvalBlockers([
        { type: 'id_verification', status: 'passed' },
        { type: 'liveness', status: 'passed' },
        { type: 'face_match', status: 'passed' },
      ]),
    ).toEqual([]);
  });

  it("a step's outcome is its checks' worst status; a step the session closed before is not_run; one to do is null", () => {
    const checks = [
      { type: 'id_verification', status: 'passed' as const },
      { type: 'age', status: 'review' as const },
      { type: 'liveness', status: 'failed' as const },
    ];
    expect(stepOutcome('document', true, false, checks)).toBe('review');
    expect(stepOutcome('selfie', true, true, checks)).toBe('failed');
    expect(stepOutcome('location', false, true, checks)).toBe('not_run');
    expect(stepOutcome('location', false, false, checks)).toBeNull();
  });

  it('the flow state says how each step ended, how long photos are kept, the support link and test mode', async () => {
    const { service } = setUp({
      features: ['location', 'credential'],
      retentionDays: 14,
      supportUrl: 'mailto:help@acme.example',
    });
    const { session } = await service.create({ projectId: 'prj_1', livemode: false }, 'api_key:k1', {
      workflow_id: 'wf_1',
    });
    const denied = async () =>
      service.submitStep(await service.authenticate(session.session_token), 'location', {
        source: 'permission_denied',
      });
    expect(await errorCode(denied())).toBe('step_retry_required');
    const declined = await denied();
    expect(declined).toMatchObject({
      status: 'DECLINED',
      retention_days: 14,
      support_url: 'mailto:help@acme.example',
      livemode: false,
      continued_on_phone: false,
    });
    expect(declined.steps).toEqual([
      { step: 'location', done: true, outcome: 'failed' },
      { step: 'licence', done: true, outcome: 'not_run' },
    ]);
  });

  it('the laptop learns that the phone took over once a handoff link is claimed', async () => {
    const { service } = setUp();
    const { session } = await service.create('prj_1', 'api_key:k1', { workflow_id: 'wf_1' });
    const laptop = await service.authenticate(session.session_token);
    expect((await service.flowState(laptop)).continued_on_phone).toBe(false);
    const link = await service.createHandoff(laptop);
    await service.claimHandoff(link.url.split('#')[1]);
    expect((await service.flowState(laptop)).continued_on_phone).toBe(true);
  });

  it("a test session's page picks its outcome through the state table (with the webhook); errors answer themselves; live sessions have no picker", async () => {
    const { service, store, webhooks } = setUp();
    const test = (await service.create({ projectId: 'prj_1', livemode: false }, 'api_key:k1', { workflow_id: 'wf_1' }))
      .session;
    const hosted = await service.authenticate(test.session_token);
    expect(await errorCode(service.pickTestOutcome(hosted, { outcome: 'rate_limited' }))).toBe('rate_limited');
    expect(await errorCode(service.pickTestOutcome(hosted, { outcome: 'aprove' }))).toBe('validation_error');
    expect(await errorCode(service.pickTestOutcome(hosted, {}))).toBe('validation_error');
    const picked = await service.pickTestOutcome(hosted, { outcome: 'review' });
    expect(picked).toMatchObject({
      status: 'IN_REVIEW',
      finished: true,
      livemode: false,
      steps: [{ step: 'location', done: true, outcome: 'not_run' }],
    });
    expect((await store.timeline(test.session_id)).map((event) => [event.toStatus, event.actor, event.reason])).toEqual(
      [
        ['NOT_STARTED', 'api_key:k1', 'created'],
        ['IN_REVIEW', 'user', 'test outcome: review (picked on the hosted page)'],
      ],
    );
    expect(webhooks).toEqual([{ sessionId: test.session_id, type: 'verification.in_review' }]);
    expect(
      await errorCode(service.pickTestOutcome(await service.authenticate(test.session_token), { outcome: 'approve' })),
    ).toBe('session_closed');
    const live = (await service.create('prj_1', 'api_key:k1', { workflow_id: 'wf_1' })).session;
    expect(
      await errorCode(service.pickTestOutcome(await service.authenticate(live.session_token), { outcome: 'approve' })),
    ).toBe('not_found');
    expect(store.sessions.get(live.session_id)!.status).toBe('NOT_STARTED');
  });

  it("every document try keeps its images, numbered by try, and the refused one's reason is in the timeline", async () => {
    const { service, store, evidence } = setUp({ features: ['id_verification'] });
    const { session } = await service.create('prj_1', 'api_key:k1', { workflow_id: 'wf_1' });
    const send = async (front: string) =>
      service.submitStep(await service.authenticate(session.session_token), 'document', {
        front_image: Buffer.from(front),
      });
    expect(await errorCode(send('expired'))).toBe('step_retry_required');
    expect(await send('valid')).toMatchObject({ status: 'APPROVED' });
    expect(
      evidence.images.get(session.session_id)!.map((image) => [image.kind, image.attempt, String(image.bytes)]),
    ).toEqual([
      ['document_front', 1, 'expired'],
      ['document_front', 2, 'valid'],
    ]);
    expect((await store.timeline(session.session_id)).map((event) => event.reason)).toContain(
      'document: expired, asked again (try 1 of 2)',
    );
  });

  it('a selfie asked again is in the timeline with its reason and keeps its frame; the page gets the reason code and the tries left', async () => {
    const { service, store, evidence } = setUp({ features: ['liveness'] });
    const { session } = await service.create('prj_1', 'api_key:k1', { workflow_id: 'wf_1' });
    const burst = (first: string) => ({
      frames: [Buffer.from(first), Buffer.from(`${first}-2`), Buffer.from(`${first}-3`)],
      challenge_id: 'chl_1',
      captured_ms: [0, 400, 800],
    });
    const send = async (first: string) =>
      service.submitStep(await service.authenticate(session.session_token), 'selfie', burst(first));
    const refused = await send('still').catch((error: DomainError) => error);
    expect(refused).toMatchObject({
      code: 'face_rescan_required',
      data: { step: 'selfie', reason: 'gesture_not_performed', tries_left: 2 },
    });
    expect(await send('live')).toMatchObject({ status: 'APPROVED' });
    expect((await store.timeline(session.session_id)).map((event) => event.reason)).toContain(
      `selfie: gesture_not_performed, retake asked (try 1 of ${SELFIE_ATTEMPTS})`,
    );
    expect(
      evidence.images.get(session.session_id)!.map((image) => [image.kind, image.attempt, String(image.bytes)]),
    ).toEqual([
      ['selfie', 1, 'still-2'],
      ['selfie', 2, 'live-2'],
    ]);
  });
});
