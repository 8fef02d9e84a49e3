import type { Request, Response } from 'express';
import { z } from 'zod';
import type { Core } from '../../core/index.js';
import type { ErrorCode } from '../../core/errors.js';
import { challengeWire } from '../../core/checks/views.js';
import {
  createdSessionWire as created,
  decisionWire as decision,
  erasedWire,
  handoffClaimWire as handoffClaim,
  handoffLinkWire as handoffLink,
  hostedFlowWire as hostedFlow,
  sessionWire as session,
} from '../../core/sessions/views.js';
import type { SessionRecord } from '../../core/sessions/store.js';
import { createSessionInput, listSessionsInput, reviewInput, STEP_INPUTS, testOutcomeInput } from '../../core/sessions/inputs.js';
import { sendData } from '../envelope.js';
import type { ApiKeyCaller } from '../auth.js';
import { TEST_OUTCOME_HEADER } from '../../core/sandbox.js';
import { checkBody, type FieldKinds, jsonBody } from '../input.js';
import { oneUploadPerSession, stepUploadRules } from '../step-uploads.js';
import { EXAMPLE_JPEG, testOutcomeHeader, type ApiDocs } from '../openapi.js';
import { caseSensitiveRouter } from '../router.js';

const AUTH_ERRORS: ErrorCode[] = ['invalid_api_key', 'rate_limited'];

/** A new session as the document's examples show it. */
const SESSION_EXAMPLE = {
  session_id: 'ses_9f8e7d6c5b4a39281a0b2c3d',
  status: 'NOT_STARTED',
  workflow_id: 'wf_3c1d2e4f5a6b7c8d9e0f1a2b',
  features: ['id_verification', 'liveness', 'face_match'],
  vendor_data: 'applicant-8841',
  redirect_url: 'https://clinic.example/onboarding/done',
  callback: null,
  svc_id: null,
  expires_at: '2026-11-27T10:00:00.000Z',
  created_at: '2026-11-27T09:00:00.000Z',
  updated_at: '2026-11-27T09:00:00.000Z',
  started_at: null,
  decided_at: null,
};

/** The hosted page's view of an open session, as the document's examples show it. */
const HOSTED_FLOW_EXAMPLE = {
  session_id: 'ses_9f8e7d6c5b4a39281a0b2c3d',
  status: 'IN_PROGRESS',
  project_name: 'Bayside Home Health',
  privacy_policy_url: 'https://bayside.example/privacy',
  support_url: 'mailto:help@bayside.example',
  retention_days: 30,
  logo: true,
  features: ['id_verification', 'liveness', 'face_match'],
  steps: [
    { step: 'document', done: false, outcome: null },
    { step: 'selfie', done: false, outcome: null },
  ],
  continued_on_phone: false,
  checks: [],
  expires_at: '2026-11-27T10:00:00.000Z',
  geofence: false,
  finished: false,
  redirect_to: null,
};

/** Each hosted step's body as the document shows it: what it is for, and an example. */
const STEP_DOCS: Record<keyof typeof STEP_INPUTS, { description: string; example: Record<string, unknown> }> = {
  document: {
    description: 'The ID document: front_image, and back_image where the barcode of a North American licence is on the back',
    example: { front_image: EXAMPLE_JPEG, back_image: EXAMPLE_JPEG },
  },
  selfie: {
    description:
      'A burst of 3 to 8 frames taken while doing the gesture; challenge_id (POST /api/hosted/session/challenge) and captured_ms (per frame, ms after the challenge arrived) are required where the workflow has liveness, and as multipart/form-data come before the frames (the challenge is checked before any frame is read)',
    example: { frames: [EXAMPLE_JPEG, EXAMPLE_JPEG, EXAMPLE_JPEG, EXAMPLE_JPEG, EXAMPLE_JPEG, EXAMPLE_JPEG], challenge_id: 'chl_0e2c4a6b8d1f3e5a7c9b0d2f', captured_ms: [900, 1180, 1460, 1740, 2020, 2300] },
  },
  location: {
    description: "The browser's fix, or source permission_denied (with error) when it was refused; the expected point and radius come from the session's metadata",
    example: { latitude: 37.7793, longitude: -122.4193, accuracy: 12, source: 'gps', captured_at: '2026-11-27T09:03:12Z' },
  },
  licence: {
    description:
      "State and board (license_state or state; license_type or provider_code), the number (license_number or license_no) and npi where the board asks for it; the holder's name (full_name, or first_name and last_name) is required when the session has no verified name, and ignored when it has one",
    example: { license_state: 'CA', provider_code: 'ca_brn', license_number: '648213', first_name: 'Dana', last_name: 'Whitfield' },
  },
};

