import { Router } from 'express';
import type { z } from 'zod';
import { idVerificationInput } from '../../core/checks/id-document.js';
import { livenessInput } from '../../core/checks/liveness.js';
import { kycCredentialInput } from '../../core/credentials/kyc.js';
import { sendData, sendResult } from '../envelope.js';
import type { StandaloneCheck } from '../../core/checks/pipeline.js';
import type { AccountRef } from '../../core/checks/types.js';
import type { Core } from '../../core/index.js';
import type { ErrorCode } from '../../core/errors.js';
import type { ApiKeyCaller } from '../auth.js';
import { TEST_OUTCOME_HEADER } from '../../core/sandbox.js';
import { checkBody, type FieldKinds } from '../input.js';
import { EXAMPLE_JPEG, testOutcomeHeader, type ApiDocs, type RouteExamples } from '../openapi.js';

import { challengeWire, combinedWire, standaloneWire, unlinkedFaceWire, type UnlinkedFaceView } from '../../core/checks/views.js';
import { providerListWire, stateListWire } from '../../core/credentials/views.js';

/** What any route behind the API key can answer. */
const API_KEY_ERRORS: ErrorCode[] = ['invalid_api_key', 'rate_limited'];
const COMMON_ERRORS: ErrorCode[] = ['validation_error', 'invalid_api_key', 'insufficient_balance', 'idempotency_key_reused', 'idempotency_in_progress', 'rate_limited', 'invalid_token', 'account_not_found'];

