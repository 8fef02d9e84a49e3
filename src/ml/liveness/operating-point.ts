import { LIVENESS_THRESHOLDS, livenessDecision, type LivenessScores, type LivenessThresholds } from './index.js';

// How the liveness thresholds are chosen from measured scores: scripts/eval-liveness.ts runs it on
// all sets pooled (the shipped values) and on each set left out in turn (how well the choice
// holds on a set it did not see). Not used at request time.

/** One measured presentation: the set it came from, what it presents, the scores the models gave. */
export interface ScoredPresentation {
  set: string;
  presents: string;
  scores: LivenessScores;
}

const GRID = {
  miniFasNet: Array.from({ length: 19 }, (_, i) => Number((0.05 * (i + 1)).toFixed(2))),
  maxPeakRatio: [150, 200, 250, 300, 350, 400, 450, 500, 600, 700, 800],
  maxBlackLevel: Array.from({ length: 31 }, (_, i) => 10 + i),
};
type Tuned = keyof typeof GRID;

/** Error rate per presentation kind: BPCER for `bona_fide`, APCER for each attack kind. */
export function errorRates(scored: ScoredPresentation[], t: LivenessThresholds): Map<string, number> {
  const rates = new Map<string, number>();
  for (const kind of new Set(scored.map((s) => s.presents))) {
    const rows = scored.filter((s) => s.presents === kind);
    rates.set(kind, rows.filter((s) => livenessDecision(s.scores, t) !== (kind === 'bona_fide')).length / rows.length);
  }
  return rates;
}

/**
 * The thresholds whose worst error rate (BPCER, or the APCER of any one attack kind: each kind is
 * held to the same bound) is lowest on `scored`; among equals the lowest summed rate; among those
 * the centre of the tied region (each threshold at the median of its tied values), so the
 * choice sits away from the edges where the errors begin.
 */
export function chooseOperatingPoint(scored: ScoredPresentation[]): LivenessThresholds {
  const candidates: { t: LivenessThresholds; worst: number; sum: number }[] = [];
  for (const miniFasNet of GRID.miniFasNet) {
    for (const maxPeakRatio of GRID.maxPeakRatio) {
      for (const maxBlackLevel of GRID.maxBlackLevel) {
        const t = { ...LIVENESS_THRESHOLDS, miniFasNet, maxPeakRatio, maxBlackLevel };
        const rates = [...errorRates(scored, t).values()];
        candidates.push({ t, worst: Math.max(...rates), sum: rates.reduce((a, b) => a + b, 0) });
      }
    }
  }
  const worst = Math.min(...candidates.map((c) => c.worst));
  const sum = Math.min(...candidates.filter((c) => c.worst === worst).map((c) => c.sum));
  const tied = candidates.filter((c) => c.worst === worst && c.sum === sum).map((c) => c.t);
  const centre = (key: Tuned) => {
    const values = tied.map((t) => t[key]).sort((a, b) => a - b);
    return values[Math.floor(values.length / 2)]!;
  };
  const point = {
    ...LIVENESS_THRESHOLDS,
    miniFasNet: centre('miniFasNet'),
    maxPeakRatio: centre('maxPeakRatio'),
    maxBlackLevel: centre('maxBlackLevel'),
  };
  const inside = tied.some(
    (t) =>
      t.miniFasNet === point.miniFasNet &&
      t.maxPeakRatio === point.maxPeakRatio &&
      t.maxBlackLevel === point.maxBlackLevel,
  );
  return inside ? point : tied[Math.floor(tied.length / 2)]!;
}
