import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, startTestService, type TestService } from './helpers/service.js';

// Bad input on an image route: every answer is the right code, nothing is charged, no model runs.

let service: TestService;
let jpeg: Buffer;
const post = () => service.http.post('/api/v2/id-verification').set('X-API-Key', service.demo.api_key);
const balance = async () =>
  Number(
    (
      await sql<{ balance_minor: string }>(service, 'select balance_minor from wallet where project_id = ?', [
        service.demo.project_id,
      ])
    )[0]!.balance_minor,
  );

beforeAll(async () => {
  service = await startTestService();
  jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#88aacc' } })
    .jpeg()
    .toBuffer();
});
afterAll(async () => {
  await service?.close();
});

describe('image input on POST /api/v2/id-verification', () => {
  it('needs at least one image: 400 no_images_provided', async () => {
    for (const body of [{}, { front_image: '' }, { front_image: null, back_image: null }]) {
      const res = await post().send(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('no_images_provided');
    }
    const multipart = await post().field('front_image', '');
    expect(multipart.status).toBe(400);
    expect(multipart.body.error.code).toBe('no_images_provided');
    // A field the route does not take is named rather than dropped (test/strict-input.test.ts).
    const unknown = await post().field('note', 'no file here');
    expect(unknown.status).toBe(400);
    expect(unknown.body.data.errors).toEqual({
      note: 'unknown field; this object takes front_image, back_image, svc_access_token, svc_id',
    });
  });

  it('needs front_image: a back alone is 400 validation_error naming front_image, not read and not charged', async () => {
    const before = await balance();
    const checks = async () =>
      Number(
        (
          await sql<{ n: string }>(service, 'select count(*) as n from check_record where project_id = ?', [
            service.demo.project_id,
          ])
        )[0]!.n,
      );
    const recorded = await checks();
    const json = await post().send({ back_image: jpeg.toString('base64') });
    const multipart = await post().attach('back_image', jpeg, 'back.jpg');
    for (const res of [json, multipart]) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        data: { errors: { front_image: 'required' } },
        error: { code: 'validation_error', message: expect.stringContaining('front_image') },
      });
    }
    expect(await balance()).toBe(before);
    expect(await checks()).toBe(recorded);
  });

  it('refuses base64 that is not base64 with validation_error', async () => {
    const res = await post().send({ front_image: 'this is *not* base64!' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.data.errors.front_image).toBeTruthy();
  });

  it('refuses a wrong type with validation_error', async () => {
    for (const front_image of [123, { bytes: 'x' }, ['a']]) {
      const res = await post().send({ front_image });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });

  it('refuses a data URL of another media type, and bytes that are not an image, with 422 unprocessable', async () => {
    const text = await post().send({
      front_image: `data:text/plain;base64,${Buffer.from('hello').toString('base64')}`,
    });
    expect(text.status).toBe(422);
    expect(text.body.error.code).toBe('unprocessable');
    expect(text.body.error.message).toContain('text/plain');
    const pdf = await post().send({ front_image: Buffer.from('%PDF-1.4 not an image at all').toString('base64') });
    expect(pdf.status).toBe(422);
    expect(pdf.body.error.message).toMatch(/not an image/);
  });

  it('refuses a truncated image as corrupt', async () => {
    const big = await sharp({
      create: {
        width: 800,
        height: 600,
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    })
      .jpeg()
      .toBuffer();
    const res = await post().send({ front_image: big.subarray(0, Math.floor(big.length / 2)).toString('base64') });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('unprocessable');
    expect(res.body.error.message).toMatch(/corrupt|truncated/);
  });

  it('refuses a decompression bomb by its pixel count before decoding it', async () => {
    const bomb = await sharp({
      create: { width: 12000, height: 12000, channels: 3, background: '#000' },
      limitInputPixels: false,
    })
      .png({ compressionLevel: 9 })
      .toBuffer();
    expect(bomb.length).toBeLessThan(2_000_000);
    const res = await post().attach('front_image', bomb, 'bomb.png');
    expect(res.status).toBe(422);
    expect(res.body.error.message).toMatch(/megapixels/);
  });

  it('answers 413 image_too_large over 20 MB, as JSON and as a file', async () => {
    const huge = Buffer.alloc(21 * 1024 * 1024, 7);
    const asJson = await post().send({ front_image: huge.toString('base64') });
    expect(asJson.status).toBe(413);
    expect(asJson.body.error.code).toBe('image_too_large');
    const asFile = await post().attach('front_image', huge, 'huge.jpg');
    expect(asFile.status).toBe(413);
    expect(asFile.body.error.code).toBe('image_too_large');
  });

  it('refuses an unexpected file field and a malformed multipart body', async () => {
    const extra = await post().attach('selfie', jpeg, 'selfie.jpg');
    expect(extra.status).toBe(400);
    expect(extra.body.error.code).toBe('validation_error');
    const broken = await post()
      .set('Content-Type', 'multipart/form-data; boundary=xyz')
      .send('--xyz\r\nContent-Disposition: form-data; name="front_image"; filename="a.jpg"\r\n\r\nabc');
    expect(broken.status).toBeGreaterThanOrEqual(400);
    expect(broken.status).toBeLessThan(500);
    expect(broken.body.success).toBe(false);
  });

  it('charges none of it', async () => {
    const before = await balance();
    await post().send({});
    await post().send({ front_image: 'x' });
    await post().send({ front_image: Buffer.from('nope').toString('base64') });
    expect(await balance()).toBe(before);
  });
});
