import { describe, expect, it } from 'vitest';
import { blackLevel, type Rgb } from '../../src/ml/liveness/evidence.js';
import { LIVENESS_THRESHOLDS, livenessDecision, type LivenessScores } from '../../src/ml/liveness/index.js';
import { chooseOperatingPoint, errorRates, type ScoredPresentation } from '../../src/ml/liveness/operating-point.js';

// The passive liveness verdict as rules on numbers: the black level of a scene and of a recapture,
// the decision on a face's scores, and how the thresholds are chosen from measured scores.

/** A 100x100 RGB frame at `level` with a 6x6 patch at `shadow` (a pupil, a nostril) inside the face box. */
function frame(level: number, shadow: number): Rgb {
  const data = Buffer.alloc(100 * 100 * 3, level);
  for (let y = 45; y < 51; y++)
    for (let x = 45; x < 51; x++) data.fill(shadow, (y * 100 + x) * 3, (y * 100 + x) * 3 + 3);
  return { data, width: 100, height: 100, channels: 3 };
}
const box = { x: 30, y: 30, width: 40, height: 40 };

describe('blackLevel (rule)', () => {
  it('finds the deep shadows of a scene, and the lifted black of paper or a screen', () => {
    expect(blackLevel(frame(160, 3), box)).toBe(3);
    expect(blackLevel(frame(160, 40), box)).toBe(40); // darkest ink on paper as a camera sees it
    expect(blackLevel(frame(160, 160), box)).toBe(160);
  });

  it('looks only around the head: a dark corner far from the face does not count', () => {
    const img = frame(160, 40);
    for (let y = 0; y < 5; y++) for (let x = 0; x < 5; x++) img.data.fill(0, (y * 100 + x) * 3, (y * 100 + x) * 3 + 3);
    expect(blackLevel(img, box)).toBe(40);
  });
});

const live: LivenessScores = { minifasnet: 0.9, faceAreaFraction: 0.2, moirePeakRatio: 40, blackLevel: 3 };

describe('livenessDecision (rule)', () => {
  it('is live only when every decisive measure is within its threshold', () => {
    expect(livenessDecision(live)).toBe(true);
    expect(livenessDecision({ ...live, minifasnet: LIVENESS_THRESHOLDS.miniFasNet - 0.01 })).toBe(false);
    expect(livenessDecision({ ...live, faceAreaFraction: 0.6 })).toBe(false);
    expect(livenessDecision({ ...live, moirePeakRatio: LIVENESS_THRESHOLDS.maxPeakRatio + 1 })).toBe(false);
    expect(livenessDecision({ ...live, blackLevel: LIVENESS_THRESHOLDS.maxBlackLevel + 1 })).toBe(false);
    expect(livenessDecision({})).toBe(false); // nothing measured: not live
  });
});

describe('chooseOperatingPoint (rule)', () => {
  const row = (presents: string, scores: LivenessScores): ScoredPresentation => ({ set: 'a', presents, scores });
  const scored = [
    ...[0.55, 0.7, 0.8, 0.95].map((minifasnet) => row('bona_fide', { ...live, minifasnet })),
    ...[0.05, 0.2, 0.3].map((minifasnet) => row('printed_photo', { ...live, minifasnet, blackLevel: 30 })),
    ...[0.6, 0.9].map((minifasnet) => row('print_closeup', { ...live, minifasnet, blackLevel: 28 })),
    ...[0.1, 0.4].map((minifasnet) => row('screen_replay', { ...live, minifasnet, blackLevel: 12 })),
  ];

  it('puts every threshold inside the region where no kind errs, away from its edges', () => {
    const t = chooseOperatingPoint(scored);
    expect([...errorRates(scored, t).values()].every((rate) => rate === 0)).toBe(true);
    expect(t.miniFasNet).toBeGreaterThan(0.4); // the screen replay at 0.4 is refused by MiniFASNet alone
    expect(t.miniFasNet).toBeLessThanOrEqual(0.55);
    expect(t.maxBlackLevel).toBeGreaterThanOrEqual(12); // a print close-up (28) is refused by its black level
    expect(t.maxBlackLevel).toBeLessThan(28);
  });
});
