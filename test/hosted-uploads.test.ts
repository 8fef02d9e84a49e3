import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FRAMES } from '../src/core/checks/antispoof.js';
import type { Core } from '../src/core/index.js';
import type { SessionRecord } from '../src/core/sessions/store.js';
import { CHECK_BODY_LIMIT } from '../src/http/input.js';
import { FIELDS_ONLY_LIMIT, oneUploadPerSession, stepUploadRules } from '../src/rest/step-uploads.js';
import { markerFaceEngine, markerImage } from './helpers/face-engine.js';
import { sql, startListeningService, type ListeningService } from './helpers/service.js';
import { multipartLength, type Part, uploadUntilAnswered } from './helpers/uploads.js';

// A hosted step is sent with nothing but a session token, so it is refused before its body is
// read wherever it can be: a step the session does not take, a closed session, a selfie whose
// challenge is unknown, a body declared too large, a second upload of the same session. What is
// read is read within caps (64 MB a body, 20 MB a file, 8 frames) and refused as soon as one is
// crossed. Before, 20 frames of 19 MB were all buffered before any of this was looked at
// (issue #46, item 6). `holdOpen` uploads never finish their body: an answer to one shows the
// service did not wait for it.

let service: ListeningService;
let liveness: string;
let location: string;

beforeAll(async () => {
  service = await startListeningService({ challengeGestures: ['blink'] }, { faceEngine: markerFaceEngine() });
  const workflow = async (features: string[]) =>
    (
      await service.core.tenancy.createWorkflow({
        projectId: service.demo.project_id,
        name: features.join('+'),
        features,
      })
    ).id;
  liveness = await workflow(['liveness']);
  location = await workflow(['location']);
}, 120_000);
afterAll(async () => {
  await service?.close();
});

