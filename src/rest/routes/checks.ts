import type { z } from 'zod';
import { idVerificationInput } from '../../core/checks/id-document.js';
import { livenessInput } from '../../core/checks/liveness.js';
import { kycCredentialInput } from '../../core/credentials/kyc.js';
import { sendData, sendResult } from '../../http/envelope.js';
import type { StandaloneCheck } from '../../core/checks/pipeline.js';
import type { AccountRef } from '../../core/checks/types.js';
import type { Core } from '../../core/index.js';
import type { ErrorCode } from '../../core/errors.js';
import type { ApiKeyCaller } from '../auth.js';
import { TEST_OUTCOME_HEADER } from '../../core/checks/sandbox.js';
import { checkBody, type FieldKinds, refuseUndeclaredFields } from '../../http/input.js';
import {
  EXAMPLE_JPEG,
  IMAGE_BODY,
  idempotencyKeyHeader,
  testOutcomeHeader,
  type ApiDocs,
  type RouteExamples,
} from '../../http/openapi.js';

import {
  challengeWire,
  combinedWire,
  standaloneWire,
  unlinkedFaceWire,
  type UnlinkedFaceView,
} from '../../core/checks/views.js';
import { providerListWire, stateListWire } from '../../core/credentials/views.js';
import { caseSensitiveRouter } from '../../http/router.js';

/** What any route behind the API key can answer. */
const API_KEY_ERRORS: ErrorCode[] = ['invalid_api_key', 'rate_limited'];
const COMMON_ERRORS: ErrorCode[] = [
  'validation_error',
  'payload_too_large',
  'invalid_api_key',
  'insufficient_balance',
  'idempotency_key_reused',
  'idempotency_in_progress',
  'rate_limited',
  'invalid_token',
  'account_not_found',
];

/** What holds for every standalone check (the end of each one's description). */
const EVERY_CHECK =
  "**Every check:** without `svc_access_token` or `svc_id` it runs in fresh mode, answers from what you sent and keeps nothing raw; with one it runs in account mode and answers proofs only. Each call is charged to the project's wallet (402 `insufficient_balance` before anything runs when it is empty); bad input and calls that end without a verdict are not charged. Send an `Idempotency-Key` to retry safely; with a test key, `Verity-Test-Outcome` forces the outcome.";