/** The standalone checks: thin routes over `core.pipeline`. */
export function checksRouter(core: Core, docs: ApiDocs) {
  const router = Router();

  /** A check's route; its body is documented by the check's own input schema (`doc.body` only narrows it, e.g. to mark a field required). */
  function route<I extends AccountRef, P>(path: string, check: StandaloneCheck<I, P>, kinds: FieldKinds, doc: { summary: string; body?: z.ZodType; errors: ErrorCode[]; response?: z.ZodType; examples?: RouteExamples }) {
    router.post(path, checkBody(kinds), async (req, res) => {
      const caller = res.locals.apiKey as ApiKeyCaller;
      const result = await core.pipeline.run(caller, check, res.locals.input, { idempotencyKey: req.get('idempotency-key') ?? undefined, testOutcome: req.get(TEST_OUTCOME_HEADER) });
      sendResult(res, result);
    });
    docs.add({
      method: 'post',
      path: `/api/v2${path}`,
      summary: doc.summary,
      tag: 'standalone checks',
      security: 'apiKey',
      body: doc.body ?? check.input,
      response: doc.response ?? standaloneWire,
      headers: [testOutcomeHeader],
      errors: [...COMMON_ERRORS, ...doc.errors],
      examples: doc.examples,
    });
  }

  route(
    '/id-verification',
    core.checks.idVerification,
    { images: ['front_image', 'back_image'] },
    {
      summary: 'Read an ID document: OCR, MRZ with check digits, the AAMVA barcode (PDF417) of a North American licence, portrait, authenticity evidence',
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
            data: { document_type: 'driver_license', issuing_state: 'CA', full_name: 'DANA M WHITFIELD', date_of_birth: '1988-04-12', expiration_date: '2029-04-12', barcode_matches_front: true },
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
      summary: 'Same person? image1 (reference portrait) against image2 (live selfie); symmetric; proves identity, not liveness',
      errors: ['image_too_large', 'unprocessable', 'no_face', 'face_not_enrolled'],
      examples: {
        request: { image1: EXAMPLE_JPEG, image2: EXAMPLE_JPEG, threshold: 0.8 },
        response: { session_id: 'chk_8c2e4a6f1b3d5079c2e4a6f1', status: 'passed', check: { type: 'face_match', status: 'passed', score: 0.91, data: { similarity: 0.91, threshold: 0.8, match: true }, error: null } },
      },
    },
  );
  route(
    '/liveness',
    core.checks.liveness,
    { images: ['image'] },
    {
      summary:
        'Passive liveness of a selfie: live_score 1 live, 0 spoof, below 0 no face; passes only at 1. One uploaded still: data.assurance is single_image and data.limits says what it cannot rule out (an injected or generated image); the hosted capture reports hosted_capture',
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
              limits: [{ code: 'synthetic_face', detail: 'a generated (synthetic) face image shows no print or screen artefacts for the passive models to find' }],
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
      summary: 'ID verification, liveness, face match (document portrait vs selfie) and the licence lookup against the name on the ID',
      body: kycCredentialInput.required({ front_image: true, selfie: true }),
      response: combinedWire,
      errors: ['kyc_required', 'image_too_large', 'unprocessable', 'not_found', 'engine_unreachable'],
      examples: {
        request: { front_image: EXAMPLE_JPEG, back_image: EXAMPLE_JPEG, selfie: EXAMPLE_JPEG, license_type: 'Registered Nurse', license_state: 'CA', license_number: '648213' },
        response: {
          session_id: 'chk_5d7f9b1a3c5e7092b4d6f8a0',
          status: 'passed',
          identity: { name: 'Dana M Whitfield', dob: '1988-04-12' },
          checks: [
            { type: 'id_verification', status: 'passed', score: 0.97, data: { document_type: 'driver_license', issuing_state: 'CA' }, error: null },
            { type: 'liveness', status: 'passed', score: 1, data: { live_score: 1, result: 'live' }, error: null },
            { type: 'face_match', status: 'passed', score: 0.9, data: { similarity: 0.9, match: true }, error: null },
            { type: 'credential', status: 'passed', data: { license_number: '648213', status: 'active', expiration_date: '2027-06-30', name_matches: true }, error: null },
          ],
        },
      },
    },
  );
  const burstErrors: ErrorCode[] = ['invalid_frames', 'too_many_frames', 'frames_required', 'invalid_challenge', 'challenge_expired', 'image_too_large', 'unprocessable', 'no_face', 'face_not_enrolled'];
  route(
    '/antispoof',
    core.checks.antispoof,
    { images: ['image'], imageArrays: ['frames'], arrays: ['captured_ms'] },
    {
      summary: 'Anti-spoof of one selfie (passive) or a burst of 3 to 8 frames (motion, blinks, pose; optional gesture challenge): human_score 0..1, live_score, result',
      errors: burstErrors,
      examples: {
        request: { frames: [EXAMPLE_JPEG, EXAMPLE_JPEG, EXAMPLE_JPEG], challenge_id: 'chl_0e2c4a6b8d1f3e5a7c9b0d2f', captured_ms: [120, 480, 910] },
        response: {
          session_id: 'chk_6e8a0c2b4d6f8193c5e7a9b1',
          status: 'passed',
          check: {
            type: 'antispoof',
            status: 'passed',
            score: 0.96,
            data: { human_score: 0.96, live_score: 1, result: 'live', assurance: 'challenge_burst', challenge: { challenge_id: 'chl_0e2c4a6b8d1f3e5a7c9b0d2f', gesture: 'turn_left', performed: true } },
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
      summary: "Anti-spoof plus face_id: the project's identity cluster of this face (same person, same id), for duplicate detection",
      errors: burstErrors,
      examples: {
        request: { image: EXAMPLE_JPEG },
        response: {
          session_id: 'chk_7f9b1d3c5e7a92a4d6f8b0c2',
          status: 'passed',
          check: { type: 'antispoof', status: 'passed', score: 0.94, data: { human_score: 0.94, live_score: 1, result: 'live', face_id: 'fce_1a3c5e7f9b2d4f6a8c0e2b4d' }, error: null },
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
      summary: 'Is this face already enrolled in the project? passed when unique; enroll: true enrols a unique face (descriptor only, sealed) and returns its face_id',
      errors: ['image_too_large', 'unprocessable', 'no_face', 'face_not_enrolled'],
      examples: {
        request: { image: EXAMPLE_JPEG, enroll: true, reference: 'applicant-20931' },
        response: {
          session_id: 'chk_9a1c3e5b7d9f1a2b4c6d8e0f',
          status: 'passed',
          check: { type: 'face_uniqueness', status: 'passed', data: { unique: true, enrolled: true, face_id: 'fce_2b4d6f8a0c1e3a5b7d9f1c3e' }, error: null },
        },
      },
    },
  );
  router.delete('/face-uniqueness/:face_id', async (req, res) => {
    const faceId = String(req.params.face_id);
    await core.faceIndex.unlink((res.locals.apiKey as ApiKeyCaller).projectId, 'uniqueness', faceId);
    const unlinked: UnlinkedFaceView = { face_id: faceId, unlinked: true };
    sendData(res, unlinked);
  });
  docs.add(
    {
      method: 'post',
      path: '/api/v2/antispoof/challenge',
      summary: 'A single-use gesture challenge, valid 60 s: send its challenge_id with an anti-spoof burst that shows the gesture',
      tag: 'standalone checks',
      security: 'apiKey',
      errors: API_KEY_ERRORS,
      response: challengeWire,
      examples: { response: { challenge_id: 'chl_0e2c4a6b8d1f3e5a7c9b0d2f', challengeId: 'chl_0e2c4a6b8d1f3e5a7c9b0d2f', gesture: 'turn_left', expires_at: '2026-11-27T09:41:00.000Z' } },
    },
    {
      method: 'delete',
      path: '/api/v2/face-uniqueness/{face_id}',
      summary: 'Unlink (delete) an enrolled face of this project',
      tag: 'standalone checks',
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
      summary: 'Age bands from a date of birth (fresh) or from the account (account mode: thresholds 16, 18, 21, 30, 65)',
      errors: ['missing_dob', 'account_dob_unavailable'],
      examples: {
        request: { dob: '1988-04-12', bands: [18, 21] },
        response: { session_id: 'chk_1b3d5f7a9c0e2a4c6e8b0d2f', status: 'passed', check: { type: 'age', status: 'passed', data: { age: 38, bands: { '18': true, '21': true } }, error: null } },
      },
    },
  );
  route(
    '/location',
    core.checks.location,
    { images: [], numbers: ['latitude', 'longitude', 'accuracy', 'expected_latitude', 'expected_longitude', 'radius_m'] },
    {
      summary: 'A GPS fix, optionally against an expected point and geofence radius',
      errors: [],
      examples: {
        request: { latitude: 37.7793, longitude: -122.4193, accuracy: 12, expected_latitude: 37.7749, expected_longitude: -122.4194, radius_m: 1000, source: 'gps', captured_at: '2026-11-27T09:40:12Z' },
        response: { session_id: 'chk_2c4e6a8b0d1f3b5d7f9a1c3e', status: 'passed', check: { type: 'location', status: 'passed', data: { distance_m: 491, within_radius: true, accuracy: 12 }, error: null } },
      },
    },
  );
  route(
    '/credential-verification',
    core.checks.credential,
    { images: [], booleans: ['do_ai_clean'] },
    {
      summary: "Licence lookup: search (no name), verify (a name), or account mode (the account's verified name; badges the licence)",
      errors: ['not_found', 'kyc_required', 'engine_unreachable'],
      examples: {
        request: { license_state: 'CA', license_type: 'Registered Nurse', license_number: '648213', first_name: 'Dana', last_name: 'Whitfield' },
        response: {
          session_id: 'chk_3d5f7b9c1e2a4c6e8a0b2d4f',
          status: 'passed',
          check: { type: 'credential', status: 'passed', data: { mode: 'verify', license_number: '648213', status: 'active', expiration_date: '2027-06-30', name_matches: true }, error: null },
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
      summary: 'States whose licensing boards can be queried',
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
      summary: 'Boards of a state with their credential names and required fields',
      tag: 'credentials',
      security: 'apiKey',
      errors: ['not_found'],
      response: providerListWire,
      examples: {
        response: {
          providers: [{ provider_code: 'ca_brn', provider_display_name: 'California Board of Registered Nursing', credential_name: 'Registered Nurse', required_fields: ['license_number'] }],
        },
      },
    },
  );
  return router;
}
