import { describe, expect, it } from 'vitest';
import { identityLink } from '../../src/core/faces/burst.js';
import { judgeContinuity, type CaptureFrame } from '../../src/core/faces/continuity.js';
import type { FrameScene } from '../../src/ml/liveness/scene.js';

// The burst rules as pure functions, in milliseconds: no models, no database.

/**
 * A descriptor `steps` of 0.25 along one axis from the origin (distance between two = 0.25 x their step difference).
 */
const along = (steps: number, axis = 0) =>
  Float32Array.from({ length: 128 }, (_, i) => (i === axis ? 0.25 * steps : 0));

describe('same person across a burst', () => {
  it('links a head turning through the burst (ends far apart, every frame close to another)', () => {
    // 0 -> 0.25 -> 0.5 -> 0.75: the ends are 0.75 apart, each step 0.25.
    expect(identityLink([along(0), along(1), along(2), along(3)])).toBeCloseTo(0.25);
  });
  it('does not link two people, whatever the order of the frames', () => {
    const a = along(0);
    const b = along(4, 1); // 1.0 from a
    expect(identityLink([a, along(0.2), b])).toBeGreaterThan(0.6);
    expect(identityLink([b, a, along(0.2), along(0.1)])).toBeGreaterThan(0.6);
  });
});

function scene(over: Partial<FrameScene> = {}): FrameScene {
  const thumb = new Float32Array(64 * 48).map((_, i) => 100 + 50 * Math.sin(i / 7));
  return {
    width: 640,
    height: 480,
    thumb,
    thumbWidth: 64,
    thumbHeight: 48,
    background: new Uint8Array(64 * 48).fill(1),
    faceLuma: 120,
    faceChroma: [0.1, -0.05],
    noise: 3,
    sharpness: 200,
    ...over,
  };
}
const frame = (over: Partial<CaptureFrame> = {}, sceneOver: Partial<FrameScene> = {}): CaptureFrame => ({
  box: { x: 280, y: 180, width: 100, height: 120 },
  pose: { yaw: 0, pitch: 0, roll: 0, confidence: 1 },
  scene: scene(sceneOver),
  ...over,
});

describe('one continuous capture', () => {
  it('passes frames that move a little', () => {
    const verdict = judgeContinuity([
      frame(),
      frame({ box: { x: 300, y: 185, width: 104, height: 124 } }),
      frame({ pose: { yaw: 12, pitch: 3, roll: 1, confidence: 1 } }),
    ]);
    expect(verdict.oneCapture).toBe(true);
  });
  it.each([
    ['face_track', frame({ box: { x: 420, y: 180, width: 100, height: 120 } })],
    ['face_scale_track', frame({ box: { x: 280, y: 180, width: 150, height: 180 } })],
    ['pose_track', frame({ pose: { yaw: 40, pitch: 0, roll: 0, confidence: 1 } })],
    ['illumination', frame({}, { faceLuma: 170 })],
    ['image_quality', frame({}, { noise: 6 })],
    ['background', frame({}, { thumb: new Float32Array(64 * 48).map((_, i) => 100 + 50 * Math.cos(i / 3)) })],
  ])('fails a jump in %s, naming it', (rule, jump) => {
    const verdict = judgeContinuity([frame(), frame(), jump]);
    expect(verdict.oneCapture).toBe(false);
    expect(verdict.evidence.find((e) => e.name === rule)).toMatchObject({ passed: false });
    expect(verdict.evidence.find((e) => e.name === rule)!.detail).toContain('frames 1 to 2');
  });
  it('fails frames where the face leaves no background to compare', () => {
    const verdict = judgeContinuity([
      frame({}, { background: new Uint8Array(64 * 48) }),
      frame({}, { background: new Uint8Array(64 * 48) }),
      frame({}, { background: new Uint8Array(64 * 48) }),
    ]);
    expect(verdict.evidence.find((e) => e.name === 'background')).toMatchObject({
      passed: false,
      detail: expect.stringContaining('fills the frame'),
    });
  });
});
