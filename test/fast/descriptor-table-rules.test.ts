import { describe, expect, it } from 'vitest';
import { DESCRIPTOR_SIZE, DescriptorTable } from '../../src/core/faces/face-index.js';
import { MATCH_DISTANCE } from '../../src/ml/faces/match.js';

// The register's search as a pure data structure, in milliseconds: the int8 table with its exact
// decision must return exactly the faces a brute-force float scan returns, at the match distance
// and at other limits, with faces placed right at the limit, after removals and additions, and
// with descriptors that are not unit vectors.

let seed = 7;
const random = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32;
};
const unit = (v: ArrayLike<number>) => {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  return Float32Array.from(v, (x) => x / norm);
};
const randomUnit = () => unit(Array.from({ length: DESCRIPTOR_SIZE }, () => random() * 2 - 1));
/** A unit descriptor at `distance` from unit `p` (cosine 1 - distance^2 / 2), up to float32 rounding. */
const at = (p: Float32Array, distance: number) => {
  const cos = 1 - (distance * distance) / 2;
  const r = randomUnit();
  let along = 0;
  for (let i = 0; i < DESCRIPTOR_SIZE; i++) along += r[i]! * p[i]!;
  const side = unit(Array.from(r, (x, i) => x - along * p[i]!));
  const sin = Math.sqrt(Math.max(0, 1 - cos * cos));
  return Float32Array.from(p, (x, i) => cos * x + sin * side[i]!);
};

/** The reference: every descriptor of `rows` within `limit` of `probe`, nearest first, by a plain float scan. */
function bruteForce(rows: Map<string, Float32Array>, probe: Float32Array, limit: number) {
  const found: { id: string; distance: number }[] = [];
  for (const [id, v] of rows) {
    let sum = 0;
    for (let i = 0; i < v.length; i++) {
      const d = probe[i]! - v[i]!;
      sum += d * d;
    }
    const distance = Math.sqrt(sum);
    if (distance <= limit) found.push({ id, distance });
  }
  return found.sort((a, b) => a.distance - b.distance);
}

/** The int8-only table's answer, decided exactly from the caller's own copy, as FaceIndex does from the sealed rows. */
function decided(table: DescriptorTable, rows: Map<string, Float32Array>, probe: Float32Array, limit: number) {
  return bruteForce(new Map(table.candidates(probe, limit).map(({ id }) => [id, rows.get(id)!])), probe, limit);
}

const LIMITS = [MATCH_DISTANCE, 0.3, 0.8, 1.2, Math.SQRT2];

/** A register of random faces, and near each probe faces placed within 1e-4 of every limit, on both sides. */
function register(size: number, probes: Float32Array[]) {
  const rows = new Map<string, Float32Array>();
  for (let i = 0; i < size; i++) rows.set(`r${i}`, randomUnit());
  for (const [p, probe] of probes.entries()) {
    for (const limit of LIMITS) {
      for (let k = 0; k < 12; k++)
        rows.set(`p${p}-${limit}-${k}`, at(probe, limit + (k < 6 ? -1 : 1) * (k % 6 === 0 ? 1e-6 : random() * 1e-4)));
    }
    // Clearly the same person, and in the candidates' margin of the int8 bound.
    for (let k = 0; k < 5; k++) rows.set(`p${p}-near-${k}`, at(probe, 0.2 + random() * 0.6));
    for (let k = 0; k < 10; k++) rows.set(`p${p}-edge-${k}`, at(probe, MATCH_DISTANCE + random() * 0.03));
  }
  return rows;
}

function fill(rows: Map<string, Float32Array>, options?: { keepFloats?: boolean }) {
  const table = new DescriptorTable(options);
  for (const [id, v] of rows) table.add(id, v);
  return table;
}

function expectSame(table: DescriptorTable, rows: Map<string, Float32Array>, probe: Float32Array, limits = LIMITS) {
  for (const limit of limits) {
    const expected = bruteForce(rows, probe, limit);
    expect(table.within(probe, limit), `limit ${limit}`).toEqual(expected);
    expect(decided(table, rows, probe, limit), `limit ${limit}, decided by the caller`).toEqual(expected);
  }
}