async function openSession(workflowId: string): Promise<{ session_id: string; session_token: string }> {
  const response = await fetch(`${service.url}/api/v2/session`, {
    method: 'POST',
    headers: { 'X-API-Key': service.demo.api_key, 'content-type': 'application/json' },
    body: JSON.stringify({ workflow_id: workflowId }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: { session_id: string; session_token: string } }).data;
}

async function challengeOf(token: string): Promise<string> {
  const response = await fetch(`${service.url}/api/hosted/session/challenge`, {
    method: 'POST',
    headers: { 'X-Session-Token': token },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { challenge_id: string } }).data.challenge_id;
}

const step = (token: string, name: string, parts: Part[], options: Parameters<typeof uploadUntilAnswered>[4] = {}) =>
  uploadUntilAnswered(service.url, `/api/hosted/session/steps/${name}`, { 'X-Session-Token': token }, parts, options);

const MB = 1024 * 1024;
const frame = (bytes: number): Part => ({ file: 'frames', bytes: randomBytes(bytes) });

describe('refused before the body is read', () => {
  it('a step the session does not take, a closed session, a step already done', async () => {
    const session = await openSession(liveness);
    const lacking = await step(session.session_token, 'document', [{ file: 'front_image', bytes: randomBytes(MB) }], {
      holdOpen: true,
    });
    expect([lacking.status, lacking.body.error?.code, lacking.complete]).toEqual([404, 'not_found', false]);

    const placed = await openSession(location);
    const answered = await fetch(`${service.url}/api/hosted/session/steps/location`, {
      method: 'POST',
      headers: { 'X-Session-Token': placed.session_token, 'content-type': 'application/json' },
      body: JSON.stringify({ latitude: 48.8584, longitude: 2.2945, accuracy: 5 }),
    });
    expect(answered.status).toBe(200);
    const again = await step(placed.session_token, 'location', [{ field: 'latitude', value: '1' }], { holdOpen: true });
    // The session is decided by its only step: closed.
    expect([again.status, again.body.error?.code, again.complete]).toEqual([409, 'session_closed', false]);

    const closed = await openSession(liveness);
    await sql(service, `update verification_session set status = 'DECLINED' where id = ?`, [closed.session_id]);
    const late = await step(closed.session_token, 'selfie', [frame(MB)], { holdOpen: true });
    expect([late.status, late.body.error?.code, late.complete]).toEqual([409, 'session_closed', false]);
  });

  it('a selfie whose challenge is unknown, or that sends frames before its challenge_id, before any frame is read', async () => {
    const session = await openSession(liveness);
    const unknown = await step(
      session.session_token,
      'selfie',
      [{ field: 'challenge_id', value: 'chl_000000000000000000000000' }, frame(MB)],
      { holdOpen: true },
    );
    expect([unknown.status, unknown.body.error?.code, unknown.complete]).toEqual([403, 'invalid_challenge', false]);
    const framesFirst = await step(
      session.session_token,
      'selfie',
      [frame(MB), { field: 'challenge_id', value: await challengeOf(session.session_token) }],
      { holdOpen: true },
    );
    expect([framesFirst.status, framesFirst.body.error?.code, framesFirst.complete]).toEqual([
      400,
      'validation_error',
      false,
    ]);
    expect(framesFirst.body.error?.message).toContain('challenge_id');
  });

  it('a declared body over 64 MB (20 frames of 19 MB), with a few bytes sent', async () => {
    const session = await openSession(liveness);
    const parts: Part[] = [
      { field: 'challenge_id', value: await challengeOf(session.session_token) },
      { ...frame(19 * MB), times: 20 },
    ];
    const declared = await step(session.session_token, 'selfie', parts.slice(0, 1), {
      declareLength: multipartLength(parts),
      holdOpen: true,
    });
    expect([declared.status, declared.body.error?.code, declared.complete]).toEqual([413, 'payload_too_large', false]);
  });

  it('a second upload of the same session while one is being read, whichever token sends it; the next one after it goes through', async () => {
    const session = await openSession(liveness);
    const link = await fetch(`${service.url}/api/hosted/session/handoff`, {
      method: 'POST',
      headers: { 'X-Session-Token': session.session_token },
    });
    const code = new URL(((await link.json()) as { data: { url: string } }).data.url).hash.slice(1);
    const claimed = await fetch(`${service.url}/api/hosted/handoff/claim`, {
      method: 'POST',
      headers: { 'X-Session-Token': code },
    });
    const phone = ((await claimed.json()) as { data: { session_token: string } }).data.session_token;

    const first = new AbortController();
    const reading = step(
      session.session_token,
      'selfie',
      [{ field: 'challenge_id', value: await challengeOf(session.session_token) }, frame(MB)],
      { holdOpen: true, signal: first.signal },
    ).catch(() => null);
    // Wait until the first upload holds the session: a second one is refused unread.
    let second = await step(phone, 'selfie', [frame(MB)], { holdOpen: true });
    for (let tries = 0; second.status !== 409 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      second = await step(phone, 'selfie', [frame(MB)], { holdOpen: true });
    }
    expect([second.status, second.body.error?.code, second.complete]).toEqual([409, 'conflict', false]);
    expect(second.body.error?.message).toContain('another step of this session');

    // The first upload's caller hangs up: the session takes uploads again.
    first.abort();
    await reading;
    let next = await step(phone, 'selfie', [{ field: 'challenge_id', value: 'chl_000000000000000000000000' }]);
    for (let tries = 0; next.status === 409 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      next = await step(phone, 'selfie', [{ field: 'challenge_id', value: 'chl_000000000000000000000000' }]);
    }
    expect(next.body.error?.code).toBe('invalid_challenge');
  });
});

describe('read within caps, and refused as soon as one is crossed', () => {
  it('an endless stream of 19 MB frames is cut at 64 MB with 413 payload_too_large', async () => {
    const session = await openSession(liveness);
    const parts: Part[] = [
      { field: 'challenge_id', value: await challengeOf(session.session_token) },
      { ...frame(19 * MB), times: 20 },
    ];
    const answer = await step(session.session_token, 'selfie', parts);
    expect([answer.status, answer.body.error?.code, answer.complete]).toEqual([413, 'payload_too_large', false]);
    // Answered once 64 MB had been read: what was still in flight (socket buffers), not 380 MB.
    expect(answer.sent).toBeLessThan(CHECK_BODY_LIMIT + 32 * MB);
  });

  it('a frame over 20 MB: 413 image_too_large; a ninth frame: 400 too_many_frames, as it starts', async () => {
    const session = await openSession(liveness);
    const challenge = await challengeOf(session.session_token);
    const huge = await step(
      session.session_token,
      'selfie',
      [{ field: 'challenge_id', value: challenge }, frame(21 * MB)],
      { holdOpen: true },
    );
    expect([huge.status, huge.body.error?.code, huge.complete]).toEqual([413, 'image_too_large', false]);
    const many = await step(
      session.session_token,
      'selfie',
      [
        { field: 'challenge_id', value: challenge },
        { ...frame(1024), times: MAX_FRAMES + 1 },
      ],
      { holdOpen: true },
    );
    expect([many.status, many.body.error?.code, many.complete]).toEqual([400, 'too_many_frames', false]);
  });

  it('a step without images takes no file and a few fields only', async () => {
    const session = await openSession(location);
    const file = await step(session.session_token, 'location', [{ file: 'front_image', bytes: randomBytes(1024) }], {
      holdOpen: true,
    });
    expect([file.status, file.body.error?.code, file.complete]).toEqual([400, 'validation_error', false]);
    const padded = await step(
      session.session_token,
      'location',
      [
        { field: 'source', value: 'x'.repeat(60 * 1024) },
        { field: 'error', value: 'x'.repeat(60 * 1024) },
      ],
      { holdOpen: true },
    );
    expect([padded.status, padded.body.error?.code, padded.complete]).toEqual([413, 'payload_too_large', false]);
  });

  it('a selfie sent as multipart, fields first, goes through', async () => {
    const session = await openSession(liveness);
    const challenge = await challengeOf(session.session_token);
    const face = { person: 7, jitter: 0.03 };
    const frames = await Promise.all(
      [face, { ...face, nonce: 1, ear: 0.05 }, { ...face, nonce: 2 }].map((f) => markerImage(f)),
    );
    const parts: Part[] = [
      { field: 'challenge_id', value: challenge },
      ...[0, 200, 400].map((ms) => ({ field: 'captured_ms', value: String(ms) })),
      ...frames.map((bytes) => ({ file: 'frames', bytes })),
    ];
    const answer = await step(session.session_token, 'selfie', parts);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.complete).toBe(true);
  });
});