/** A step's declared body, closed, so that exactly one step's schema fits a body. */
const documentedStep = (step: keyof typeof STEP_INPUTS) => STEP_INPUTS[step].strict().meta({ title: `${step} step`, description: STEP_DOCS[step].description, examples: [STEP_DOCS[step].example] });

/** The fields of every step's body by kind (images, lists, numbers), for reading JSON and multipart alike. */
const STEP_FIELDS: FieldKinds = { images: ['front_image', 'back_image'], imageArrays: ['frames'], arrays: ['captured_ms'], numbers: ['latitude', 'longitude', 'accuracy'] };

/** POST /api/hosted/session/steps/{step}: the body depends on the step (the path), one schema each. */
const stepBody = z.xor([documentedStep('document'), documentedStep('selfie'), documentedStep('location'), documentedStep('licence')]);

/** `/api/v2/session`: the integrator's side of hosted verification. */
export function sessionsRouter(core: Core, docs: ApiDocs) {
  const router = caseSensitiveRouter();
  const caller = (res: { locals: Record<string, unknown> }) => res.locals.apiKey as ApiKeyCaller;
  const id = (req: Request) => String(req.params.id);

  router.post('/session', async (req, res) => {
    const owner = caller(res);
    const { session, replayed } = await core.sessions.create(owner, `api_key:${owner.apiKeyId}`, req.body ?? {}, { idempotencyKey: req.get('idempotency-key') ?? undefined, testOutcome: req.get(TEST_OUTCOME_HEADER) });
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    sendData(res, session, 201);
  });
  router.get('/session', async (req, res) => {
    const page = await core.sessions.list(caller(res), req.query);
    if (page.nextCursor) res.setHeader('X-Next-Cursor', page.nextCursor);
    sendData(res, page.sessions);
  });
  router.get('/session/:id', async (req, res) => {
    sendData(res, await core.sessions.get(caller(res), id(req)));
  });
  router.get('/session/:id/decision', async (req, res) => {
    sendData(res, await core.sessions.decision(caller(res), id(req)));
  });
  router.patch('/session/:id/status', async (req, res) => {
    const owner = caller(res);
    sendData(res, await core.sessions.review(owner, id(req), `api_key:${owner.apiKeyId}`, req.body ?? {}));
  });
  router.delete('/session/:id/data', async (req, res) => {
    const owner = caller(res);
    sendData(res, await core.sessions.eraseData(owner, id(req), `api_key:${owner.apiKeyId}`));
  });

  docs.add(
    {
      method: 'delete',
      path: '/api/v2/session/{id}/data',
      summary: "Erase the session's sealed data (read fields, check details) and review images now; the status, decision and timeline stay. Idempotent",
      tag: 'sessions',
      security: 'apiKey',
      response: erasedWire,
      errors: [...AUTH_ERRORS, 'not_found', 'conflict'],
      examples: { response: { session_id: SESSION_EXAMPLE.session_id, status: 'APPROVED', erased: true, already_erased: false, erased_at: '2026-11-27T11:02:19.000Z' } },
    },
    {
      method: 'post',
      path: '/api/v2/session',
      summary: 'Create a hosted verification session; send the user to `url`',
      tag: 'sessions',
      security: 'apiKey',
      body: createSessionInput,
      response: created,
      headers: [testOutcomeHeader],
      successStatus: 201,
      examples: {
        request: { workflow_id: 'wf_3c1d2e4f5a6b7c8d9e0f1a2b', vendor_data: 'applicant-8841', redirect_url: 'https://clinic.example/onboarding/done', ttl_seconds: 3600 },
        response: {
          ...SESSION_EXAMPLE,
          url: 'https://verity.example/verify/ses_9f8e7d6c5b4a39281a0b2c3d#st_Qm9vZ2llV29vZ2llMTIz',
          session_token: 'st_Qm9vZ2llV29vZ2llMTIz',
        },
      },
      errors: [...AUTH_ERRORS, 'validation_error', 'workflow_not_found', 'callback_not_allowed', 'insufficient_balance', 'invalid_token', 'account_not_found', 'idempotency_key_reused', 'idempotency_in_progress'],
    },
    {
      method: 'get',
      path: '/api/v2/session',
      summary: "List sessions, newest first; the next page's `cursor` is in the X-Next-Cursor header",
      tag: 'sessions',
      security: 'apiKey',
      query: listSessionsInput,
      response: z.array(session),
      errors: [...AUTH_ERRORS, 'validation_error'],
      examples: {
        response: [
          { ...SESSION_EXAMPLE, status: 'APPROVED', started_at: '2026-11-27T09:01:12.000Z', decided_at: '2026-11-27T09:04:51.000Z', updated_at: '2026-11-27T09:04:51.000Z' },
          {
            ...SESSION_EXAMPLE,
            session_id: 'ses_1e3a5c7b9d0f2a4c6e8b0d2f',
            vendor_data: 'applicant-8839',
            expires_at: '2026-11-27T09:30:00.000Z',
            created_at: '2026-11-27T08:30:00.000Z',
            updated_at: '2026-11-27T08:30:00.000Z',
          },
        ],
      },
    },
    {
      method: 'get',
      path: '/api/v2/session/{id}',
      summary: "The session's current state (poll it while the user works)",
      tag: 'sessions',
      security: 'apiKey',
      response: session,
      errors: [...AUTH_ERRORS, 'not_found'],
      examples: { response: { ...SESSION_EXAMPLE, status: 'IN_PROGRESS', started_at: '2026-11-27T09:01:12.000Z', updated_at: '2026-11-27T09:01:12.000Z' } },
    },
    {
      method: 'get',
      path: '/api/v2/session/{id}/decision',
      summary: 'The authoritative decision with every check run',
      tag: 'sessions',
      security: 'apiKey',
      response: decision,
      errors: [...AUTH_ERRORS, 'not_found'],
      examples: {
        response: {
          session_id: SESSION_EXAMPLE.session_id,
          status: 'APPROVED',
          decision: 'approved',
          decided_at: '2026-11-27T09:04:51.000Z',
          decided_by: 'system',
          workflow_id: SESSION_EXAMPLE.workflow_id,
          features: SESSION_EXAMPLE.features,
          vendor_data: SESSION_EXAMPLE.vendor_data,
          checks: [
            { type: 'id_verification', status: 'passed', score: 0.97, data: { document_type: 'driver_license', issuing_state: 'CA' }, error: null },
            { type: 'liveness', status: 'passed', score: 1, data: { live_score: 1, result: 'live' }, error: null },
            { type: 'face_match', status: 'passed', score: 0.9, data: { similarity: 0.9, match: true }, error: null },
          ],
        },
      },
    },
    {
      method: 'patch',
      path: '/api/v2/session/{id}/status',
      summary: 'Manual review: approve or decline a session IN_REVIEW',
      tag: 'sessions',
      security: 'apiKey',
      body: reviewInput,
      response: session,
      examples: {
        request: { status: 'APPROVED' },
        response: { ...SESSION_EXAMPLE, status: 'APPROVED', started_at: '2026-11-27T09:01:12.000Z', decided_at: '2026-11-27T09:20:40.000Z', updated_at: '2026-11-27T09:20:40.000Z' },
      },
      errors: [...AUTH_ERRORS, 'validation_error', 'not_found', 'review_not_pending', 'required_face_checks_incomplete', 'session_closed'],
    },
  );
  return router;
}

