import { expect } from 'vitest';
import { decodeImage } from '../../src/ml/image.js';
import { renderDocument, renderSpecs } from './documents.js';
import { markerFaceEngine, markerImage, type MarkerFace } from './face-engine.js';
import { sql, type TestService } from './service.js';

// Sessions for the admin API and console tests, made through the real REST and hosted-page APIs.

export const dataUrl = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`;

/** What each challenge gesture looks like to the deterministic face engine. */
const PERFORM: Record<string, Partial<MarkerFace>> = {
  turn_left: { yaw: 0.2 },
  turn_right: { yaw: -0.2 },
  look_up: { pitch: -0.15 },
  blink: { ear: 0.05 },
  smile: { mouth: 1.3 },
};

export async function createSession(service: TestService, apiKey: string, body: Record<string, unknown>) {
  const response = await service.http.post('/api/v2/session').set('X-API-Key', apiKey).send(body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data as { session_id: string; session_token: string };
}

export async function submitStep(service: TestService, token: string, step: string, body: object) {
  const response = await service.http
    .post(`/api/hosted/session/steps/${step}`)
    .set('X-Session-Token', token)
    .send(body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data as { status: string };
}

/**
 * A selfie burst of person 7 performing the session's gesture challenge: live, or (`live: false`) a photo of a photo.
 */
export async function liveBurst(service: TestService, token: string, live = true) {
  const challenge = await service.http.post('/api/hosted/session/challenge').set('X-Session-Token', token).send({});
  expect(challenge.status, JSON.stringify(challenge.body)).toBe(200);
  const { challenge_id, gesture } = challenge.body.data;
  const face: MarkerFace = { person: 7, live, jitter: 0.05 };
  const burst = [face, { ...face, nonce: 1, ...PERFORM[gesture] }, { ...face, nonce: 2 }];
  return {
    frames: await Promise.all(burst.map(async (f) => dataUrl(await markerImage(f)))),
    challenge_id,
    captured_ms: [0, 200, 400],
  };
}

let card: Promise<Buffer> | undefined;
/** The front of an ID card without its back: printed fields, no machine-readable zone, so the OCR asks for a person. */
const reviewCard = () =>
  (card ??= renderDocument({
    ...renderSpecs(2)[1]!,
    layout: 'TD1',
    rotation: 0,
    skew: 0,
    blur: 0,
    jpegQuality: null,
  }).then((doc) => doc.bytes));

/**
 * A demo-project session in IN_REVIEW. With `approvable`, the workflow also has liveness and face
 * match, both passed (the face match against a bound account's face reference), so a reviewer may
 * approve it; without, approval is refused (409) and only a decline works.
 */
export async function inReviewSession(
  service: TestService,
  options: { approvable?: boolean; email?: string; vendorData?: string } = {},
): Promise<{ sessionId: string; svcId: string | null }> {
  const features = options.approvable ? ['id_verification', 'liveness', 'face_match'] : ['id_verification'];
  const workflow = await service.core.tenancy.createWorkflow({
    projectId: service.demo.project_id,
    name: features.join('+'),
    features,
  });
  let svcId: string | null = null;
  let svcToken: string | undefined;
  if (options.approvable) {
    const account = await service.core.accounts.createAccount({
      email: options.email ?? 'review@example.com',
      password: 'correct horse battery',
    });
    const face = await markerFaceEngine().describeLargestFace(
      await decodeImage(await markerImage({ person: 7, live: true })),
    );
    await service.core.accounts.setFaceReference(account.svcId, face!.descriptor);
    svcToken = (await service.core.accessTokens.issue(account.svcId, service.demo.oidc.client_id, ['openid'])).token;
    svcId = account.svcId;
  }
  const session = await createSession(service, service.demo.api_key, {
    workflow_id: workflow.id,
    ...(svcToken ? { svc_access_token: svcToken } : {}),
    ...(options.vendorData ? { vendor_data: options.vendorData } : {}),
  });
  await submitStep(service, session.session_token, 'document', { front_image: dataUrl(await reviewCard()) });
  if (options.approvable)
    await submitStep(service, session.session_token, 'selfie', await liveBurst(service, session.session_token));
  const [row] = await sql<{ status: string }>(service, 'select status from verification_session where id = ?', [
    session.session_id,
  ]);
  expect(row!.status).toBe('IN_REVIEW');
  return { sessionId: session.session_id, svcId };
}

/**
 * A demo-project session whose history has every kind of try: an expired document asked again, a
 * document that reads (sent to review), then three selfies judged not live, the last declining it.
 * Its images are kept per try (document tries 1 and 2, selfie tries 1 to 3).
 */
export async function triedSession(service: TestService, vendorData: string): Promise<string> {
  const features = ['id_verification', 'liveness', 'face_match'];
  const workflow = await service.core.tenancy.createWorkflow({
    projectId: service.demo.project_id,
    name: 'tries',
    features,
  });
  const session = await createSession(service, service.demo.api_key, {
    workflow_id: workflow.id,
    vendor_data: vendorData,
  });
  const expired = await renderDocument({
    ...renderSpecs(1)[0]!,
    seed: 77,
    expired: true,
    layout: 'TD3',
    rotation: 0,
    skew: 0,
    blur: 0,
    jpegQuality: null,
  });
  const refused = await service.http
    .post('/api/hosted/session/steps/document')
    .set('X-Session-Token', session.session_token)
    .send({ front_image: dataUrl(expired.bytes) });
  expect(refused.body.error?.code, JSON.stringify(refused.body)).toBe('step_retry_required');
  await submitStep(service, session.session_token, 'document', { front_image: dataUrl(await reviewCard()) });
  for (let i = 0; i < 3; i++) {
    const selfie = await service.http
      .post('/api/hosted/session/steps/selfie')
      .set('X-Session-Token', session.session_token)
      .send(await liveBurst(service, session.session_token, false));
    expect(i < 2 ? selfie.body.error?.code : selfie.body.data?.status, JSON.stringify(selfie.body)).toBe(
      i < 2 ? 'face_rescan_required' : 'DECLINED',
    );
  }
  return session.session_id;
}
