import { describe, expect, it } from 'vitest';
import {
  faceMatchOf,
  faceMatchVerdict,
  faceQualityProblem,
  MAX_PHOTO_TONAL_PEAKS,
  MIN_MATCH_ESTIMATED_AGE,
  MIN_MATCH_SHARPNESS,
  MIN_MATCH_VISIBLE,
} from '../src/core/checks/face-match.js';
import type { FaceDescription, FaceEngine } from '../src/core/face-engine.js';
import type { DecodedImage } from '../src/ml/image.js';
import { DEFAULT_FACE_MATCH_THRESHOLD } from '../src/ml/faces/match.js';

// Fast tier: the face-match quality rules on hand-made face descriptions, no model involved.

/** A level, frontal face 100 px wide: 68 iBUG points laid out like a real face's. */
function face(over: Partial<FaceDescription> = {}): FaceDescription {
  const landmarks = Array.from({ length: 68 }, (_, i) => ({
    x: 100 + (i % 17) * 6.25,
    y: 100 + Math.floor(i / 17) * 30,
  }));
  for (let i = 36; i < 42; i++) landmarks[i] = { x: 130 + (i - 36), y: 140 };
  for (let i = 42; i < 48; i++) landmarks[i] = { x: 170 + (i - 42), y: 140 };
  landmarks[30] = { x: 152.5, y: 170 };
  return {
    box: { x: 90, y: 90, width: 120, height: 120 },
    score: 0.99,
    landmarks,
    rollDegrees: 0,
    descriptor: new Float32Array(128),
    quality: { sharpness: 0.2, tonalPeaks: 0.06, visible: 1 },
    estimatedAge: 35,
    ...over,
  };
}

describe('faceQualityProblem', () => {
  it('vouches for a sharp, whole, photographed adult face', () => {
    expect(faceQualityProblem(face())).toBeNull();
  });

  it('names each problem by its reason', () => {
    expect(
      faceQualityProblem(face({ quality: { sharpness: MIN_MATCH_SHARPNESS / 2, tonalPeaks: 0.06, visible: 1 } }))
        ?.reason,
    ).toBe('face_blurred');
    expect(
      faceQualityProblem(face({ quality: { sharpness: 0.2, tonalPeaks: 0.06, visible: MIN_MATCH_VISIBLE - 0.1 } }))
        ?.reason,
    ).toBe('face_cut');
    expect(
      faceQualityProblem(face({ quality: { sharpness: 0.2, tonalPeaks: MAX_PHOTO_TONAL_PEAKS + 0.05, visible: 1 } }))
        ?.reason,
    ).toBe('face_cartoon');
    expect(faceQualityProblem(face({ estimatedAge: MIN_MATCH_ESTIMATED_AGE - 4 }))?.reason).toBe('face_child');
    const turned = face();
    turned.landmarks[30] = { x: 175, y: 170 };
    expect(faceQualityProblem(turned)?.reason).toBe('face_turned');
    const tiny = face({ landmarks: face().landmarks.map((p) => ({ x: p.x / 4, y: p.y / 4 })) });
    expect(faceQualityProblem(tiny)?.reason).toBe('face_too_small');
  });

  it('keeps the limits where they are: a face just inside each one passes', () => {
    expect(
      faceQualityProblem(
        face({
          quality: { sharpness: MIN_MATCH_SHARPNESS, tonalPeaks: MAX_PHOTO_TONAL_PEAKS, visible: MIN_MATCH_VISIBLE },
        }),
      ),
    ).toBeNull();
    expect(faceQualityProblem(face({ estimatedAge: MIN_MATCH_ESTIMATED_AGE }))).toBeNull();
  });

  it('judges what an engine did not measure by the rest', () => {
    expect(faceQualityProblem(face({ quality: undefined, estimatedAge: undefined }))).toBeNull();
  });
});

describe('faceMatchVerdict', () => {
  /** A unit-length descriptor pointing along one axis: two different axes are 1.41 apart, far beyond any match. */
  const along = (axis: number) => Float32Array.from({ length: 128 }, (_, i) => (i === axis ? 1 : 0));

  it('passes the same face at the threshold, with the similarity as the score', () => {
    const verdict = faceMatchVerdict(face({ descriptor: along(0) }), face({ descriptor: along(0) }));
    expect(verdict).toMatchObject({
      type: 'face_match',
      status: 'passed',
      score: 1,
      data: { similarity: 1, threshold: DEFAULT_FACE_MATCH_THRESHOLD },
      error: null,
    });
  });

  it('fails different faces and says by how much', () => {
    const verdict = faceMatchVerdict(face({ descriptor: along(0) }), face({ descriptor: along(1) }));
    expect(verdict.status).toBe('failed');
    expect(verdict.score).toBeLessThan(DEFAULT_FACE_MATCH_THRESHOLD);
    expect(verdict.error).toContain(`below ${DEFAULT_FACE_MATCH_THRESHOLD}`);
  });

  it('sends a face it cannot vouch for to review with the image and reason, even when the descriptors agree', () => {
    const blurred = face({
      descriptor: along(0),
      quality: { sharpness: MIN_MATCH_SHARPNESS / 2, tonalPeaks: 0.06, visible: 1 },
    });
    const verdict = faceMatchVerdict(face({ descriptor: along(0) }), blurred);
    expect(verdict.status).toBe('review');
    expect(verdict.data).toMatchObject({ similarity: 1, quality: [{ image: 'image2', reason: 'face_blurred' }] });
  });

  it('compares a stored descriptor without judging it, naming the images as the caller does', () => {
    const child = face({ descriptor: along(0), estimatedAge: MIN_MATCH_ESTIMATED_AGE - 4 });
    expect(faceMatchVerdict(along(0), face({ descriptor: along(0) })).status).toBe('passed');
    const verdict = faceMatchVerdict(along(0), child, DEFAULT_FACE_MATCH_THRESHOLD, {
      reference: 'the face reference',
      selfie: 'selfie',
    });
    expect(verdict.data).toMatchObject({ quality: [{ image: 'selfie', reason: 'face_child' }] });
  });
});

describe('faceMatchOf', () => {
  /** An engine whose faces come back in the order given by `delays` (ms), none of them found. */
  const faceless = (delays: Record<string, number>): FaceEngine =>
    ({
      describeLargestFace: (image: DecodedImage) =>
        new Promise((resolve) => setTimeout(() => resolve(null), delays[image.format]!)),
    }) as unknown as FaceEngine;
  const image = (format: string) => ({
    bytes: Buffer.alloc(0),
    format,
    width: 640,
    height: 480,
    orientation: 1,
    alpha: false,
  });

  it('describes both images at once, and names image1 when neither has a face, whichever answers first', async () => {
    for (const delays of [
      { a: 5, b: 1 },
      { a: 1, b: 5 },
    ]) {
      await expect(faceMatchOf(faceless(delays), image('a'), image('b'))).rejects.toMatchObject({
        code: 'no_face',
        message: expect.stringContaining('image1'),
      });
    }
    const described: string[] = [];
    const engine = {
      describeLargestFace: async (i: DecodedImage) => (
        described.push(`start ${i.format}`),
        await new Promise((r) => setTimeout(r, 2)),
        described.push(`end ${i.format}`),
        face()
      ),
    } as unknown as FaceEngine;
    await faceMatchOf(engine, image('a'), image('b'));
    expect(described.slice(0, 2)).toEqual(['start a', 'start b']);
  });
});
