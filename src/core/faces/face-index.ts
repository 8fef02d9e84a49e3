import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { DomainError } from '../errors.js';
import { newId, type Sealer } from '../secrets.js';
import { faceDistance, MATCH_DISTANCE } from '../../ml/faces/match.js';
import { FaceEnrollment } from './entities.js';

// A project's register of face descriptors, searched for the same person, built to hold a
// million descriptors per project on plain PostgreSQL (no pgvector here: PGlite / PG 15 without
// extensions).
//
// Two stages:
// 1. Prefilter (SQL, indexed): locality-sensitive hashing with random hyperplanes. TABLES hash
//    tables of BITS bits each: bit j of table t is the sign of (descriptor - MEAN) . w_tj. A row
//    stores one key per table (its code, hashed with the project and purpose into an int, so the
//    GIN index on `buckets` returns this project's rows only). A search probes each table's own
//    code and the BITS codes one bit away (multi-probe), i.e. TABLES * (BITS + 1) keys, with
//    `buckets && keys`.
// 2. Exact: the candidates' sealed descriptors are opened and compared by Euclidean distance.
//
// The prefilter trades recall for speed: a same-person pair is found only when some table puts
// both within one bit. Measured on the shared photos (scripts/eval-faces.ts): see README "Face
// engine". face-api descriptors share a large common component (|mean| ~1.3 of |d| ~1.5), so the
// hyperplanes pass through MEAN, the average descriptor of the shared evaluation photos (84 faces,
// rounded); through the origin nearly every pair would collide.

export const LSH = { bits: 14, tables: 32, seed: 20261123 };

/** Average face-api descriptor (see above); only the hash geometry depends on it. */
export const DESCRIPTOR_MEAN = Float32Array.from([-0.072, 0.081, 0.048, -0.025, -0.098, 0.001, -0.028, -0.075, 0.136, -0.074, 0.190, -0.025, -0.233, -0.003, -0.035, 0.119, -0.165, -0.114, -0.119, -0.084, 0.017, 0.049, 0.015, 0.043, -0.140, -0.303, -0.055, -0.108, 0.041, -0.100, -0.018, 0.033, -0.167, -0.037, 0.036, 0.065, -0.044, -0.072, 0.190, 0.036, -0.165, 0.027, 0.052, 0.272, 0.186, 0.031, 0.021, -0.073, 0.124, -0.266, 0.071, 0.149, 0.109, 0.082, 0.087, -0.176, 0.011, 0.129, -0.170, 0.092, 0.057, -0.036, -0.016, -0.063, 0.199, 0.097, -0.119, -0.132, 0.146, -0.145, -0.058, 0.081, -0.112, -0.177, -0.257, 0.041, 0.412, 0.149, -0.174, -0.001, -0.081, -0.029, 0.048, 0.064, -0.071, -0.027, -0.075, 0.031, 0.200, -0.004, -0.042, 0.212, -0.001, -0.008, 0.021, 0.037, -0.132, -0.014, -0.122, -0.035, 0.011, -0.086, -0.001, 0.103, -0.188, 0.157, -0.020, -0.030, -0.009, 0.013, -0.107, 0.003, 0.177, -0.267, 0.201, 0.176, 0.050, 0.130, 0.058, 0.048, 0.004, -0.006, -0.160, -0.087, 0.029, -0.042, 0.027, 0.028]);

/** Deterministic hyperplanes (a fixed-seed LCG and Box-Muller): every instance hashes alike. */
const PLANES: Float32Array[] = (() => {
  let state = LSH.seed >>> 0;
  const uniform = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state + 0.5) / 2 ** 32;
  };
  const gauss = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  return Array.from({ length: LSH.tables * LSH.bits }, () => Float32Array.from({ length: DESCRIPTOR_MEAN.length }, gauss));
})();

/** Each table's BITS-bit code of a descriptor. */
export function lshCodes(descriptor: Float32Array): number[] {
  const codes: number[] = [];
  for (let t = 0; t < LSH.tables; t++) {
    let code = 0;
    for (let b = 0; b < LSH.bits; b++) {
      const w = PLANES[t * LSH.bits + b]!;
      let dot = 0;
      for (let i = 0; i < w.length; i++) dot += w[i]! * (descriptor[i]! - DESCRIPTOR_MEAN[i]!);
      if (dot > 0) code |= 1 << b;
    }
    codes.push(code);
  }
  return codes;
}