describe('stepUploadRules', () => {
  const session = { id: 'ses_1', projectId: 'prj_1', features: ['liveness'] } as unknown as SessionRecord;
  const core = { sessions: { assertSelfieChallenge: async () => undefined } } as unknown as Core;
  it('gives the document two files, the selfie MAX_FRAMES within 64 MB, the other steps no file and 64 KB', () => {
    expect(stepUploadRules(core, session, 'document')).toMatchObject({ maxBytes: CHECK_BODY_LIMIT, maxFiles: 2 });
    const selfie = stepUploadRules(core, session, 'selfie');
    expect(selfie).toMatchObject({ maxBytes: CHECK_BODY_LIMIT, maxFiles: MAX_FRAMES });
    expect(selfie.tooManyFiles().code).toBe('too_many_frames');
    expect(selfie.beforeImages).toBeTypeOf('function');
    for (const name of ['location', 'licence'])
      expect(stepUploadRules(core, session, name)).toMatchObject({ maxBytes: FIELDS_ONLY_LIMIT, maxFiles: 0 });
  });
});

describe('oneUploadPerSession', () => {
  const response = (sessionId: string) =>
    Object.assign(new EventEmitter(), { locals: { session: { id: sessionId } } }) as unknown as Response & EventEmitter;
  const uploads = oneUploadPerSession((res) => res.locals.session as SessionRecord);
  const claim = (res: Response) => uploads.claim(undefined as never, res, () => undefined);

  it('holds a session from its upload until its answer, other sessions free', () => {
    const first = response('ses_a');
    claim(first);
    expect(() => claim(response('ses_a'))).toThrow(expect.objectContaining({ code: 'conflict' }));
    claim(response('ses_b'));
    first.emit('close');
    claim(response('ses_a'));
  });

  it('a caller hanging up while the step runs frees the session only when the step ends', async () => {
    const res = response('ses_c');
    claim(res);
    let finish: () => void = () => {};
    const running = uploads.runningStep(res, () => new Promise<void>((resolve) => (finish = resolve)));
    res.emit('close');
    expect(() => claim(response('ses_c'))).toThrow(expect.objectContaining({ code: 'conflict' }));
    finish();
    await running;
    claim(response('ses_c'));
  });
});
