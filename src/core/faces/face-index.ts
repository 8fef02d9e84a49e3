import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { DomainError } from '../errors.js';
import { newId, type Sealer } from '../secrets.js';
import { FACE_DESCRIPTOR_KIND, MATCH_DISTANCE } from '../../ml/faces/match.js';
import { preparedQuery, preparedQueryIn, preparedQueryWith, transaction } from '../db/prepared.js';
import type { FaceEnrollment } from './entities.js';

// A project's register of face descriptors, searched for the same person; built for a million
// descriptors per project on plain PostgreSQL or PGlite (no pgvector).
//
// The search is exact: every enrolled descriptor is compared with the probe by Euclidean
// distance, so it finds exactly what face match would call the same person. No prefilter can
// promise that here: on the shared photos, same-person pairs within the match distance reach 68
// degrees apart around the average descriptor while strangers come down to 64, so locality-
// sensitive hashing needs to probe a large share of the register to find the far pairs (measured
// in the README, "Face engine"). A linear scan of 128 floats per face is fast when the
// descriptors are already open in memory, so:
// - At rest, each descriptor is sealed (AES-256-GCM) in `face_enrollment`, with nothing derived
//   from it in clear.
// - Each instance opens a register once (first search) into a DescriptorTable, then catches up
//   on every search with the rows whose `seq` is above the last one it saw. Enrolment takes a
//   per-register lock, so `seq` order is commit order and catching up never skips a row.
// - Unlinks elsewhere are caught when a match is confirmed against the table (the database says
//   which of the matched faces still exist), so a stale face is never reported.

export const DESCRIPTOR_SIZE = 128;

/** Average face-api descriptor on the shared evaluation photos (the test engine and the bench build descriptors around it). */
export const DESCRIPTOR_MEAN = Float32Array.from([
  -0.072, 0.081, 0.048, -0.025, -0.098, 0.001, -0.028, -0.075, 0.136, -0.074, 0.19, -0.025, -0.233, -0.003, -0.035, 0.119, -0.165, -0.114, -0.119, -0.084, 0.017, 0.049, 0.015, 0.043, -0.14, -0.303, -0.055, -0.108, 0.041,
  -0.1, -0.018, 0.033, -0.167, -0.037, 0.036, 0.065, -0.044, -0.072, 0.19, 0.036, -0.165, 0.027, 0.052, 0.272, 0.186, 0.031, 0.021, -0.073, 0.124, -0.266, 0.071, 0.149, 0.109, 0.082, 0.087, -0.176, 0.011, 0.129, -0.17,
  0.092, 0.057, -0.036, -0.016, -0.063, 0.199, 0.097, -0.119, -0.132, 0.146, -0.145, -0.058, 0.081, -0.112, -0.177, -0.257, 0.041, 0.412, 0.149, -0.174, -0.001, -0.081, -0.029, 0.048, 0.064, -0.071, -0.027, -0.075,
  0.031, 0.2, -0.004, -0.042, 0.212, -0.001, -0.008, 0.021, 0.037, -0.132, -0.014, -0.122, -0.035, 0.011, -0.086, -0.001, 0.103, -0.188, 0.157, -0.02, -0.03, -0.009, 0.013, -0.107, 0.003, 0.177, -0.267, 0.201, 0.176,
  0.05, 0.13, 0.058, 0.048, 0.004, -0.006, -0.16, -0.087, 0.029, -0.042, 0.027, 0.028,
]);

export type FacePurpose = FaceEnrollment['purpose'];

export interface FaceMatch {
  faceId: string;
  reference: string | null;
  distance: number;
}

/**
 * Descriptors of one register in memory, in one growing Float32Array; exact search by scan.
 * Also used on its own by scripts/eval-faces.ts to replay the search on the shared photos.
 */
export class DescriptorTable {
  private vectors = new Float32Array(DESCRIPTOR_SIZE * 1024);
  private ids: string[] = [];
  private readonly slots = new Map<string, number>();

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  add(id: string, descriptor: Float32Array): void {
    if (descriptor.length !== DESCRIPTOR_SIZE) throw new RangeError(`a descriptor has ${DESCRIPTOR_SIZE} values, not ${descriptor.length}`);
    if (this.slots.has(id)) return;
    if ((this.ids.length + 1) * DESCRIPTOR_SIZE > this.vectors.length) {
      const grown = new Float32Array(this.vectors.length * 2);
      grown.set(this.vectors);
      this.vectors = grown;
    }
    this.vectors.set(descriptor, this.ids.length * DESCRIPTOR_SIZE);
    this.slots.set(id, this.ids.length);
    this.ids.push(id);
  }

