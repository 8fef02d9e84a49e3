import { describe, expect, it } from 'vitest';
import { faceQualityProblem, MAX_PHOTO_TONAL_PEAKS, MIN_MATCH_ESTIMATED_AGE, MIN_MATCH_SHARPNESS, MIN_MATCH_VISIBLE } from '../src/core/checks/face-match.js';
import type { FaceDescription } from '../src/core/face-engine.js';

// Fast tier: the face-match quality rules on hand-made face descriptions, no model involved.

/** A level, frontal face 100 px wide: 68 iBUG points laid out like a real face's. */
function face(over: Partial<FaceDescription> = {}): FaceDescription {
  const landmarks = Array.from({ length: 68 }, (_, i) => ({ x: 100 + (i % 17) * 6.25, y: 100 + Math.floor(i / 17) * 30 }));
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
    expect(faceQualityProblem(face({ quality: { sharpness: MIN_MATCH_SHARPNESS / 2, tonalPeaks: 0.06, visible: 1 } }))?.reason).toBe('face_blurred');
    expect(faceQualityProblem(face({ quality: { sharpness: 0.2, tonalPeaks: 0.06, visible: MIN_MATCH_VISIBLE - 0.1 } }))?.reason).toBe('face_cut');
    expect(faceQualityProblem(face({ quality: { sharpness: 0.2, tonalPeaks: MAX_PHOTO_TONAL_PEAKS + 0.05, visible: 1 } }))?.reason).toBe('face_cartoon');
    expect(faceQualityProblem(face({ estimatedAge: MIN_MATCH_ESTIMATED_AGE - 4 }))?.reason).toBe('face_child');
    const turned = face();
    turned.landmarks[30] = { x: 175, y: 170 };
    expect(faceQualityProblem(turned)?.reason).toBe('face_turned');
    const tiny = face({ landmarks: face().landmarks.map((p) => ({ x: p.x / 4, y: p.y / 4 })) });
    expect(faceQualityProblem(tiny)?.reason).toBe('face_too_small');
  });

  it('keeps the limits where they are: a face just inside each one passes', () => {
    expect(faceQualityProblem(face({ quality: { sharpness: MIN_MATCH_SHARPNESS, tonalPeaks: MAX_PHOTO_TONAL_PEAKS, visible: MIN_MATCH_VISIBLE } }))).toBeNull();
    expect(faceQualityProblem(face({ estimatedAge: MIN_MATCH_ESTIMATED_AGE }))).toBeNull();
  });

  it('judges what an engine did not measure by the rest', () => {
    expect(faceQualityProblem(face({ quality: undefined, estimatedAge: undefined }))).toBeNull();
  });
});
