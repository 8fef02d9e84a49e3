import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  encodeAamva,
  makeHolder,
  photograph,
  renderBack,
  renderFront,
  type Photography,
} from '../scripts/aamva-set.js';
import { renderDocument } from './helpers/documents.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

// POST /api/v2/id-verification on North American licences (generated, fictional) and on the
// inputs that must not pass: a barcode that is not a licence, a broken AAMVA header, a passport
// whose check digit was tampered with, a blank page and a PDF.

let service: TestService;
const post = () => service.http.post('/api/v2/id-verification').set('X-API-Key', service.demo.api_key);
const balance = async () =>
  Number(
    (
      await sql<{ balance_minor: string }>(service, 'select balance_minor from wallet where project_id = ?', [
        service.demo.project_id,
      ])
    )[0]!.balance_minor,
  );
/** Held in the hand: slightly tilted and in perspective, JPEG. */
const handheld: Photography = {
  rotation: 0,
  tilt: 2.5,
  perspective: 0.05,
  blur: 0.6,
  glare: true,
  jpegQuality: 80,
  fill: 0.8,
};

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.close();
});

describe('POST /api/v2/id-verification with a licence barcode', () => {
  it('reads every field of a generated licence from its PDF417 and passes it without an MRZ', {
    timeout: 120_000,
  }, async () => {
    const holder = makeHolder(4242, {
      version: 9,
      country: 'USA',
      jurisdiction: 'TX',
      iin: '636015',
      postalCode: '78701',
      type: 'DL',
    });
    const back = await photograph(await renderBack(holder, encodeAamva(holder)), { ...handheld, rotation: 90 });
    const front = await photograph(renderFront(holder), handheld);
    const res = await post().attach('front_image', front, 'front.jpg').attach('back_image', back, 'back.jpg');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { check } = res.body.data;
    expect(check.data.fields).toEqual({
      full_name: `${holder.givenNames} ${holder.middleName} ${holder.familyName}`.replace(/\s+/g, ' '),
      fathers_name: '',
      document_number: holder.number,
      date_of_birth: holder.birthDate,
      date_of_issue: holder.issueDate,
      date_of_expiry: holder.expiryDate,
      sex: holder.sex,
      issuing_state: 'TX',
      country: 'USA',
      document_type: 'driver_license',
    });
    expect(check.data.dob).toBe(holder.birthDate);
    expect(check.data.barcode).toMatchObject({
      format: 'PDF417',
      side: 'back',
      aamva: {
        version: 9,
        iin: '636015',
        address: { street: holder.street, city: holder.city, jurisdiction: 'TX', postal_code: '78701' },
      },
    });
    const evidence = Object.fromEntries(
      check.data.authenticity.evidence.map((e: { name: string; passed: boolean }) => [e.name, e.passed]),
    );
    expect(evidence).toMatchObject({ aamva_barcode_valid: true, not_expired: true, barcode_matches_front: true });
    expect(res.body.data.status).toBe('passed');
  });

  it('sends a barcode that is not a licence to review with the reason: a QR code, plain text in a PDF417, a broken AAMVA header', {
    timeout: 120_000,
  }, async () => {
    const holder = makeHolder(4343);
    const cases: Array<[string, Buffer, RegExp]> = [
      ['qr', await renderBack(holder, 'https://example.com/loyalty/123456', 'qrcode'), /barcode_not_aamva/],
      ['text', await renderBack(holder, 'THIS CARD IS A GYM MEMBERSHIP 2031'), /barcode_not_aamva/],
      [
        'header',
        await renderBack(holder, encodeAamva(holder).replace(/ANSI \d{6}\d{2}/, 'ANSI 63601499')),
        /barcode_invalid/,
      ],
    ];
    for (const [name, card, reason] of cases) {
      const res = await post().attach('front_image', await photograph(card, handheld), `${name}.jpg`);
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.data.status, name).toBe('review');
      expect(res.body.data.check.error, name).toMatch(reason);
      expect(res.body.data.check.data.barcode.aamva, name).toBeNull();
    }
  });
});

describe('POST /api/v2/id-verification refuses what must not pass', () => {
  it('fails a synthetic passport photo whose document-number check digit was altered', {
    timeout: 120_000,
  }, async () => {
    const doc = await renderDocument({
      name: 'tampered',
      layout: 'TD3',
      font: 'sans',
      rotation: 0,
      skew: 2,
      blur: 0.5,
      jpegQuality: 75,
      seed: 77,
      wrongCheckDigit: true,
    });
    const res = await post().attach('front_image', doc.bytes, 'passport.jpg');
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('failed');
    expect(res.body.data.check.error).toMatch(/invalid check digits: document_number/);
  });

  it('answers a blank page and a PDF with the catalogue codes, never a 500, and charges neither', {
    timeout: 120_000,
  }, async () => {
    const before = await balance();
    const blank = await sharp({ create: { width: 1240, height: 1754, channels: 3, background: '#ffffff' } })
      .jpeg()
      .toBuffer();
    const page = await post().attach('front_image', blank, 'blank.jpg');
    expect(page.status, JSON.stringify(page.body)).toBe(422);
    expect(page.body.error.code).toBe('unprocessable');
    const pdf = await post().attach(
      'front_image',
      Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF'),
      'scan.pdf',
    );
    expect(pdf.status).toBe(422);
    expect(pdf.body.error.code).toBe('unprocessable');
    expect(await balance()).toBe(before);
  });

  it('answers a passport cut in half with the catalogue code or a review, never a 500 nor a pass', {
    timeout: 180_000,
  }, async () => {
    const { bytes } = await renderDocument({
      name: 'half',
      layout: 'TD3',
      font: 'sans',
      rotation: 0,
      skew: 0,
      blur: 0,
      jpegQuality: null,
      seed: 5,
    });
    const { width, height } = await sharp(bytes).metadata();
    const halves = {
      // The printed zone without the MRZ; the left half of every line, the MRZ's too; the MRZ's bottom half only.
      top: { left: 0, top: 0, width: width!, height: Math.floor(height! / 2) },
      left: { left: 0, top: 0, width: Math.floor(width! / 2), height: height! },
      bottom: { left: 0, top: Math.floor(height! * 0.9), width: width!, height: height! - Math.floor(height! * 0.9) },
    };
    for (const [name, region] of Object.entries(halves)) {
      const before = await balance();
      const res = await post().attach(
        'front_image',
        await sharp(bytes).extract(region).jpeg().toBuffer(),
        `${name}.jpg`,
      );
      if (res.status === 422) {
        expect(res.body.error.code, name).toBe('unprocessable');
        expect(await balance(), name).toBe(before);
      } else {
        expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(200);
        expect(res.body.data.check.status, name).not.toBe('passed');
      }
    }
  });
});