  /** Removes a face by moving the last one into its slot. */
  remove(id: string): void {
    const slot = this.slots.get(id);
    if (slot === undefined) return;
    const last = this.ids.length - 1;
    const lastId = this.ids.pop()!;
    this.slots.delete(id);
    if (slot !== last) {
      this.vectors.copyWithin(slot * DESCRIPTOR_SIZE, last * DESCRIPTOR_SIZE, (last + 1) * DESCRIPTOR_SIZE);
      this.ids[slot] = lastId;
      this.slots.set(lastId, slot);
    }
  }

  /** Every face within `maxDistance`, nearest first. */
  within(descriptor: Float32Array, maxDistance: number): { id: string; distance: number }[] {
    const limit = maxDistance * maxDistance;
    const v = this.vectors;
    const found: { id: string; distance: number }[] = [];
    for (let row = 0, base = 0; row < this.ids.length; row++, base += DESCRIPTOR_SIZE) {
      // Unrolled by 4, and given up every 32 values once past the limit: most faces are
      // strangers, past it halfway through.
      let sum = 0;
      for (let i = 0; i < DESCRIPTOR_SIZE && sum <= limit; ) {
        for (const end = i + 32; i < end; i += 4) {
          const d0 = descriptor[i]! - v[base + i]!;
          const d1 = descriptor[i + 1]! - v[base + i + 1]!;
          const d2 = descriptor[i + 2]! - v[base + i + 2]!;
          const d3 = descriptor[i + 3]! - v[base + i + 3]!;
          sum += d0 * d0 + d1 * d1 + d2 * d2 + d3 * d3;
        }
      }
      if (sum <= limit) found.push({ id: this.ids[row]!, distance: Math.sqrt(sum) });
    }
    return found.sort((a, b) => a.distance - b.distance);
  }
}

/** A register as one instance holds it: its descriptors and the last `seq` it has read. */
interface Register {
  table: DescriptorTable;
  lastSeq: number;
  /** The first full read, shared by concurrent first searches. */
  opened: Promise<void>;
}

type Em = Orm['em'];

const PAGE = 10_000;

const toBase64 = (descriptor: Float32Array) => Buffer.from(descriptor.buffer, descriptor.byteOffset, descriptor.byteLength).toString('base64');
const fromBase64 = (text: string) => {
  const bytes = Buffer.from(text, 'base64');
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
};

export class FaceIndex {
  private readonly registers = new Map<string, Register>();

  constructor(private readonly deps: { orm: Orm; clock: Clock; sealer: Sealer }) {}

  /**
   * Enrolled faces of the project within `maxDistance` of the descriptor, nearest first, and how
   * many were compared. With `enrollIfNew`, a face with no match is enrolled in the same step,
   * under the register's lock, so two concurrent requests cannot enrol the same new person twice.
   */
  async search(
    projectId: string,
    purpose: FacePurpose,
    descriptor: Float32Array,
    options: { maxDistance?: number; limit?: number; enrollIfNew?: { reference: string | null } } = {},
  ): Promise<{ matches: FaceMatch[]; compared: number; enrolledId: string | null }> {
    const register = await this.open(projectId, purpose);
    const find = async (tx?: Em) => {
      await this.catchUp(tx, projectId, purpose, register);
      return { matches: await this.confirm(tx, projectId, purpose, register, descriptor, options), compared: register.table.size };
    };
    const enroll = options.enrollIfNew;
    if (!enroll) return { ...(await find()), enrolledId: null };
    const result = await transaction(this.deps.orm, async (tx) => {
      await this.lock(tx, projectId, purpose);
      const found = await find(tx);
      const [enrolledId] = found.matches.length ? [] : await this.insert(tx, projectId, purpose, [{ descriptor, reference: enroll.reference }]);
      return { ...found, enrolledId: enrolledId ?? null };
    });
    if (result.enrolledId) register.table.add(result.enrolledId, descriptor);
    return result;
  }

  /** Stores descriptors (sealed); returns their face ids in order. */
  async enroll(projectId: string, purpose: FacePurpose, faces: { descriptor: Float32Array; reference?: string | null }[]): Promise<string[]> {
    const ids = await transaction(this.deps.orm, async (tx) => {
      await this.lock(tx, projectId, purpose);
      return this.insert(tx, projectId, purpose, faces);
    });
    // Known here without unsealing; catching up later skips them. The register's `seq` is not
    // moved, so rows that other instances committed before these are still read.
    const table = this.registers.get(`${projectId}:${purpose}`)?.table;
    if (table) for (const [i, id] of ids.entries()) table.add(id, faces[i]!.descriptor);
    return ids;
  }