/** The hosted page's token: `X-Session-Token` (or `Authorization: Session <token>`). */
function sessionToken(req: Request): string | undefined {
  const header = req.get('x-session-token');
  if (header) return header.trim();
  return /^Session\s+(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
}

/** The session the hosted router's first handler authenticated for this request. */
function hostedSession(res: Response): SessionRecord {
  return res.locals.hostedSession as SessionRecord;
}

/**
 * `/api/hosted/session`: what the hosted page calls, authenticated by the session token alone
 * (never the API key, which must not reach a browser).
 */
export function hostedSessionRouter(core: Core, docs: ApiDocs) {
  const router = caseSensitiveRouter();
  // Every hosted call counts against its address and its session before any body is read (the
  // page needs a few dozen calls; a script with a leaked token gets 429), and is authenticated
  // first: a stranger's upload is refused unread.
  // The phone's side of "continue on your phone": the link's code (in X-Session-Token) is spent
  // for a session token of its own. Counted per address like every hosted call; no session yet.
  router.post('/handoff/claim', async (req, res) => {
    await core.hostedRateLimits.perAddress.consume(req.socket.remoteAddress ?? 'unknown');
    sendData(res, await core.sessions.claimHandoff(sessionToken(req)));
  });
  router.use(async (req, res, next) => {
    await core.hostedRateLimits.perAddress.consume(req.socket.remoteAddress ?? 'unknown');
    const session = await core.sessions.authenticate(sessionToken(req));
    res.locals.hostedSession = session;
    // Counted per session, not per token: each continue-on-phone link claimed is another token
    // of the same session, and must not be another allowance.
    await core.hostedRateLimits.perSession.consume(session.id);
    next();
  });
  router.get('/session', async (_req, res) => {
    sendData(res, await core.sessions.flowState(hostedSession(res)));
  });
  router.post('/session/start', async (_req, res) => {
    sendData(res, await core.sessions.start(hostedSession(res)));
  });
  // The logo from our own origin, always a PNG we encoded: never sniffed as anything else.
  router.get('/session/logo', async (_req, res) => {
    const png = await core.sessions.logo(hostedSession(res));
    res.set({ 'Content-Type': 'image/png', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'private, max-age=300', 'Content-Disposition': 'inline' }).send(png);
  });
  router.post('/session/handoff', async (_req, res) => {
    sendData(res, await core.sessions.createHandoff(hostedSession(res)));
  });
  router.post('/session/challenge', async (_req, res) => {
    sendData(res, await core.sessions.challenge(hostedSession(res)));
  });
  // Test mode: a test session's page may pick its outcome instead of running the models.
  router.post('/session/test-outcome', ...jsonBody('4kb'), async (req, res) => {
    sendData(res, await core.sessions.pickTestOutcome(hostedSession(res), req.body ?? {}));
  });
  // Before a byte of the body is read: the step is one this open session still takes, and no other
  // upload of the session is being read. The body is then read within the step's limits.
  const uploads = oneUploadPerSession(hostedSession);
  router.post(
    '/session/steps/:step',
    (req, res, next) => {
      core.sessions.assertStepAccepts(hostedSession(res), String(req.params.step));
      next();
    },
    uploads.claim,
    checkBody(STEP_FIELDS, (req, res) => stepUploadRules(core, hostedSession(res), String(req.params.step))),
    async (req, res) => {
      const flow = await uploads.runningStep(res, () => core.sessions.submitStep(hostedSession(res), String(req.params.step), res.locals.input as Record<string, unknown>));
      sendData(res, flow);
    },
  );
  router.get('/credential/states', async (_req, res) => {
    sendData(res, { states: await core.credentials.states() });
  });
  router.get('/credential/states/:state/providers', async (req, res) => {
    sendData(res, { providers: await core.credentials.providers(String(req.params.state)) });
  });
  // Every hosted call counts against its session's and its address's per-minute limits (429 rate_limited).
  const errors: ErrorCode[] = ['token_missing', 'invalid_token', 'rate_limited'];
  docs.add(
    {
      method: 'get',
      path: '/api/hosted/session',
      summary: "Hosted page: the session's steps and state (X-Session-Token)",
      tag: 'hosted page',
      security: 'none',
      response: hostedFlow,
      errors,
      examples: { response: HOSTED_FLOW_EXAMPLE },
    },
    {
      method: 'post',
      path: '/api/hosted/session/start',
      summary: 'Hosted page: the person opened the page (NOT_STARTED -> IN_PROGRESS)',
      tag: 'hosted page',
      security: 'none',
      response: hostedFlow,
      errors: [...errors, 'session_expired'],
      examples: { response: HOSTED_FLOW_EXAMPLE },
    },
    {
      method: 'get',
      path: '/api/hosted/session/logo',
      summary: "Hosted page: the project's logo (PNG re-encoded by us)",
      tag: 'hosted page',
      security: 'none',
      rawSuccess: { type: 'image/png', description: "the project's logo" },
      errors: [...errors, 'not_found'],
    },
    {
      method: 'post',
      path: '/api/hosted/session/handoff',
      summary: 'Hosted page: a one-time link (10 min) that moves this session to a phone, shown as a QR code',
      tag: 'hosted page',
      security: 'none',
      response: handoffLink,
      errors: [...errors, 'session_closed'],
      examples: { response: { url: 'https://verity.example/verify/ses_9f8e7d6c5b4a39281a0b2c3d#shl_UGhvbmVIYW5kb2ZmTGlua0NvZGVFeGFtcGxlMDAw', expires_at: '2026-11-27T09:12:00.000Z' } },
    },
    {
      method: 'post',
      path: '/api/hosted/handoff/claim',
      summary: "Hosted page on the phone: spend a handoff link's code (X-Session-Token) for the phone's own session token; a second claim is invalid_token",
      tag: 'hosted page',
      security: 'none',
      response: handoffClaim,
      errors,
      examples: { response: { session_id: 'ses_9f8e7d6c5b4a39281a0b2c3d', session_token: 'sst_UGhvbmVTZXNzaW9uVG9rZW5FeGFtcGxlMDAwMDAw' } },
    },
    {
      method: 'post',
      path: '/api/hosted/session/test-outcome',
      summary:
        "Hosted page, test sessions only (vk_test_): decide the session with approve, decline or review, as the Verity-Test-Outcome header does on creation (no model runs, no quota spent); an error code answers that error. A live session's is 404",
      tag: 'hosted page',
      security: 'none',
      body: testOutcomeInput,
      response: hostedFlow,
      errors: [...errors, 'validation_error', 'not_found', 'session_expired', 'session_closed'],
      examples: {
        request: { outcome: 'approve' },
        response: {
          ...HOSTED_FLOW_EXAMPLE,
          status: 'APPROVED',
          finished: true,
          steps: [
            { step: 'document', done: true, outcome: 'not_run' },
            { step: 'selfie', done: true, outcome: 'not_run' },
          ],
          livemode: false,
        },
      },
    },
    {
      method: 'post',
      path: '/api/hosted/session/challenge',
      summary: 'Hosted page: a gesture challenge for the selfie burst (single use, 60 s)',
      tag: 'hosted page',
      security: 'none',
      response: challengeWire,
      errors: [...errors, 'session_expired', 'session_closed', 'not_found'],
      examples: { response: { challenge_id: 'chl_0e2c4a6b8d1f3e5a7c9b0d2f', challengeId: 'chl_0e2c4a6b8d1f3e5a7c9b0d2f', gesture: 'turn_left', expires_at: '2026-11-27T09:03:00.000Z' } },
    },
    {
      method: 'post',
      path: '/api/hosted/session/steps/{step}',
      summary:
        'Hosted page: submit a step (document; selfie: frames (3-8), challenge_id and captured_ms; location; licence), as JSON or multipart/form-data; the body is the one of the step named in the path, at most 64 MB (location and licence 64 KB); one upload per session at a time (another meanwhile: 409 conflict)',
      tag: 'hosted page',
      security: 'none',
      body: stepBody,
      response: hostedFlow,
      examples: {
        request: STEP_DOCS.document.example,
        response: {
          ...HOSTED_FLOW_EXAMPLE,
          steps: [
            { step: 'document', done: true, outcome: 'passed' },
            { step: 'selfie', done: false, outcome: null },
          ],
          checks: [{ type: 'id_verification', status: 'passed', error: null }],
        },
      },
      errors: [
        ...errors,
        'not_found',
        'session_expired',
        'session_closed',
        'conflict',
        'validation_error',
        'no_images_provided',
        'payload_too_large',
        'unprocessable',
        'no_face',
        'image_too_large',
        'invalid_frames',
        'too_many_frames',
        'invalid_challenge',
        'challenge_expired',
        'face_rescan_required',
        'step_retry_required',
        'engine_unreachable',
      ],
    },
  );
  return router;
}
