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
import { providerListWire, stateListWire } from '../../core/credentials/views.js';
import {
  createSessionInput,
  listSessionsInput,
  reviewInput,
  STEP_INPUTS,
  testOutcomeInput,
} from '../../core/sessions/inputs.js';
import { sendData } from '../../http/envelope.js';
import type { ApiKeyCaller } from '../auth.js';
import { TEST_OUTCOME_HEADER } from '../../core/checks/sandbox.js';
import { checkBody, type FieldKinds, jsonBody, refuseUndeclaredFields, requireJsonBody } from '../../http/input.js';
import { oneUploadPerSession, stepUploadRules } from '../step-uploads.js';
import { EXAMPLE_JPEG, IMAGE_BODY, idempotencyKeyHeader, testOutcomeHeader, type ApiDocs } from '../../http/openapi.js';
import { caseSensitiveRouter } from '../../http/router.js';
import { documentWebhooks } from './webhooks.js';

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
    description:
      'The ID document: front_image, and back_image where the barcode of a North American licence is on the back',
    example: { front_image: EXAMPLE_JPEG, back_image: EXAMPLE_JPEG },
  },
  selfie: {
    description:
      'A burst of 3 to 8 frames taken while doing the gesture; challenge_id (POST /api/hosted/session/challenge) and captured_ms (per frame, ms after the challenge arrived) are required where the workflow has liveness, and as multipart/form-data come before the frames (the challenge is checked before any frame is read)',
    example: {
      frames: [EXAMPLE_JPEG, EXAMPLE_JPEG, EXAMPLE_JPEG, EXAMPLE_JPEG, EXAMPLE_JPEG, EXAMPLE_JPEG],
      challenge_id: 'chl_0e2c4a6b8d1f3e5a7c9b0d2f',
      captured_ms: [900, 1180, 1460, 1740, 2020, 2300],
    },
  },
  location: {
    description:
      "The browser's fix, or source permission_denied (with error) when it was refused; the expected point and radius come from the session's metadata",
    example: {
      latitude: 37.7793,
      longitude: -122.4193,
      accuracy: 12,
      source: 'gps',
      captured_at: '2026-11-27T09:03:12Z',
    },
  },
  licence: {
    description:
      "State and board (license_state or state; license_type or provider_code), the number (license_number or license_no) and npi where the board asks for it; the holder's name (full_name, or first_name and last_name) is required when the session has no verified name, and ignored when it has one",
    example: {
      license_state: 'CA',
      provider_code: 'ca_brn',
      license_number: '648213',
      first_name: 'Dana',
      last_name: 'Whitfield',
    },
  },
};

/** A step's declared body, closed, so that exactly one step's schema fits a body. */
const documentedStep = (step: keyof typeof STEP_INPUTS) =>
  STEP_INPUTS[step]
    .strict()
    .meta({ title: `${step} step`, description: STEP_DOCS[step].description, examples: [STEP_DOCS[step].example] });

/** The fields of every step's body by kind (images, lists, numbers), for reading JSON and multipart alike. */
const STEP_FIELDS: FieldKinds = {
  images: ['front_image', 'back_image'],
  imageArrays: ['frames'],
  arrays: ['captured_ms'],
  numbers: ['latitude', 'longitude', 'accuracy'],
};

/** POST /api/hosted/session/steps/{step}: the body depends on the step (the path), one schema each. */
const stepBody = z.xor([
  documentedStep('document'),
  documentedStep('selfie'),
  documentedStep('location'),
  documentedStep('licence'),
]);