  /** Removes an enrolled face; `not_found` when it is not this project's. */
  async unlink(projectId: string, purpose: FacePurpose, faceId: string): Promise<void> {
    const deleted = await preparedQuery(this.deps.orm, 'face_unlink', 'delete from face_enrollment where id = $1 and project_id = $2 and purpose = $3 returning id', [faceId, projectId, purpose]);
    if (deleted.length === 0) throw new DomainError('not_found', 'no enrolled face with that id in this project');
    this.registers.get(`${projectId}:${purpose}`)?.table.remove(faceId);
  }

  /** Serializes enrolments per register until the transaction ends (see `seq`). */
  private async lock(tx: Em, projectId: string, purpose: FacePurpose): Promise<void> {
    await preparedQueryIn(this.deps.orm, tx, 'face_register_lock', 'select pg_advisory_xact_lock(hashtext($1))', [`face_enrollment:${projectId}:${purpose}`]);
  }

  private async insert(tx: Em, projectId: string, purpose: FacePurpose, faces: { descriptor: Float32Array; reference?: string | null }[]): Promise<string[]> {
    const ids = faces.map(() => newId('fce'));
    // Every face in one statement, one array per column.
    await preparedQueryIn(
      this.deps.orm,
      tx,
      'face_enroll',
      `insert into face_enrollment (id, project_id, purpose, reference, descriptor_sealed, descriptor_kind, created_at)
       select f.id, $2, $3, f.reference, f.descriptor_sealed, $4, $5 from unnest($1::varchar[], $6::varchar[], $7::text[]) as f(id, reference, descriptor_sealed)`,
      [ids, projectId, purpose, FACE_DESCRIPTOR_KIND, this.deps.clock.now(), faces.map((face) => face.reference ?? null), faces.map((face) => this.deps.sealer.seal(toBase64(face.descriptor)))],
    );
    return ids;
  }

  private open(projectId: string, purpose: FacePurpose): Promise<Register> {
    const key = `${projectId}:${purpose}`;
    let register = this.registers.get(key);
    if (!register) {
      const created: Register = { table: new DescriptorTable(), lastSeq: 0, opened: Promise.resolve() };
      created.opened = this.catchUp(undefined, projectId, purpose, created).catch((error: unknown) => {
        this.registers.delete(key);
        throw error;
      });
      this.registers.set(key, created);
      register = created;
    }
    return register.opened.then(() => register);
  }

  /** Reads the rows enrolled since the register's last `seq` (all of them the first time); faces of another descriptor kind are never compared. */
  private async catchUp(tx: Em | undefined, projectId: string, purpose: FacePurpose, register: Register): Promise<void> {
    for (;;) {
      const rows = await preparedQueryWith<{ id: string; seq: string; descriptor_sealed: string }>(
        this.deps.orm,
        tx,
        'face_register_catch_up',
        'select id, seq, descriptor_sealed from face_enrollment where project_id = $1 and purpose = $2 and descriptor_kind = $3 and seq > $4 order by seq limit $5',
        [projectId, purpose, FACE_DESCRIPTOR_KIND, register.lastSeq, PAGE],
      );
      for (const row of rows) {
        if (!register.table.has(row.id)) register.table.add(row.id, fromBase64(this.deps.sealer.open(row.descriptor_sealed)));
      }
      if (rows.length) register.lastSeq = Math.max(register.lastSeq, Number(rows.at(-1)!.seq));
      if (rows.length < PAGE) return;
    }
  }

  /** The table's matches that still exist (another instance may have unlinked one), with their references. */
  private async confirm(tx: Em | undefined, projectId: string, purpose: FacePurpose, register: Register, descriptor: Float32Array, options: { maxDistance?: number; limit?: number }): Promise<FaceMatch[]> {
    const near = register.table.within(descriptor, options.maxDistance ?? MATCH_DISTANCE);
    if (!near.length) return [];
    const rows = await preparedQueryWith<{ id: string; reference: string | null }>(
      this.deps.orm,
      tx,
      'face_enrollments_still_there',
      'select id, reference from face_enrollment where id = any($1::varchar[]) and project_id = $2 and purpose = $3',
      [near.map((n) => n.id), projectId, purpose],
    );
    const references = new Map(rows.map((row) => [row.id, row.reference]));
    const matches: FaceMatch[] = [];
    for (const { id, distance } of near) {
      if (references.has(id)) matches.push({ faceId: id, reference: references.get(id)!, distance });
      else register.table.remove(id);
    }
    return matches.slice(0, options.limit ?? 5);
  }
}
