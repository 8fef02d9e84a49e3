import { Router } from 'express';
import { z } from 'zod';
import { ageInput } from '../../core/checks/age.js';
import { locationInput } from '../../core/checks/location.js';
import { credentialInput } from '../../core/credentials/check.js';
import { sendData, sendResult } from '../envelope.js';
import type { StandaloneCheck } from '../../core/checks/pipeline.js';
import type { AccountRef } from '../../core/checks/types.js';
import type { Core } from '../../core/index.js';
import type { ErrorCode } from '../../core/errors.js';
import type { ApiKeyCaller } from '../auth.js';
import { TEST_OUTCOME_HEADER } from '../../core/sandbox.js';
import { checkBody, type FieldKinds } from '../input.js';
import { testOutcomeHeader, type ApiDocs, type RouteExamples } from '../openapi.js';

import { challengeWire, combinedWire, standaloneWire, unlinkedFaceWire, type UnlinkedFaceView } from '../../core/checks/views.js';
import { providerListWire, stateListWire } from '../../core/credentials/views.js';

/** What any route behind the API key can answer. */
const API_KEY_ERRORS: ErrorCode[] = ['invalid_api_key', 'rate_limited'];
const COMMON_ERRORS: ErrorCode[] = ['validation_error', 'invalid_api_key', 'insufficient_balance', 'idempotency_key_reused', 'idempotency_in_progress', 'rate_limited', 'invalid_token', 'account_not_found'];