describe('the int8 descriptor table', () => {
  const probes = Array.from({ length: 4 }, randomUnit);
  const rows = register(3000, probes);
  const table = fill(rows);
  const lean = fill(rows, { keepFloats: false });

  it('finds exactly what a float scan finds, at the match distance and other limits, faces at the limit included', () => {
    for (const probe of probes) {
      for (const limit of LIMITS) {
        const expected = bruteForce(rows, probe, limit);
        expect(table.within(probe, limit), `limit ${limit}`).toEqual(expected);
        expect(decided(lean, rows, probe, limit), `limit ${limit}, int8 only`).toEqual(expected);
        // The placed faces land on both sides of every limit.
        const placed = [...rows.keys()].filter((id) => id.startsWith(`p${probes.indexOf(probe)}-${limit}-`));
        const inside = placed.filter((id) => expected.some((m) => m.id === id));
        expect(inside.length, `limit ${limit}`).toBeGreaterThan(0);
        expect(inside.length, `limit ${limit}`).toBeLessThan(placed.length);
      }
    }
  });

  it('decides exactly only a few faces beyond the matches', () => {
    for (const probe of probes) {
      const matches = bruteForce(rows, probe, MATCH_DISTANCE).length;
      const candidates = lean.candidates(probe, MATCH_DISTANCE);
      // Besides the matches: the 6 placed just past the limit, part of the 10 within 0.03 past it, no random face.
      expect(candidates.length).toBeGreaterThanOrEqual(matches);
      expect(candidates.length).toBeLessThanOrEqual(matches + 16);
      expect(candidates.every(({ id }) => !id.startsWith('r'))).toBe(true);
      // Lower bounds, lowest first, never above the distance.
      for (const [i, { id, atLeast }] of candidates.entries()) {
        expect(atLeast).toBeLessThanOrEqual(bruteForce(new Map([[id, rows.get(id)!]]), probe, 2)[0]!.distance);
        if (i > 0) expect(atLeast).toBeGreaterThanOrEqual(candidates[i - 1]!.atLeast);
      }
    }
  });

  it('finds a new photo of an enrolled face among random faces, and nothing for a stranger', () => {
    const probe = probes[0]!;
    expect(table.within(at(probe, 1e-3), MATCH_DISTANCE).length).toBeGreaterThan(0);
    expect(table.within(randomUnit(), MATCH_DISTANCE)).toEqual([]);
    expect(table.within(probe, 0)).toEqual([]);
    expect(table.within(probe, Number.NaN)).toEqual([]);
    expect(table.within(probe, -1)).toEqual([]);
  });

  it('stays consistent through removals and additions, across chunks of storage', () => {
    const big = register(6000, probes.slice(0, 2)); // chunks of 4,096 faces
    const t = fill(big);
    const l = fill(big, { keepFloats: false });
    expect(t.size).toBe(big.size);
    // Remove a third, matches and faces of the first chunk included (the last face moves into their slot).
    const removed = [...big.keys()].filter((_, i) => i % 3 === 0);
    for (const id of removed) {
      t.remove(id);
      l.remove(id);
      big.delete(id);
    }
    t.remove('no-such-face');
    expect(t.size).toBe(big.size);
    expect(removed.some((id) => t.has(id))).toBe(false);
    for (const probe of probes.slice(0, 2)) {
      expectSame(t, big, probe, [MATCH_DISTANCE, 0.3, 1.2]);
      expect(decided(l, big, probe, MATCH_DISTANCE)).toEqual(bruteForce(big, probe, MATCH_DISTANCE));
    }
    // Adding back under the same ids; adding an id twice keeps the first descriptor.
    for (const id of removed.slice(0, 500)) {
      const v = randomUnit();
      big.set(id, v);
      t.add(id, v);
      t.add(id, randomUnit());
    }
    const added = at(probes[0]!, 0.5);
    big.set('added', added);
    t.add('added', added);
    expect(t.size).toBe(big.size);
    expectSame(t, big, probes[0]!, [MATCH_DISTANCE, 0.8]);
    expect(t.within(probes[0]!, MATCH_DISTANCE).some((m) => m.id === 'added')).toBe(true);
    // Down to nothing, then used again.
    for (const id of [...big.keys()]) t.remove(id);
    expect(t.size).toBe(0);
    expect(t.within(probes[0]!, 2)).toEqual([]);
    t.add('again', added);
    expect(t.within(probes[0]!, MATCH_DISTANCE).map((m) => m.id)).toEqual(['again']);
  });

  it('handles descriptors that are not unit vectors exactly, and never matches a non-finite one', () => {
    const probe = probes[1]!;
    const scaled = (v: Float32Array, k: number) => Float32Array.from(v, (x) => x * k);
    const odd = new Map<string, Float32Array>([
      ['long', scaled(at(probe, 0.5), 1.3)],
      ['short', scaled(at(probe, 0.5), 0.7)],
      ['tiny', scaled(randomUnit(), 1e-30)],
      ['zero', new Float32Array(DESCRIPTOR_SIZE)],
      // One large value, the rest coded as zero: a large rounding error, still bounded.
      ['spike', Float32Array.from(probe, (x, i) => (i === 3 ? 40 : x))],
      ['spiky', Float32Array.from(at(probe, 0.9), (x, i) => (i === 9 ? x + 0.8 : x))],
      ['huge', scaled(probe, 1e30)],
      ['nan', Float32Array.from(probe, (x, i) => (i === 5 ? Number.NaN : x))],
      ['infinite', Float32Array.from(probe, (x, i) => (i === 5 ? Number.POSITIVE_INFINITY : x))],
    ]);
    // Longer and shorter descriptors around a few limits.
    for (const [limit, k] of [
      [0.4, 0],
      [0.8, 1],
      [0.9, 2],
    ] as const) {
      for (let n = 0; n < 8; n++)
        odd.set(`scaled-${k}-${n}`, scaled(at(probe, limit / (1 + k * 0.1) + (random() - 0.5) * 2e-4), 1 + k * 0.1));
    }
    const rows = new Map([...register(500, [probe]), ...odd]);
    const t = fill(rows);
    const l = fill(rows, { keepFloats: false });
    for (const p of [probe, scaled(probe, 1.2), scaled(probe, 0.9), new Float32Array(DESCRIPTOR_SIZE)]) {
      for (const limit of [...LIMITS, 1, 2, 1e31, Number.POSITIVE_INFINITY]) {
        const expected = bruteForce(rows, p, limit);
        expect(t.within(p, limit), `limit ${limit}`).toEqual(expected);
        expect(decided(l, rows, p, limit), `limit ${limit}, int8 only`).toEqual(expected);
      }
    }
    expect(t.within(probe, 1).map((m) => m.id)).toEqual(expect.arrayContaining(['long', 'short']));
    expect(t.within(probe, 1e31).some((m) => m.id === 'nan' || m.id === 'infinite')).toBe(false);
    expect(t.within(probe, Number.POSITIVE_INFINITY).some((m) => m.id === 'nan')).toBe(false);
    const broken = Float32Array.from(probe, (x, i) => (i === 0 ? Number.NaN : x));
    expect(t.within(broken, MATCH_DISTANCE)).toEqual([]);
    expect(t.within(broken, Number.POSITIVE_INFINITY)).toEqual([]);
  });

  it('refuses descriptors of another size, and within() on a table without its float copy', () => {
    expect(() => table.add('short', new Float32Array(128))).toThrow(RangeError);
    expect(() => table.within(new Float32Array(128), MATCH_DISTANCE)).toThrow(RangeError);
    expect(() => lean.within(probes[0]!, MATCH_DISTANCE)).toThrow(/no float copy/);
  });
});