/** `/api/v2/session`: the integrator's side of hosted verification. */
export function sessionsRouter(core: Core, docs: ApiDocs) {
  const router = caseSensitiveRouter();
  const caller = (res: { locals: Record<string, unknown> }) => res.locals.apiKey as ApiKeyCaller;
  const id = (req: Request) => String(req.params.id);

  router.post('/session', requireJsonBody, refuseUndeclaredFields(createSessionInput), async (req, res) => {
    const owner = caller(res);
    const { session, replayed } = await core.sessions.create(owner, `api_key:${owner.apiKeyId}`, req.body ?? {}, {
      idempotencyKey: req.get('idempotency-key') ?? undefined,
      testOutcome: req.get(TEST_OUTCOME_HEADER),
    });
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
  router.patch('/session/:id/status', requireJsonBody, refuseUndeclaredFields(reviewInput), async (req, res) => {
    const owner = caller(res);
    sendData(res, await core.sessions.review(owner, id(req), `api_key:${owner.apiKeyId}`, req.body ?? {}));
  });
  router.delete('/session/:id/data', async (req, res) => {
    const owner = caller(res);
    sendData(res, await core.sessions.eraseData(owner, id(req), `api_key:${owner.apiKeyId}`));
  });

  docs.add(
    {
      method: 'post',
      path: '/api/v2/session',
      summary: 'Create a hosted verification session',
      description:
        "Starts a verification of one person with one of your workflows (the bundle of checks: document, selfie, location, licence; made in the console or with `verity admin workflow create`). The answer's `url` is our hosted page: send the person there (a redirect, or a link to open on a phone). `session_token` and `url` are shown only in this answer.\n\nWhen the person is done (or the session expires) the session reaches a final state and your callback receives a signed webhook; read `GET /api/v2/session/{id}/decision` for the outcome. The person returns to `redirect_url?status=<STATUS>`: a hint for your page, never the decision.\n\n- `workflow_id` is required; another project's or an unknown id is 404 `workflow_not_found`.\n- `callback` must exactly match an approved, active HTTPS destination of the project (422 `callback_not_allowed`); without it the project's default callback is used.\n- `vendor_data` (your own reference, e.g. your user id; up to 1000 characters) comes back on the session, the decision and every webhook.\n- `ttl_seconds` from 300 to 604800 (default 3600): past `expires_at` an unstarted session becomes `EXPIRED`, a started one `ABANDONED`.\n- `metadata`: `expected_lat`, `expected_lng` and `radius_m` set the location check's geofence; `min_age` (default 18) is the age the age check proves.\n- `svc_access_token` binds the person's account (from your OIDC login): what the account already proved is reused and not asked again.\n\nA session is charged once, when it is created. Send an `Idempotency-Key` so that a retry after a timeout answers the same session instead of creating (and charging) a second one.",
      tag: 'sessions',
      security: 'apiKey',
      body: createSessionInput,
      response: created,
      headers: [idempotencyKeyHeader, testOutcomeHeader],
      successStatus: 201,
      examples: {
        request: {
          workflow_id: 'wf_3c1d2e4f5a6b7c8d9e0f1a2b',
          vendor_data: 'applicant-8841',
          redirect_url: 'https://clinic.example/onboarding/done',
          ttl_seconds: 3600,
        },
        response: {
          ...SESSION_EXAMPLE,
          url: 'https://verity.example/verify/ses_9f8e7d6c5b4a39281a0b2c3d#st_Qm9vZ2llV29vZ2llMTIz',
          session_token: 'st_Qm9vZ2llV29vZ2llMTIz',
        },
      },
      errors: [
        ...AUTH_ERRORS,
        'validation_error',
        'workflow_not_found',
        'callback_not_allowed',
        'insufficient_balance',
        'invalid_token',
        'account_not_found',
        'idempotency_key_reused',
        'idempotency_in_progress',
      ],
    },
    {
      method: 'get',
      path: '/api/v2/session',
      summary: 'List sessions',
      description:
        'Your sessions, newest first, `limit` a page (default 20, at most 100), optionally only those in one `status` or with one `vendor_data` (all the sessions of one of your users). When more follow, the `X-Next-Cursor` header holds the `cursor` of the next page; the last page has none.\n\nA test key lists test sessions only, a live key live ones. The list does not repeat `url` or `session_token`, which only the create answer shows.',
      tag: 'sessions',
      security: 'apiKey',
      query: listSessionsInput,
      responseHeaders: [
        {
          name: 'X-Next-Cursor',
          description: 'the `cursor` of the next page; absent on the last page',
          example: 'MjAyNi0xMS0yN1QwOTowMDowMC4wMDBafHNlc185ZjhlN2Q2YzViNGEzOTI4MWEwYjJjM2Q',
        },
      ],
      response: z.array(session),
      errors: [...AUTH_ERRORS, 'validation_error'],
      examples: {
        response: [
          {
            ...SESSION_EXAMPLE,
            status: 'APPROVED',
            started_at: '2026-11-27T09:01:12.000Z',
            decided_at: '2026-11-27T09:04:51.000Z',
            updated_at: '2026-11-27T09:04:51.000Z',
          },
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
      summary: 'Retrieve a session',
      description:
        "The session as it stands: `status`, the workflow and its features, `vendor_data` and the timestamps (`started_at` once the person agreed on the start screen, `decided_at` once final). Poll it while the person works if you cannot receive webhooks (every few seconds, backing off); once it is final, read the decision for the outcome.\n\nAnother project's session, or a session of the other mode (test or live), is 404 `not_found`.",
      tag: 'sessions',
      security: 'apiKey',
      response: session,
      errors: [...AUTH_ERRORS, 'not_found'],
      examples: {
        response: {
          ...SESSION_EXAMPLE,
          status: 'IN_PROGRESS',
          started_at: '2026-11-27T09:01:12.000Z',
          updated_at: '2026-11-27T09:01:12.000Z',
        },
      },
    },
    {
      method: 'get',
      path: '/api/v2/session/{id}/decision',
      summary: "Retrieve a session's decision",
      description:
        "The authoritative outcome: `status`, `decision` (null until the session is final), `decided_at` and who decided (`system`, `api_key:<id>` or `admin:<id>`), and every check the session ran with its status, score and data (e.g. the fields read from the document, the face match's similarity).\n\nRead it when a webhook says the session is final: the webhook and the redirect's `?status=` are notifications, this is the record. A session bound to an account (`svc_access_token`) also carries `svc_id` and the account's reusable `identity`. After `DELETE /api/v2/session/{id}/data` the checks keep their status but not their details.",
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
            {
              type: 'id_verification',
              status: 'passed',
              score: 0.97,
              data: { document_type: 'driver_license', issuing_state: 'CA' },
              error: null,
            },
            { type: 'liveness', status: 'passed', score: 1, data: { live_score: 1, result: 'live' }, error: null },
            { type: 'face_match', status: 'passed', score: 0.9, data: { similarity: 0.9, match: true }, error: null },
          ],
        },
      },
    },
    {
      method: 'patch',
      path: '/api/v2/session/{id}/status',
      summary: 'Approve or decline a session in review',
      description:
        "Decides a session that is `IN_REVIEW` (a check was sent to review rather than passed or failed). Only `IN_REVIEW` can be decided (409 `review_not_pending`); a final session is 409 `session_closed`. Approving requires the document read and passed liveness and face match checks (409 `required_face_checks_incomplete`).\n\nThe decision is final and irreversible, recorded in the session's timeline with your API key as the actor, and announced by a `verification.approved` or `verification.declined` webhook like any other. Of two reviewers deciding at once, exactly one wins; the other gets `session_closed`.",
      tag: 'sessions',
      security: 'apiKey',
      body: reviewInput,
      response: session,
      examples: {
        request: { status: 'APPROVED' },
        response: {
          ...SESSION_EXAMPLE,
          status: 'APPROVED',
          started_at: '2026-11-27T09:01:12.000Z',
          decided_at: '2026-11-27T09:20:40.000Z',
          updated_at: '2026-11-27T09:20:40.000Z',
        },
      },
      errors: [
        ...AUTH_ERRORS,
        'validation_error',
        'not_found',
        'review_not_pending',
        'required_face_checks_incomplete',
        'session_closed',
      ],
    },
    {
      method: 'delete',
      path: '/api/v2/session/{id}/data',
      summary: "Erase a session's data now",
      description:
        "Erases at once what a closed session keeps beyond its outcome: the sealed check details (the fields read from the document), the work kept between steps, and the review images (document and selfie). The status, the decision and the timeline stay, so the session still answers `GET` and its decision without the erased details.\n\nCall it when your duty to keep the data ends before the project's retention period does (by default images are purged 30 days after the decision). It is idempotent: a second call answers 200 with `already_erased: true` and the first `erased_at`. An open session (`NOT_STARTED`, `IN_PROGRESS`) is 409 `conflict`: its steps still need their data.",
      tag: 'sessions',
      security: 'apiKey',
      response: erasedWire,
      errors: [...AUTH_ERRORS, 'not_found', 'conflict'],
      examples: {
        response: {
          session_id: SESSION_EXAMPLE.session_id,
          status: 'APPROVED',
          erased: true,
          already_erased: false,
          erased_at: '2026-11-27T11:02:19.000Z',
        },
      },
    },
  );
  // What the sessions' moves announce to the integrator's callback.
  documentWebhooks(docs);
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
    res
      .set({
        'Content-Type': 'image/png',
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'private, max-age=300',
        'Content-Disposition': 'inline',
      })
      .send(png);
  });
  router.post('/session/handoff', async (_req, res) => {
    sendData(res, await core.sessions.createHandoff(hostedSession(res)));
  });
  router.post('/session/challenge', async (_req, res) => {
    sendData(res, await core.sessions.challenge(hostedSession(res)));
  });
  // Test mode: a test session's page may pick its outcome instead of running the models.
  router.post('/session/test-outcome', requireJsonBody, ...jsonBody('4kb'), async (req, res) => {
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
      const flow = await uploads.runningStep(res, () =>
        core.sessions.submitStep(
          hostedSession(res),
          String(req.params.step),
          res.locals.input as Record<string, unknown>,
        ),
      );
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
      path: '/api/hosted/credential/states',
      summary: 'Hosted page: states with licensing boards',
      description:
        "The licence step's first list: the states whose boards can be queried (the same list as `GET /api/v2/credential/states`), for the session token.",
      tag: 'pages',
      security: 'none',
      response: stateListWire,
      errors,
      examples: { response: { states: [{ state_name: 'California', state_code: 'CA' }] } },
    },
    {
      method: 'get',
      path: '/api/hosted/credential/states/{state}/providers',
      summary: "Hosted page: a state's licensing boards",
      description:
        "The licence step's second list: the boards of a state with the fields each needs (the same as `GET /api/v2/credential/states/{state}/providers`). An unknown state is 404 `not_found`.",
      tag: 'pages',
      security: 'none',
      response: providerListWire,
      errors: [...errors, 'not_found'],
      examples: {
        response: {
          providers: [
            {
              provider_code: 'ca_brn',
              provider_display_name: 'California Board of Registered Nursing',
              credential_name: 'Registered Nurse',
              required_fields: ['license_number'],
            },
          ],
        },
      },
    },
    {
      method: 'get',
      path: '/api/hosted/session',
      summary: "Hosted page: the session's steps and state",
      description:
        "What the hosted page shows: the project's name and branding, the steps still to do, the checks done, and where to go at the end (`redirect_to` once `finished`). Reading it moves nothing.\n\nEvery hosted call is authenticated by the session token in `X-Session-Token` (never the API key, which must not reach a browser) and counted per address and per session (429 `rate_limited`).",
      tag: 'pages',
      security: 'none',
      response: hostedFlow,
      errors,
      examples: { response: HOSTED_FLOW_EXAMPLE },
    },
    {
      method: 'post',
      path: '/api/hosted/session/start',
      summary: 'Hosted page: start the session',
      description:
        'The person agreed on the start screen: the session moves from `NOT_STARTED` to `IN_PROGRESS` (once; a second call answers the same state). Past `expires_at` it is 410 `session_expired`.',
      tag: 'pages',
      security: 'none',
      response: hostedFlow,
      errors: [...errors, 'session_expired'],
      examples: { response: HOSTED_FLOW_EXAMPLE },
    },
    {
      method: 'get',
      path: '/api/hosted/session/logo',
      summary: "Hosted page: the project's logo",
      description:
        "The project's logo as a PNG we re-encoded from what the admin uploaded (at most 512 px, no metadata), sent with `X-Content-Type-Options: nosniff`. 404 `not_found` when the project has none (the session says `logo: false`).",
      tag: 'pages',
      security: 'none',
      rawSuccess: { type: 'image/png', description: "the project's logo" },
      errors: [...errors, 'not_found'],
    },
    {
      method: 'post',
      path: '/api/hosted/session/handoff',
      summary: 'Hosted page: a link to continue on a phone',
      description:
        'A one-time link, valid 10 minutes, that continues this session on a phone; the page shows it as a QR code when the device has no camera. Only its SHA-256 is stored. A closed session is 409 `session_closed`.',
      tag: 'pages',
      security: 'none',
      response: handoffLink,
      errors: [...errors, 'session_closed'],
      examples: {
        response: {
          url: 'https://verity.example/verify/ses_9f8e7d6c5b4a39281a0b2c3d#shl_UGhvbmVIYW5kb2ZmTGlua0NvZGVFeGFtcGxlMDAw',
          expires_at: '2026-11-27T09:12:00.000Z',
        },
      },
    },
    {
      method: 'post',
      path: '/api/hosted/handoff/claim',
      summary: 'Hosted page on the phone: claim a handoff link',
      description:
        "The phone's page spends the code from the handoff link's fragment (sent in `X-Session-Token`) for a session token of its own; the laptop keeps its token and follows the phone's progress. Single use: of simultaneous claims exactly one wins, and a used, expired or unknown code is 401 `invalid_token`.",
      tag: 'pages',
      security: 'none',
      response: handoffClaim,
      errors,
      examples: {
        response: {
          session_id: 'ses_9f8e7d6c5b4a39281a0b2c3d',
          session_token: 'sst_UGhvbmVTZXNzaW9uVG9rZW5FeGFtcGxlMDAwMDAw',
        },
      },
    },
    {
      method: 'post',
      path: '/api/hosted/session/test-outcome',
      summary: "Hosted page: pick a test session's outcome",
      description:
        "Test sessions only (made with a `vk_test_` key): the hosted page's outcome picker decides the session with `approve`, `decline` or `review`, through the state table as the `Verity-Test-Outcome` header does at creation; no model runs and no sandbox quota is spent. A catalog error code answers that error. A live session's is 404 `not_found`.",
      tag: 'pages',
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
      summary: 'Hosted page: a gesture challenge for the selfie',
      description:
        'A gesture (such as turning the head left) for the selfie burst, single use and valid 60 seconds. The page shows it, takes the frames while the person does it, and sends its `challenge_id` with the selfie step; the frames must show the gesture.',
      tag: 'pages',
      security: 'none',
      response: challengeWire,
      errors: [...errors, 'session_expired', 'session_closed', 'not_found'],
      examples: {
        response: {
          challenge_id: 'chl_0e2c4a6b8d1f3e5a7c9b0d2f',
          challengeId: 'chl_0e2c4a6b8d1f3e5a7c9b0d2f',
          gesture: 'turn_left',
          expires_at: '2026-11-27T09:03:00.000Z',
        },
      },
    },
    {
      method: 'post',
      path: '/api/hosted/session/steps/{step}',
      summary: 'Hosted page: submit a step',
      description:
        "Submits one step of the session: `document` (`front_image`, and `back_image` where a licence's barcode is on the back), `selfie` (a burst of 3 to 8 `frames` with `challenge_id` and `captured_ms` where the workflow has liveness), `location` (the browser's fix) or `licence` (state, board, number, and the name when the session has no verified one). JSON with images as base64 or data URLs, or multipart/form-data with images as files; the body is the one of the step in the path.\n\n- Each step runs once (409 `conflict` on a second submission); a step the session does not have is 404 `not_found`; one upload per session at a time (another meanwhile: 409 `conflict`).\n- A failure the person can fix (an expired document, a licence number not found, a refused location prompt) is 422 `step_retry_required` with `data.tries_left`; a selfie judged not live may be retaken (422 `face_rescan_required`); any other failed check declines the session.\n- Bodies are streamed within caps and refused as soon as one is crossed, the rest unread: 64 MB (location and licence 64 KB; 413 `payload_too_large`), 20 MB a file (413 `image_too_large`), 2 files for the document and 8 frames for the selfie.\n\nAfter the last step the session is decided and the answer says `finished` and `redirect_to`.",
      tag: 'pages',
      security: 'none',
      body: stepBody,
      bodyTypes: IMAGE_BODY,
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
