import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describedFace, faceMatchVerdict } from '../src/core/checks/face-match.js';
import type { FaceDescription } from '../src/core/face-engine.js';
import { decodeImage } from '../src/ml/image.js';
import { labelledPairs, labelledPhotos } from './helpers/faces.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

// POST /api/v2/face-match with the real face models on the shared evaluation images (read from
// ../shared/data, never copied here).

const data = fileURLToPath(new URL('../../shared/data/', import.meta.url));
const available = existsSync(`${data}faceapi-bbt-identities`);
if (!available) console.info(`skipping face-match tests on real images: ${data} is absent`);
const image = (path: string) => readFileSync(`${data}${path}`);
/** The labelled face sets of ../shared/data that are present. */
const FACE_SETS = ['face_recognition-obama-biden', 'faceapi-bbt-identities', 'deepface-verification-pairs'].filter(
  (set) => existsSync(`${data}${set}/LABELS.csv`),
);

let service: TestService;
const post = () => service.http.post('/api/v2/face-match').set('X-API-Key', service.demo.api_key);

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.close();
});

describe('POST /api/v2/face-match', () => {
  it('needs both images', async () => {
    const res = await post().send({});
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(Object.keys(res.body.data.errors)).toEqual(['image1', 'image2']);
  });

  it.skipIf(!available)(
    'passes the same person and fails different people, symmetrically',
    { timeout: 120_000 },
    async () => {
      const same = await post()
        .attach('image1', image('faceapi-bbt-identities/sheldon1.png'), 'a.png')
        .attach('image2', image('faceapi-bbt-identities/sheldon2.png'), 'b.png');
      expect(same.status, JSON.stringify(same.body)).toBe(200);
      expect(same.body.data.status).toBe('passed');
      expect(same.body.data.check.data.threshold).toBe(0.95);
      expect(same.body.data.check.data.similarity).toBeGreaterThanOrEqual(0.95);
      expect(same.body.data.check.score).toBe(same.body.data.check.data.similarity);

      const different = await post()
        .attach('image1', image('faceapi-bbt-identities/sheldon1.png'), 'a.png')
        .attach('image2', image('faceapi-bbt-identities/penny1.png'), 'b.png');
      expect(different.body.data.status).toBe('failed');
      expect(different.body.data.check.data.similarity).toBeLessThan(0.95);
      const strict = await post()
        .field('threshold', '0.999')
        .attach('image1', image('faceapi-bbt-identities/sheldon1.png'), 'a.png')
        .attach('image2', image('faceapi-bbt-identities/sheldon2.png'), 'b.png');
      expect(strict.body.data.check.data.threshold).toBe(0.999);
      expect(strict.body.data.status).toBe(strict.body.data.check.data.similarity >= 0.999 ? 'passed' : 'failed');
      const silly = await post().send({
        image1: image('faceapi-bbt-identities/sheldon1.png').toString('base64'),
        image2: image('faceapi-bbt-identities/sheldon2.png').toString('base64'),
        threshold: 0.1,
      });
      expect(silly.status).toBe(400);
      expect(silly.body.error.code).toBe('validation_error');
      const swapped = await post()
        .attach('image1', image('faceapi-bbt-identities/penny1.png'), 'a.png')
        .attach('image2', image('faceapi-bbt-identities/sheldon1.png'), 'b.png');
      expect(swapped.body.data.check.data.similarity).toBe(different.body.data.check.data.similarity);
    },
  );

  it.skipIf(!available)('answers 422 no_face, uncharged, when an image has no face', { timeout: 120_000 }, async () => {
    const before = Number(
      (
        await sql<{ balance_minor: string }>(service, 'select balance_minor from wallet where project_id = ?', [
          service.demo.project_id,
        ])
      )[0]!.balance_minor,
    );
    const res = await post()
      .attach('image1', image('faceapi-bbt-identities/sheldon1.png'), 'a.png')
      .attach('image2', image('no-face-negatives/landscape_view.jpg'), 'b.jpg');
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('no_face');
    expect(res.body.error.message).toContain('image2');
    const after = Number(
      (
        await sql<{ balance_minor: string }>(service, 'select balance_minor from wallet where project_id = ?', [
          service.demo.project_id,
        ])
      )[0]!.balance_minor,
    );
    expect(after).toBe(before);
  });

  it.skipIf(!available)(
    "compares a selfie with the account's face reference in account mode",
    { timeout: 120_000 },
    async () => {
      const svcId = service.demo.account.svc_id;
      const { token } = await service.core.accessTokens.issue(svcId, service.demo.oidc.client_id, ['openid']);
      const none = await post()
        .field('svc_access_token', token)
        .attach('image2', image('faceapi-bbt-identities/sheldon2.png'), 'b.png');
      expect(none.status).toBe(409);
      expect(none.body.error.code).toBe('face_not_enrolled');
      const faces = await service.core.models.faces();
      const { decodeImage } = await import('../src/ml/image.js');
      const reference = await faces.describeLargestFace(
        await decodeImage(image('faceapi-bbt-identities/sheldon1.png')),
      );
      await service.core.accounts.setFaceReference(svcId, reference!.descriptor);
      const res = await post()
        .field('svc_access_token', token)
        .attach('image2', image('faceapi-bbt-identities/sheldon2.png'), 'b.png');
      expect(res.body.data.status).toBe('passed');
      const stored = await sql<{ face_descriptor_sealed: string }>(
        service,
        'select face_descriptor_sealed from account where id = ?',
        [svcId],
      );
      expect(stored[0]!.face_descriptor_sealed).toMatch(/^v1\./);
      // a reference the old descriptor (face-api's 128-d) made is not compared: the person enrols again
      await sql(service, "update account set face_descriptor_kind = 'face-api-128' where id = ?", [svcId]);
      const stale = await post()
        .field('svc_access_token', token)
        .attach('image2', image('faceapi-bbt-identities/sheldon2.png'), 'b.png');
      expect(stale.status).toBe(409);
      expect(stale.body.error.code).toBe('face_not_enrolled');
      expect(stale.body.data).toEqual({ reason: 'reference_outdated' });
      expect(stale.body.error.message).toContain('enrols their face again');
      expect(none.body.data).toBeNull();
    },
  );
  it.skipIf(!available)(
    'sends a tiny face to review with the reason instead of a confident answer',
    { timeout: 120_000 },
    async () => {
      const sharp = (await import('sharp')).default;
      // the same photo's face shrunk to about 40 px, on a larger plain canvas so the detector still finds it
      const small = await sharp(image('faceapi-bbt-identities/sheldon2.png'))
        .resize(48, 48)
        .extend({ top: 100, bottom: 100, left: 100, right: 100, background: '#808080' })
        .png()
        .toBuffer();
      const res = await post()
        .attach('image1', image('faceapi-bbt-identities/sheldon1.png'), 'a.png')
        .attach('image2', small, 'b.png');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.status).toBe('review');
      expect(res.body.data.check.data.quality).toEqual([{ image: 'image2', reason: 'face_too_small' }]);
      expect(res.body.data.check.error).toContain('px across');
      // each description was timed for ops
      expect((await service.http.get('/metrics')).text).toMatch(
        /verity_model_inference_seconds_count\{model="face_describe"\} [1-9]/,
      );
    },
  );

  it.skipIf(!available)(
    'sends a blurred face, a face cut by the frame and a cartoon to review, each with its reason',
    { timeout: 120_000 },
    async () => {
      const sharp = (await import('sharp')).default;
      const photo = image('face_recognition-obama-biden/obama2.jpg');
      const { width, height } = await sharp(photo).metadata();
      const faces = await service.core.models.faces();
      const { decodeImage } = await import('../src/ml/image.js');
      const face = (await faces.describeLargestFace(await decodeImage(photo)))!;
      const xs = face.landmarks.map((p) => p.x);
      const extent = Math.max(...xs) - Math.min(...xs);
      // out of focus: a Gaussian blur of a fortieth of the face's width
      const blurred = await sharp(photo)
        .blur(extent / 40)
        .jpeg()
        .toBuffer();
      const soft = await post()
        .attach('image1', image('face_recognition-obama-biden/obama.jpg'), 'a.jpg')
        .attach('image2', blurred, 'b.jpg');
      expect(soft.status, JSON.stringify(soft.body)).toBe(200);
      expect(soft.body.data.status).toBe('review');
      expect(soft.body.data.check.data.quality).toEqual([{ image: 'image2', reason: 'face_blurred' }]);
      // the frame's right edge runs through the middle of the face
      const cutAt = Math.round(Math.min(...xs) + 0.55 * extent);
      const cut = await sharp(photo)
        .extract({ left: 0, top: 0, width: Math.min(width!, cutAt), height: height! })
        .jpeg()
        .toBuffer();
      const half = await post()
        .attach('image1', cut, 'a.jpg')
        .attach('image2', image('face_recognition-obama-biden/obama.jpg'), 'b.jpg');
      expect(half.status, JSON.stringify(half.body)).toBe(200);
      expect(half.body.data.status).toBe('review');
      expect(half.body.data.check.data.quality).toEqual([{ image: 'image1', reason: 'face_cut' }]);
      expect(half.body.data.check.error).toContain('cuts the face');
      // a cartoon of the same photo: smoothed, then posterised to six tones per channel
      const { data: smooth, info } = await sharp(photo)
        .median(Math.round(extent / 25) | 1)
        .raw()
        .toBuffer({ resolveWithObject: true });
      const posterised = Buffer.from(smooth.map((v) => Math.min(255, Math.floor(v / 42.7) * 42.7 + 21)));
      const cartoon = await sharp(posterised, {
        raw: { width: info.width, height: info.height, channels: info.channels },
      })
        .jpeg({ quality: 90 })
        .toBuffer();
      const drawn = await post()
        .attach('image1', image('face_recognition-obama-biden/obama.jpg'), 'a.jpg')
        .attach('image2', cartoon, 'b.jpg');
      expect(drawn.status, JSON.stringify(drawn.body)).toBe(200);
      expect(drawn.body.data.status).toBe('review');
      expect(drawn.body.data.check.data.quality).toEqual([{ image: 'image2', reason: 'face_cartoon' }]);
      expect(drawn.body.data.check.error).toContain('not photographed');
      // the untouched pair still passes: the gates do not stand in the way of a good photo
      const good = await post()
        .attach('image1', image('face_recognition-obama-biden/obama.jpg'), 'a.jpg')
        .attach('image2', photo, 'b.jpg');
      expect(good.body.data.status).toBe('passed');
    },
  );

  it.skipIf(!available)(
    'fails every different-person pair and passes the same-person pairs of every shared face set',
    { timeout: 600_000 },
    async () => {
      // Every labelled photo of each set described once by the real models; the route's own verdict
      // judges every pair of the set (PAIRS.csv's labels where given, else the photos' people), and
      // a few pairs through the route show it answers exactly that verdict.
      const described = new Map<string, FaceDescription>();
      const falseAccepts: string[] = [];
      const falseRejects: string[] = [];
      const reviews: string[] = [];
      let same = 0;
      let pairs = 0;
      for (const set of FACE_SETS) {
        for (const { file } of labelledPhotos(set))
          described.set(
            `${set}/${file}`,
            await describedFace(service.core.faceEngine, await decodeImage(image(`${set}/${file}`)), file),
          );
        for (const pair of labelledPairs(set)) {
          const verdict = faceMatchVerdict(described.get(`${set}/${pair.a}`)!, described.get(`${set}/${pair.b}`)!);
          const name = `${set}: ${pair.a} ~ ${pair.b} ${verdict.status} ${verdict.score}`;
          pairs++;
          if (pair.same) same++;
          if (verdict.status === 'review') reviews.push(name);
          else if (!pair.same && verdict.status !== 'failed') falseAccepts.push(name);
          else if (pair.same && verdict.status !== 'passed') falseRejects.push(name);
        }
      }
      expect(falseAccepts).toEqual([]);
      // At the operating point (docs/face-engine.md, "Face match: the descriptor"): 7 of 291 same-person pairs refused
      // (a
      // grinning,
      // cut-off leonard5 against his three other photos, penny1's open mouth against penny3 in
      // profile, three deepface pairs just under it); the gates send every pair of the partial and
      // turned faces (obama_partial_face, stuart5) to review, 3% of the pairs.
      expect(falseRejects.length, falseRejects.join('; ')).toBeLessThanOrEqual(Math.ceil(same * 0.03));
      expect(reviews.length, reviews.join('; ')).toBeLessThanOrEqual(Math.ceil(pairs * 0.05));

      for (const [a, b] of [
        ['faceapi-bbt-identities/amy1.png', 'faceapi-bbt-identities/amy2.png'],
        ['faceapi-bbt-identities/amy1.png', 'faceapi-bbt-identities/penny2.png'],
        ['deepface-verification-pairs/img31.jpg', 'deepface-verification-pairs/img35.jpg'],
      ] as const) {
        if (!described.has(a) || !described.has(b)) continue;
        const res = await post().attach('image1', image(a), 'a.jpg').attach('image2', image(b), 'b.jpg');
        const verdict = faceMatchVerdict(described.get(a)!, described.get(b)!);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect({ status: res.body.data.status, similarity: res.body.data.check.data.similarity }).toEqual({
          status: verdict.status,
          similarity: verdict.score,
        });
      }
    },
  );
});