/** The standalone checks: thin routes over `core.pipeline`. */
export function checksRouter(core: Core, docs: ApiDocs) {
  const router = caseSensitiveRouter();

  /**
   * A check's route; its body is documented by the check's own input schema (`doc.body` only narrows it, e.g. to mark a
   * field required).
   */
  function route<I extends AccountRef, P>(
    path: string,
    check: StandaloneCheck<I, P>,
    kinds: FieldKinds,
    doc: {
      summary: string;
      description: string;
      body?: z.ZodType;
      errors: ErrorCode[];
      response?: z.ZodType;
      examples?: RouteExamples;
    },
  ) {
    const body = doc.body ?? check.input;
    router.post(
      path,
      checkBody(kinds),
      refuseUndeclaredFields(body, { bodyOf: (_req, res) => res.locals.input }),
      async (req, res) => {
        const caller = res.locals.apiKey as ApiKeyCaller;
        const result = await core.pipeline.run(caller, check, res.locals.input, {
          idempotencyKey: req.get('idempotency-key') ?? undefined,
          testOutcome: req.get(TEST_OUTCOME_HEADER),
        });
        sendResult(res, result);
      },
    );
    docs.add({
      method: 'post',
      path: `/api/v2${path}`,
      summary: doc.summary,
      description: `${doc.description}\n\n${EVERY_CHECK}`,
      tag: 'checks',
      security: 'apiKey',
      body,
      // Multipart is documented where it carries files (it is read on every check route).
      bodyTypes: kinds.images.length || kinds.imageArrays?.length ? IMAGE_BODY : undefined,
      response: doc.response ?? standaloneWire,
      headers: [idempotencyKeyHeader, testOutcomeHeader],
      errors: [...COMMON_ERRORS, ...doc.errors],
      examples: doc.examples,
    });
  }

  route(
    '/id-verification',
    core.checks.idVerification,
    { images: ['front_image', 'back_image'] },
    {
      summary: 'Verify an ID document',
      description:
        "Reads an ID document from photos: the machine-readable zone of passports, ID cards and visas (check digits verified and used to correct the reading), the PDF417 barcode on the back of US and Canadian driver's licences (AAMVA), the printed text, and the portrait. `front_image` is required; send `back_image` for a licence (its barcode) or a card whose MRZ is on the back.\n\n`check.data.fields` holds the document's fields (empty strings for what could not be read), `dob`, the `portrait` (a JPEG crop, base64) and `authenticity: { score, evidence }`, each piece of evidence with whether it passed, its weight and why. `failed` for an expired document or check digits that do not hold; `review` when the evidence is weak (score below 0.75) or the front disagrees with the barcode. Nothing readable at all is 422 `unprocessable` (not charged); no image is 400 `no_images_provided`.\n\nIn account mode (`svc_access_token` or `svc_id`, no image) it answers from the account's verified identity: `{ id_verified: true, reused: true }`, or 400 `no_reusable_record`.",
      body: idVerificationInput.required({ front_image: true }),
      errors: ['no_images_provided', 'image_too_large', 'unprocessable', 'no_reusable_record', 'reuse_not_available'],
      examples: {
        request: { front_image: EXAMPLE_JPEG, back_image: EXAMPLE_JPEG },
        response: {
          session_id: 'chk_3f9a1c7e5b2d4068a1e3c5f7',
          status: 'passed',
          check: {
            type: 'id_verification',
            status: 'passed',
            score: 0.97,
            data: {
              document_type: 'driver_license',
              issuing_state: 'CA',
              full_name: 'DANA M WHITFIELD',
              date_of_birth: '1988-04-12',
              expiration_date: '2029-04-12',
              barcode_matches_front: true,
            },
            error: null,
          },
        },
      },
    },
  );
  route(
    '/face-match',
    core.checks.faceMatch,
    { images: ['image1', 'image2'], numbers: ['threshold'] },
    {
      summary: 'Match two faces',
      description:
        "Is the person in `image1` (a reference portrait, e.g. cut from an ID document) the person in `image2` (a live selfie)? The comparison is symmetric. `check.data.similarity` is from 0 to 1 and the check passes when it reaches `threshold` (default 0.95; you may set 0.5 to 0.999). It proves the same person, not a live one: pair it with liveness or anti-spoof.\n\nAn image without a usable face is 422 `no_face` naming it. In account mode (`svc_access_token` or `svc_id`, only `image2`) the selfie is compared with the account's enrolled face (409 `face_not_enrolled` without one). Send whole, original photos: a face cut by the frame or recompressed images match worse.",
      errors: ['image_too_large', 'unprocessable', 'no_face', 'face_not_enrolled'],
      examples: {
        request: { image1: EXAMPLE_JPEG, image2: EXAMPLE_JPEG, threshold: 0.8 },
        response: {
          session_id: 'chk_8c2e4a6f1b3d5079c2e4a6f1',
          status: 'passed',
          check: {
            type: 'face_match',
            status: 'passed',
            score: 0.91,
            data: { similarity: 0.91, threshold: 0.8, match: true },
            error: null,
          },
        },
      },
    },
  );
  route(
    '/liveness',
    core.checks.liveness,
    { images: ['image'] },
    {
      summary: 'Check a selfie is live (passive)',
      description:
        'Is this selfie of a live person, rather than a photo of a photo or a screen? Passive: the person does nothing special. `check.data.live_score` is 1 (live), 0 (spoof) or -1 (no usable face: 422 `no_face`, not charged), with `result` and the `evidence` behind the verdict; the check passes only at 1.\n\nWhat one uploaded still can prove: `data.assurance` is `single_image` and `data.limits` lists what it cannot rule out (an injected or generated image, an earlier photo). A single image is the weaker test: for decisions that matter, use `POST /api/v2/antispoof` with a burst and a gesture challenge, or the hosted page (`hosted_capture`).',
      body: livenessInput.required({ image: true }),
      errors: ['image_too_large', 'unprocessable', 'no_face'],
      examples: {
        request: { image: EXAMPLE_JPEG },
        response: {
          session_id: 'chk_4b7e1f0a9c2d6e8f0a1b3c5d',
          status: 'passed',
          check: {
            type: 'liveness',
            status: 'passed',
            score: 1,
            data: {
              live_score: 1,
              result: 'live',
              assurance: 'single_image',
              limits: [
                {
                  code: 'synthetic_face',
                  detail:
                    'a generated (synthetic) face image shows no print or screen artefacts for the passive models to find',
                },
              ],
            },
            error: null,
          },
        },
      },
    },
  );
  route(
    '/kyc-credential',
    core.checks.kycCredential,
    { images: ['front_image', 'back_image', 'selfie'] },
    {
      summary: 'Verify identity and a professional licence together',
      description:
        "One call for onboarding a licensed professional: reads the ID document (`front_image`, optional `back_image`), checks the `selfie` is live, matches the selfie with the document's portrait, and looks up the licence (`license_type` or `provider_code`, `license_state`, `license_number`, optional `npi`) against the name read from the ID, never a name you send.\n\nAnswers `{ session_id, status, identity: { name, dob }, checks: [4 checks] }`; `status` is `passed` only when all four pass. No ID, or one nothing can be read from, is 400 `kyc_required`. A live board lookup takes 10 to 60 seconds: give your client a timeout of about 90 s.",
      body: kycCredentialInput.required({ front_image: true, selfie: true }),
      response: combinedWire,
      errors: ['kyc_required', 'image_too_large', 'unprocessable', 'not_found', 'engine_unreachable'],
      examples: {
        request: {
          front_image: EXAMPLE_JPEG,
          back_image: EXAMPLE_JPEG,
          selfie: EXAMPLE_JPEG,
          license_type: 'Registered Nurse',
          license_state: 'CA',
          license_number: '648213',
        },
        response: {
          session_id: 'chk_5d7f9b1a3c5e7092b4d6f8a0',
          status: 'passed',
          identity: { name: 'Dana M Whitfield', dob: '1988-04-12' },
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
            {
              type: 'credential',
              status: 'passed',
              data: { license_number: '648213', status: 'active', expiration_date: '2027-06-30', name_matches: true },
              error: null,
            },
          ],
        },
      },
    },
  );
  const burstErrors: ErrorCode[] = [
    'invalid_frames',
    'too_many_frames',
    'frames_required',
    'invalid_challenge',
    'challenge_expired',
    'image_too_large',
    'unprocessable',
    'no_face',
    'face_not_enrolled',
  ];
  route(
    '/antispoof',
    core.checks.antispoof,
    { images: ['image'], imageArrays: ['frames'], arrays: ['captured_ms'] },
    {
      summary: 'Anti-spoof a selfie or a burst of frames',
      description:
        'The stronger liveness test: a burst of 3 to 8 `frames` taken over about two seconds (motion, blinks and head pose between them must be a real, continuous capture), best with a gesture challenge: ask `POST /api/v2/antispoof/challenge` first, show the gesture, take the frames while the person does it, and send `challenge_id` with `captured_ms` (per frame, milliseconds after the challenge arrived). One `image` instead is judged passively.\n\n`check.data.human_score` is from 0 to 1, with `live_score`, `result` and the evidence. Fewer than 3 frames is 400 `invalid_frames`, more than 8 400 `too_many_frames`; a wrong or used challenge 403 `invalid_challenge`, an old one 400 `challenge_expired`.',
      errors: burstErrors,
      examples: {
        request: {
          frames: [EXAMPLE_JPEG, EXAMPLE_JPEG, EXAMPLE_JPEG],
          challenge_id: 'chl_0e2c4a6b8d1f3e5a7c9b0d2f',
          captured_ms: [120, 480, 910],
        },
        response: {
          session_id: 'chk_6e8a0c2b4d6f8193c5e7a9b1',
          status: 'passed',
          check: {
            type: 'antispoof',
            status: 'passed',
            score: 0.96,
            data: {
              human_score: 0.96,
              live_score: 1,
              result: 'live',
              assurance: 'challenge_burst',
              challenge: { challenge_id: 'chl_0e2c4a6b8d1f3e5a7c9b0d2f', gesture: 'turn_left', performed: true },
            },
            error: null,
          },
        },
      },
    },
  );
  route(
    '/antispoof/identity',
    core.checks.faceIdentity,
    { images: ['image'], imageArrays: ['frames'], arrays: ['captured_ms'] },
    {
      summary: 'Anti-spoof and a stable face id',
      description:
        'Anti-spoof (as `POST /api/v2/antispoof`, one image or a burst) plus `face_id`: the same person gets the same id in your project, so you can spot one person opening several accounts. The face is kept as a sealed descriptor, never as an image; each mode (test, live) has its own register.',
      errors: burstErrors,
      examples: {
        request: { image: EXAMPLE_JPEG },
        response: {
          session_id: 'chk_7f9b1d3c5e7a92a4d6f8b0c2',
          status: 'passed',
          check: {
            type: 'antispoof',
            status: 'passed',
            score: 0.94,
            data: { human_score: 0.94, live_score: 1, result: 'live', face_id: 'fce_1a3c5e7f9b2d4f6a8c0e2b4d' },
            error: null,
          },
        },
      },
    },
  );
  router.post('/antispoof/challenge', async (_req, res) => {
    sendData(res, await core.challenges.create((res.locals.apiKey as ApiKeyCaller).projectId));
  });
  route(
    '/face-uniqueness',
    core.checks.faceUniqueness,
    { images: ['image'], booleans: ['enroll'] },
    {
      summary: 'Check a face is not already enrolled',
      description:
        "Has this face been enrolled in your project before? The check passes when no enrolled face is the same person (`unique: true`) and fails when one is, listing the `matches` (their `face_id`, your `reference`, `similarity`). With `enroll: true` a unique face is enrolled (a sealed descriptor, never the image) and its `face_id` returned, labelled with your `reference` (e.g. your user id); a duplicate is never enrolled. Remove an enrolment with `DELETE /api/v2/face-uniqueness/{face_id}`.\n\nIn account mode the account's enrolled face is searched, without an image. Test and live keys have separate registers.",
      errors: ['image_too_large', 'unprocessable', 'no_face', 'face_not_enrolled'],
      examples: {
        request: { image: EXAMPLE_JPEG, enroll: true, reference: 'applicant-20931' },
        response: {
          session_id: 'chk_9a1c3e5b7d9f1a2b4c6d8e0f',
          status: 'passed',
          check: {
            type: 'face_uniqueness',
            status: 'passed',
            data: { unique: true, enrolled: true, face_id: 'fce_2b4d6f8a0c1e3a5b7d9f1c3e' },
            error: null,
          },
        },
      },
    },
  );
  router.delete('/face-uniqueness/:face_id', async (req, res) => {
    const faceId = String(req.params.face_id);
    const { projectId, livemode } = res.locals.apiKey as ApiKeyCaller;
    await core.faceIndex.unlink({ projectId, purpose: 'uniqueness', livemode }, faceId);
    const unlinked: UnlinkedFaceView = { face_id: faceId, unlinked: true };
    sendData(res, unlinked);
  });
  docs.add(
    {
      method: 'post',
      path: '/api/v2/antispoof/challenge',
      summary: 'Get a gesture challenge for anti-spoof',
      description:
        'A gesture (e.g. `turn_left`) for your capture front end to show before taking an anti-spoof burst. Single use and valid 60 seconds: send its `challenge_id` with the burst to `POST /api/v2/antispoof` (or `/antispoof/identity`), with `captured_ms` for each frame. Not charged.',
      tag: 'checks',
      security: 'apiKey',
      errors: API_KEY_ERRORS,
      response: challengeWire,
      examples: {
        response: {
          challenge_id: 'chl_0e2c4a6b8d1f3e5a7c9b0d2f',
          challengeId: 'chl_0e2c4a6b8d1f3e5a7c9b0d2f',
          gesture: 'turn_left',
          expires_at: '2026-11-27T09:41:00.000Z',
        },
      },
    },
    {
      method: 'delete',
      path: '/api/v2/face-uniqueness/{face_id}',
      summary: 'Remove an enrolled face',
      description:
        "Deletes an enrolment made by `POST /api/v2/face-uniqueness` with `enroll: true`, for example when the person closes their account or asks to be forgotten: the descriptor is gone and the face no longer matches. An unknown id, another project's or the other mode's, is 404 `not_found`.",
      tag: 'checks',
      security: 'apiKey',
      errors: ['not_found'],
      response: unlinkedFaceWire,
      examples: { response: { face_id: 'fce_2b4d6f8a0c1e3a5b7d9f1c3e', unlinked: true } },
    },
  );
  route(
    '/age-verification',
    core.checks.age,
    { images: [], arrays: ['bands'] },
    {
      summary: 'Check age bands',
      description:
        "Is the person at least 18 (or 21, or any age)? Send `dob` and the `bands` to answer: `'18'`, `18`, `'18+'` and `'is_18_plus'` mean the same; none means `is_18_plus`. Each band answers `{ verified, min_age }` (an unparseable band `{ verified: null, error: 'unknown_band' }`), and the check passes only when every band is satisfied. Ages are counted on today's UTC date.\n\n`dob` takes `YYYY-MM-DD` (preferred), `YYYY/MM/DD`, `YYYYMMDD` or an ISO date-time; `01/02/1990` is refused as ambiguous. No `dob` in fresh mode is 400 `missing_dob`. In account mode only the thresholds 16, 18, 21, 30 and 65 are answered, from the account's verified date of birth (422 `account_dob_unavailable` without one), and the date itself is never returned.",
      errors: ['missing_dob', 'account_dob_unavailable'],
      examples: {
        request: { dob: '1988-04-12', bands: [18, 21] },
        response: {
          session_id: 'chk_1b3d5f7a9c0e2a4c6e8b0d2f',
          status: 'passed',
          check: { type: 'age', status: 'passed', data: { age: 38, bands: { '18': true, '21': true } }, error: null },
        },
      },
    },
  );
  route(
    '/location',
    core.checks.location,
    {
      images: [],
      numbers: ['latitude', 'longitude', 'accuracy', 'expected_latitude', 'expected_longitude', 'radius_m'],
    },
    {
      summary: 'Check a location',
      description:
        'Records a GPS fix (`latitude`, `longitude`, `accuracy`, from the device), and with an expected point checks it: with `expected_latitude`, `expected_longitude` and `radius_m` the check passes inside the radius and fails outside (with the distance in `error`); with an expected point and no radius it passes and reports `distance_m`; without one it only captures the fix.\n\nNo fix (coordinates missing or null, or `source: "permission_denied"`) is a hard `failed`, never a pass. Out-of-range coordinates, a fix without `accuracy`, or half an expected point are 400 `validation_error`.',
      errors: [],
      examples: {
        request: {
          latitude: 37.7793,
          longitude: -122.4193,
          accuracy: 12,
          expected_latitude: 37.7749,
          expected_longitude: -122.4194,
          radius_m: 1000,
          source: 'gps',
          captured_at: '2026-11-27T09:40:12Z',
        },
        response: {
          session_id: 'chk_2c4e6a8b0d1f3b5d7f9a1c3e',
          status: 'passed',
          check: {
            type: 'location',
            status: 'passed',
            data: { distance_m: 491, within_radius: true, accuracy: 12 },
            error: null,
          },
        },
      },
    },
  );
  route(
    '/credential-verification',
    core.checks.credential,
    { images: [], booleans: ['do_ai_clean'] },
    {
      summary: 'Verify a professional licence',
      description:
        "Looks a licence up on the issuing board, by state (`license_state`, from `GET /api/v2/credential/states`), board (`provider_code`, or `license_type`, the board's `credential_name`) and `license_number` exactly as the board writes it. Three modes:\n\n- **search** (no name): the board's record (`found`, `match: null`); finding a licence is no proof the caller holds it.\n- **verify** (`full_name`, or `first_name` and `last_name`): the name is matched against the record (`match` true or false); a wrong name fails even with the right number.\n- **account** (`svc_access_token` or `svc_id`): the account's verified name is used (any name sent is ignored), and a passed licence is recorded on the account.\n\nA live board lookup takes 10 to 60 seconds: give your client a timeout of about 90 s. `do_ai_clean: true` retries an odd number format once. An unknown state or board is 404 `not_found`.",
      errors: ['not_found', 'kyc_required', 'engine_unreachable'],
      examples: {
        request: {
          license_state: 'CA',
          license_type: 'Registered Nurse',
          license_number: '648213',
          first_name: 'Dana',
          last_name: 'Whitfield',
        },
        response: {
          session_id: 'chk_3d5f7b9c1e2a4c6e8a0b2d4f',
          status: 'passed',
          check: {
            type: 'credential',
            status: 'passed',
            data: {
              mode: 'verify',
              license_number: '648213',
              status: 'active',
              expiration_date: '2027-06-30',
              name_matches: true,
            },
            error: null,
          },
        },
      },
    },
  );

  router.get('/credential/states', async (_req, res) => {
    sendData(res, { states: await core.credentials.states() });
  });
  router.get('/credential/states/:state/providers', async (req, res) => {
    sendData(res, { providers: await core.credentials.providers(String(req.params.state)) });
  });
  docs.add(
    {
      method: 'get',
      path: '/api/v2/credential/states',
      summary: 'List states with licensing boards',
      description:
        'The states whose licensing boards the licence checks can query, with their 2-letter codes: the `license_state` of `POST /api/v2/credential-verification`. Not charged.',
      tag: 'credentials',
      security: 'apiKey',
      errors: API_KEY_ERRORS,
      response: stateListWire,
      examples: {
        response: {
          states: [
            { state_name: 'California', state_code: 'CA' },
            { state_name: 'Texas', state_code: 'TX' },
          ],
        },
      },
    },
    {
      method: 'get',
      path: '/api/v2/credential/states/{state}/providers',
      summary: "List a state's licensing boards",
      description:
        "The boards of one state: `provider_code` (pin the exact board with it), `credential_name` (the `license_type` it verifies) and the `required_fields` it needs. Always collect the holder's first and last name too, even when `required_fields` does not list them. An unknown state is 404 `not_found`. Not charged.",
      tag: 'credentials',
      security: 'apiKey',
      errors: ['not_found'],
      response: providerListWire,
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
  );
  return router;
}
