import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodeImage, ImageRejected, pixels, receivedImage, WORKING_COPY } from '../src/ml/image.js';

describe('image intake', () => {
  it('honours the EXIF orientation and keeps the original bytes', async () => {
    // 200x100 upright: left half black, right half white. Stored rotated 90° clockwise
    // (100x200 pixels) with orientation 8, which tells viewers to turn it back.
    const upright = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#fff' } })
      .composite([
        {
          input: await sharp({ create: { width: 100, height: 100, channels: 3, background: '#000' } })
            .png()
            .toBuffer(),
          left: 0,
          top: 0,
        },
      ])
      .png()
      .toBuffer();
    const stored = await sharp(upright).rotate(90).jpeg({ quality: 95 }).withMetadata({ orientation: 8 }).toBuffer();
    const image = await decodeImage(stored);
    expect(image.orientation).toBe(8);
    expect([image.width, image.height]).toEqual([200, 100]);
    expect(image.bytes).toBe(stored);
    const raw = await pixels(image, { channels: 1 });
    expect([raw.width, raw.height]).toEqual([200, 100]);
    const at = (x: number, y: number) => raw.data[y * raw.width + x]!;
    expect(at(20, 50)).toBeLessThan(40);
    expect(at(180, 50)).toBeGreaterThan(215);
  });

  it('decodes an image once per size and channels, however many models ask', async () => {
    const photo = await sharp({ create: { width: 1280, height: 960, channels: 3, background: '#468' } })
      .jpeg()
      .toBuffer();
    const image = await decodeImage(photo);
    const [detector, evidence] = await Promise.all([
      pixels(image, { maxSide: 640, channels: 3 }),
      pixels(image, { maxSide: 640, channels: 3 }),
    ]);
    expect(evidence).toBe(detector);
    expect([detector.width, detector.height, detector.channels]).toEqual([640, 480, 3]);
    const grey = await pixels(image, { maxSide: 640, channels: 1 });
    expect(grey).not.toBe(detector);
    expect(grey.channels).toBe(1);
    // Another decode of the same bytes is another image: nothing is shared across requests.
    expect(await pixels(await decodeImage(photo), { maxSide: 640, channels: 3 })).not.toBe(detector);
  });

  it('keeps the working copy it decoded at intake, so the models do not decode the bytes again', async () => {
    const photo = await sharp({ create: { width: 2000, height: 1500, channels: 3, background: '#468' } })
      .jpeg()
      .toBuffer();
    const image = await decodeImage(photo);
    expect([image.working?.width, image.working?.height, image.working?.channels]).toEqual([640, 480, 3]);
    expect(await pixels(image, WORKING_COPY)).toBe(image.working);
    // as a face worker receives it (structured clone: Buffers arrive as Uint8Arrays)
    const received = receivedImage(structuredClone(image));
    expect(Buffer.isBuffer(received.working!.data)).toBe(true);
    expect(received.working!.data.equals(image.working!.data)).toBe(true);
    expect(await pixels(received, WORKING_COPY)).toBe(received.working);
  });

  it('refuses a cut-off file as corrupt, also when the working copy is shrunk while decoding', async () => {
    const noisy = {
      width: 2000,
      height: 1500,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    } as const;
    const jpeg = await sharp({ create: noisy }).jpeg().toBuffer();
    const png = await sharp({ create: { ...noisy, width: 700, height: 500 } })
      .png()
      .toBuffer();
    for (const [name, bytes] of [
      ['jpeg', jpeg],
      ['png', png],
    ] as const) {
      for (const kept of [0.5, 0.95]) {
        await expect(
          decodeImage(bytes.subarray(0, Math.floor(bytes.length * kept))),
          `${name} cut at ${kept}`,
        ).rejects.toMatchObject({ problem: 'corrupt' });
      }
      await expect(decodeImage(bytes)).resolves.toMatchObject({ format: name });
    }
  });

  it('says why an image is refused', async () => {
    await expect(decodeImage(Buffer.from('hello'))).rejects.toMatchObject({ problem: 'not_an_image' });
    await expect(decodeImage(Buffer.alloc(0))).rejects.toBeInstanceOf(ImageRejected);
    const tiny = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    await expect(decodeImage(tiny)).rejects.toMatchObject({ problem: 'too_small' });
  });
});