function bucketKey(scope: string, table: number, code: number): number {
  return createHash('sha256').update(`${scope}:${table}:${code}`).digest().readInt32BE(0);
}

/** The keys a row is stored under: one per table. */
function storedKeys(scope: string, descriptor: Float32Array): number[] {
  return lshCodes(descriptor).map((code, t) => bucketKey(scope, t, code));
}

/** The keys a search probes: each table's code and every code one bit away. */
function probeKeys(scope: string, descriptor: Float32Array): number[] {
  return lshCodes(descriptor).flatMap((code, t) => [code, ...Array.from({ length: LSH.bits }, (_, b) => code ^ (1 << b))].map((c) => bucketKey(scope, t, c)));
}

export type FacePurpose = FaceEnrollment['purpose'];

export interface FaceMatch {
  faceId: string;
  reference: string | null;
  distance: number;
}

const toBase64 = (descriptor: Float32Array) => Buffer.from(descriptor.buffer, descriptor.byteOffset, descriptor.byteLength).toString('base64');
const fromBase64 = (text: string) => {
  const bytes = Buffer.from(text, 'base64');
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
};

export class FaceIndex {
  constructor(private readonly deps: { orm: Orm; clock: Clock; sealer: Sealer }) {}

  /** Enrolled faces of the project within `maxDistance` of the descriptor, nearest first. */
  async search(projectId: string, purpose: FacePurpose, descriptor: Float32Array, options: { maxDistance?: number; limit?: number } = {}): Promise<{ matches: FaceMatch[]; candidates: number }> {
    const maxDistance = options.maxDistance ?? MATCH_DISTANCE;
    const keys = probeKeys(`${projectId}:${purpose}`, descriptor);
    const rows: { id: string; reference: string | null; descriptor_sealed: string }[] = await this.deps.orm.em.getConnection().execute(
      // OFFSET 0 fences the subquery so the planner takes the GIN index on buckets (the keys are
      // already scoped to the project) rather than scanning the project's rows by project_id.
      'select id, reference, descriptor_sealed from (select * from face_enrollment where buckets && ?::int[] offset 0) candidate where project_id = ? and purpose = ?',
      [`{${keys.join(',')}}`, projectId, purpose],
    );
    const matches: FaceMatch[] = [];
    for (const row of rows) {
      const distance = faceDistance(descriptor, fromBase64(this.deps.sealer.open(row.descriptor_sealed)));
      if (distance <= maxDistance) matches.push({ faceId: row.id, reference: row.reference, distance });
    }
    matches.sort((a, b) => a.distance - b.distance);
    return { matches: matches.slice(0, options.limit ?? 5), candidates: rows.length };
  }

  /** Stores descriptors (sealed) with their hash keys; returns their face ids in order. */
  async enroll(projectId: string, purpose: FacePurpose, faces: { descriptor: Float32Array; reference?: string | null }[]): Promise<string[]> {
    const em = this.deps.orm.em.fork();
    const now = this.deps.clock.now();
    const rows = faces.map((face) => ({
      id: newId('fce'),
      projectId,
      purpose,
      reference: face.reference ?? null,
      descriptorSealed: this.deps.sealer.seal(toBase64(face.descriptor)),
      buckets: storedKeys(`${projectId}:${purpose}`, face.descriptor),
      createdAt: now,
    }));
    await em.insertMany(FaceEnrollment, rows);
    return rows.map((row) => row.id);
  }

  /** Removes an enrolled face; `not_found` when it is not this project's. */
  async unlink(projectId: string, purpose: FacePurpose, faceId: string): Promise<void> {
    const deleted = await this.deps.orm.em.fork().nativeDelete(FaceEnrollment, { id: faceId, projectId, purpose });
    if (deleted === 0) throw new DomainError('not_found', 'no enrolled face with that id in this project');
  }
}