/** The standalone checks: thin routes over `core.pipeline`. */
export function checksRouter(core: Core, docs: ApiDocs) {
  const router = Router();

  function route<I extends AccountRef, P>(path: string, check: StandaloneCheck<I, P>, kinds: FieldKinds, doc: { summary: string; body: z.ZodType; errors: ErrorCode[]; response?: z.ZodType; examples?: RouteExamples }) {
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
      body: doc.body,
      response: doc.response ?? standaloneWire,
      headers: [testOutcomeHeader],
      errors: [...COMMON_ERRORS, ...doc.errors],
      examples: doc.examples,
    });
  }

  const image = z.string().describe('base64 or a data URL (or send multipart/form-data files under the same name)');
  route(
    '/id-verification',
    core.checks.idVerification,
    { images: ['front_image', 'back_image'] },
    {
      summary: 'Read an ID document: OCR, MRZ with check digits, the AAMVA barcode (PDF417) of a North American licence, portrait, authenticity evidence',
      body: z.object({ front_image: image, back_image: image.optional(), svc_access_token: z.string().optional(), svc_id: z.string().optional() }),
      errors: ['no_images_provided', 'image_too_large', 'unprocessable', 'no_reusable_record', 'reuse_not_available'],
    },
  );
  route(
    '/face-match',
    core.checks.faceMatch,
    { images: ['image1', 'image2'], numbers: ['threshold'] },
    {
      summary: 'Same person? image1 (reference portrait) against image2 (live selfie); symmetric; proves identity, not liveness',
      body: z.object({ image1: image, image2: image, threshold: z.number().min(0.5).max(0.999).optional(), svc_access_token: z.string().optional(), svc_id: z.string().optional() }),
      errors: ['image_too_large', 'unprocessable', 'no_face', 'face_not_enrolled'],
    },
  );
  route(
    '/liveness',
    core.checks.liveness,
    { images: ['image'] },
    {
      summary: 'Passive liveness of a selfie: live_score 1 live, 0 spoof, below 0 no face; passes only at 1',
      body: z.object({ image }),
      errors: ['image_too_large', 'unprocessable', 'no_face'],
      examples: {
        request: { image: 'data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8U' },
        response: {
          session_id: 'chk_4b7e1f0a9c2d',
          status: 'passed',
          check: { type: 'liveness', status: 'passed', score: 1, data: { live_score: 1, result: 'live' }, error: null },
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
      body: z.object({ front_image: image, back_image: image.optional(), selfie: image, license_type: z.string(), license_state: z.string(), license_number: z.string(), npi: z.string().optional() }),
      response: combinedWire,
      errors: ['kyc_required', 'image_too_large', 'unprocessable', 'not_found', 'engine_unreachable'],
    },
  );
  const accountRef = { svc_access_token: z.string().optional(), svc_id: z.string().optional() };
  const burst = z.object({
    image: image.optional().describe('one selfie (single mode); or send frames'),
    frames: z.array(image).min(3).max(8).optional().describe('a burst of 3 to 8 frames, in order (multipart: repeat the field)'),
    challengeId: z.string().optional().describe('from POST /api/v2/antispoof/challenge; the burst must show its gesture'),
    challenge_id: z.string().optional().describe('the same as challengeId (the name the challenge route also answers with)'),
    captured_ms: z.array(z.number()).optional().describe('per frame, milliseconds between receiving the challenge and taking the frame; frames before the challenge or spread over more than 4 s are refused'),
    ...accountRef,
  });
  const burstErrors: ErrorCode[] = ['invalid_frames', 'too_many_frames', 'frames_required', 'invalid_challenge', 'challenge_expired', 'image_too_large', 'unprocessable', 'no_face', 'face_not_enrolled'];
  route(
    '/antispoof',
    core.checks.antispoof,
    { images: ['image'], imageArrays: ['frames'], arrays: ['captured_ms'] },
    {
      summary: 'Anti-spoof of one selfie (passive) or a burst of 3 to 8 frames (motion, blinks, pose; optional gesture challenge): human_score 0..1, live_score, result',
      body: burst,
      errors: burstErrors,
    },
  );
  route(
    '/antispoof/identity',
    core.checks.faceIdentity,
    { images: ['image'], imageArrays: ['frames'], arrays: ['captured_ms'] },
    {
      summary: "Anti-spoof plus face_id: the project's identity cluster of this face (same person, same id), for duplicate detection",
      body: burst,
      errors: burstErrors,
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
      body: z.object({ image: image.optional(), enroll: z.boolean().optional(), reference: z.string().max(200).optional(), ...accountRef }),
      errors: ['image_too_large', 'unprocessable', 'no_face', 'face_not_enrolled'],
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
    },
    {
      method: 'delete',
      path: '/api/v2/face-uniqueness/{face_id}',
      summary: 'Unlink (delete) an enrolled face of this project',
      tag: 'standalone checks',
      security: 'apiKey',
      errors: ['not_found'],
      response: unlinkedFaceWire,
    },
  );
  route(
    '/age-verification',
    core.checks.age,
    { images: [], arrays: ['bands'] },
    {
      summary: 'Age bands from a date of birth (fresh) or from the account (account mode: thresholds 16, 18, 21, 30, 65)',
      body: ageInput,
      errors: ['missing_dob', 'account_dob_unavailable'],
    },
  );
  route(
    '/location',
    core.checks.location,
    { images: [], numbers: ['latitude', 'longitude', 'accuracy', 'expected_latitude', 'expected_longitude', 'radius_m'] },
    {
      summary: 'A GPS fix, optionally against an expected point and geofence radius',
      body: locationInput,
      errors: [],
    },
  );
  route(
    '/credential-verification',
    core.checks.credential,
    { images: [], booleans: ['do_ai_clean'] },
    {
      summary: "Licence lookup: search (no name), verify (a name), or account mode (the account's verified name; badges the licence)",
      body: credentialInput,
      errors: ['not_found', 'kyc_required', 'engine_unreachable'],
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
    },
    {
      method: 'get',
      path: '/api/v2/credential/states/{state}/providers',
      summary: 'Boards of a state with their credential names and required fields',
      tag: 'credentials',
      security: 'apiKey',
      errors: ['not_found'],
      response: providerListWire,
    },
  );
  return router;
}
