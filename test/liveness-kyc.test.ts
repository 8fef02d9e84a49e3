import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDocument } from './helpers/documents.js';
import { startTestService, type TestService } from './helpers/service.js';

// POST /api/v2/liveness and /api/v2/kyc-credential with the real models. The shared images are
// read from ../shared/data (never copied here).

const data = fileURLToPath(new URL('../../shared/data/', import.meta.url));
const available = existsSync(`${data}liveness-samples`) && existsSync(`${data}face_recognition-obama-biden`);
if (!available) console.info(`skipping liveness and kyc-credential tests on real images: ${data} is absent`);
const image = (path: string) => readFileSync(`${data}${path}`);

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ seedLicenses: true });
});
afterAll(async () => {
  await service?.close();
});

describe('POST /api/v2/liveness', () => {
  const post = () => service.http.post('/api/v2/liveness').set('X-API-Key', service.demo.api_key);

  it('needs an image', async () => {
    const res = await post().send({});
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
  });

  it.skipIf(!available)(
    'passes the live selfie, fails the print and screen attacks, answers 422 no_face without a face',
    { timeout: 180_000 },
    async () => {
      const live = await post().attach('image', image('liveness-samples/live_image_T1.jpg'), 'live.jpg');
      expect(live.status, JSON.stringify(live.body)).toBe(200);
      expect(live.body.data.check.data).toMatchObject({ live_score: 1, result: 'live' });
      expect(live.body.data.status).toBe('passed');
      for (const attack of [
        'liveness-samples/spoof_print_image_F1.jpg',
        'liveness-samples/spoof_screen_tablet_image_F2.jpg',
      ]) {
        const res = await post().attach('image', image(attack), 'attack.jpg');
        expect(res.body.data.check.data, attack).toMatchObject({ live_score: 0, result: 'spoof' });
        expect(res.body.data.status).toBe('failed');
        expect(res.body.data.check.data.evidence.length).toBeGreaterThan(0);
      }
      const none = await post().attach('image', image('no-face-negatives/landscape_view.jpg'), 'none.jpg');
      expect(none.status).toBe(422);
      expect(none.body.error.code).toBe('no_face');
    },
  );
});

describe('POST /api/v2/kyc-credential', () => {
  const post = () => service.http.post('/api/v2/kyc-credential').set('X-API-Key', service.demo.api_key);

  it('needs the ID first (kyc_required), then the other fields', async () => {
    const noId = await post()
      .field('license_state', 'CA')
      .field('license_type', 'RN')
      .field('license_number', 'RN-0012345');
    expect(noId.status).toBe(400);
    expect(noId.body.error.code).toBe('kyc_required');
    const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#888' } })
      .jpeg()
      .toBuffer();
    const rest = await post().attach('front_image', jpeg, 'id.jpg');
    expect(rest.status).toBe(400);
    expect(rest.body.error.code).toBe('validation_error');
    expect(Object.keys(rest.body.data.errors).sort()).toEqual([
      'license_number',
      'license_state',
      'license_type',
      'selfie',
    ]);
    const unknown = await post()
      .attach('front_image', jpeg, 'id.jpg')
      .attach('selfie', jpeg, 's.jpg')
      .field('state', 'CA')
      .field('provider_code', 'ASTRONAUT')
      .field('license_no', '1');
    expect(unknown.status).toBe(404);
  });

  it.skipIf(!available)(
    'reads the ID, checks the selfie, matches the portrait and looks the licence up by the name on the ID',
    { timeout: 300_000 },
    async () => {
      // A passport page whose portrait is a real photo, and a licence issued to the printed name.
      const doc = await renderDocument({
        name: 'kyc',
        layout: 'TD3',
        font: 'sans',
        rotation: 0,
        skew: 0,
        blur: 0,
        jpegQuality: 92,
        seed: 77,
      });
      const face = await sharp(image('face_recognition-obama-biden/obama.jpg'))
        .resize(240, 300, { fit: 'cover', position: 'attention' })
        .jpeg()
        .toBuffer();
      const front = await sharp(doc.bytes)
        .composite([{ input: face, left: 75, top: 120 }])
        .jpeg({ quality: 92 })
        .toBuffer();
      const given = doc.truth.givenNames.split(' ')[0]!;
      await service.core.credentials.importCsv(
        'state_code,state_name,provider_code,provider_display_name,credential_name,license_number,first_name,middle_name,last_name,status,issued_at,expires_at,specialty,npi\n' +
          `CA,California,RN,California Board of Registered Nursing,Registered Nurse,RN-7777777,${given},,${doc.truth.surname},active,2020-01-01,2030-01-31,Registered Nurse,\n`,
      );
      const send = () =>
        post()
          .attach('front_image', front, 'passport.jpg')
          .attach('selfie', image('face_recognition-obama-biden/obama2.jpg'), 'selfie.jpg')
          .field('license_state', 'CA')
          .field('license_type', 'RN')
          .field('license_number', 'RN-7777777');
      // The licence is looked up by the name on the ID: a name sent beside it is refused, never used.
      const named = await send().field('full_name', 'Somebody Else');
      expect(named.status).toBe(400);
      expect(named.body.data.errors.full_name).toMatch(/unknown field/);
      const res = await send();
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
      const { data } = res.body;
      expect(data.session_id).toMatch(/^chk_/);
      expect(data.checks.map((check: { type: string }) => check.type)).toEqual([
        'id_verification',
        'liveness',
        'face_match',
        'credential',
      ]);
      expect(data.identity.dob).toBe(doc.truth.birthDate);
      expect(data.identity.name.toUpperCase()).toContain(doc.truth.surname.toUpperCase());
      const [id, , match, licence] = data.checks;
      expect(id.data.fields.document_number).toBe(doc.truth.documentNumber);
      expect(match.status).toBe('passed');
      expect(licence.data).toMatchObject({ mode: 'verify', found: true, match: true });
      const everyPassed = data.checks.every((check: { status: string }) => check.status === 'passed');
      expect(data.status === 'passed').toBe(everyPassed);
    },
  );
});
