import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDocument, renderNonDocument, type DocumentSpec } from './helpers/documents.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

// POST /api/v2/id-verification end to end with the real OCR and face models, on documents the
// suite renders itself (the reader's own tests cover many more layouts and the shared set).

let service: TestService;
const post = () => service.http.post('/api/v2/id-verification').set('X-API-Key', service.demo.api_key);
const spec = (overrides: Partial<DocumentSpec>): DocumentSpec => ({ name: 'doc', layout: 'TD3', font: 'sans', rotation: 0, skew: 0, blur: 0, jpegQuality: 90, seed: 11, ...overrides });

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.close();
});

describe('POST /api/v2/id-verification with real models', () => {
  it('reads a passport page: fields, dob, check digits, evidence; keeps nothing raw', { timeout: 180_000 }, async () => {
    const doc = await renderDocument(spec({ seed: 21 }));
    const res = await post().attach('front_image', doc.bytes, 'passport.jpg');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { check } = res.body.data;
    expect(check.type).toBe('id_verification');
    expect(check.data.fields).toMatchObject({
      document_number: doc.truth.documentNumber,
      date_of_birth: doc.truth.birthDate,
      date_of_expiry: doc.truth.expirationDate,
      sex: doc.truth.sex,
      issuing_state: doc.truth.issuingState,
      document_type: 'passport',
    });
    expect(check.data.dob).toBe(doc.truth.birthDate);
    expect(check.data.mrz).toMatchObject({ format: 'TD3', valid: true });
    const evidence = Object.fromEntries(check.data.authenticity.evidence.map((e: { name: string; passed: boolean }) => [e.name, e.passed]));
    expect(evidence).toMatchObject({ mrz_present: true, check_digits_valid: true, not_expired: true, layout_consistent: true });
    expect(check.score).toBe(check.data.authenticity.score);
    expect(['passed', 'review']).toContain(res.body.data.status);
    const stored = JSON.stringify(await sql(service, 'select * from check_record where id = ?', [res.body.data.session_id]));
    expect(stored).not.toContain(doc.truth.documentNumber);
    expect(stored).not.toContain(doc.truth.birthDate);
  });

  it('fails an expired document and a wrong check digit, with the reason', { timeout: 180_000 }, async () => {
    const expired = await renderDocument(spec({ seed: 31, expired: true }));
    const res = await post().send({ front_image: `data:image/jpeg;base64,${expired.bytes.toString('base64')}` });
    expect(res.body.data.status).toBe('failed');
    expect(res.body.data.check.error).toContain('expired');

    const broken = await renderDocument(spec({ seed: 41, wrongCheckDigit: true }));
    const bad = await post().attach('front_image', broken.bytes, 'passport.jpg');
    expect(bad.body.data.status).toBe('failed');
    expect(bad.body.data.check.error).toMatch(/invalid check digits/);
  });

  it('reads an ID card from its back and a document turned upside down', { timeout: 180_000 }, async () => {
    const card = await renderDocument(spec({ layout: 'TD1', seed: 51 }));
    const res = await post().attach('front_image', card.bytes, 'front.jpg').attach('back_image', card.back!, 'back.jpg');
    expect(res.body.data.check.data.fields.document_number).toBe(card.truth.documentNumber);
    expect(res.body.data.check.data.fields.document_type).toBe('id_card');

    const turned = await renderDocument(spec({ seed: 61, rotation: 180 }));
    const upside = await post().attach('front_image', turned.bytes, 'turned.jpg');
    expect(upside.body.data.check.data.fields.document_number).toBe(turned.truth.documentNumber);
    expect(upside.body.data.check.data.rotation).toBe(180);
  });

  it('reads a passport and an ID card photographed at an angle, every field exact and every check digit holding', { timeout: 180_000 }, async () => {
    // Held over a table: the far edge 15% narrower than the near one, turned a little, JPEG.
    const passport = await renderDocument(spec({ seed: 71, perspective: 0.15, skew: 4, jpegQuality: 80 }));
    const card = await renderDocument(spec({ layout: 'TD1', seed: 81, perspective: 0.15, skew: -3, jpegQuality: 80 }));
    for (const [doc, documentType, res] of [
      [passport, 'passport', await post().attach('front_image', passport.bytes, 'passport.jpg')],
      [card, 'id_card', await post().attach('front_image', card.bytes, 'front.jpg').attach('back_image', card.back!, 'back.jpg')],
    ] as const) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const { data } = res.body.data.check;
      expect(data.fields).toMatchObject({
        document_number: doc.truth.documentNumber,
        date_of_birth: doc.truth.birthDate,
        date_of_expiry: doc.truth.expirationDate,
        sex: doc.truth.sex,
        issuing_state: doc.truth.issuingState,
        country: doc.truth.nationality,
        document_type: documentType,
      });
      expect(data.mrz.valid).toBe(true);
      expect(Object.values(data.mrz.check_digits).every(Boolean)).toBe(true);
    }
  });

  it('answers 422 unprocessable for a photo with no document, and does not charge it', { timeout: 180_000 }, async () => {
    const before = Number((await sql<{ balance_minor: string }>(service, 'select balance_minor from wallet where project_id = ?', [service.demo.project_id]))[0]!.balance_minor);
    const res = await post().attach('front_image', await renderNonDocument(), 'lake.jpg');
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('unprocessable');
    const after = Number((await sql<{ balance_minor: string }>(service, 'select balance_minor from wallet where project_id = ?', [service.demo.project_id]))[0]!.balance_minor);
    expect(after).toBe(before);
  });
});
