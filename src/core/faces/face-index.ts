import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { DomainError } from '../errors.js';
import { newId, type Sealer } from '../secrets.js';
import { DESCRIPTOR_DIMENSIONS, FACE_DESCRIPTOR_KIND, faceDistance, MATCH_DISTANCE } from '../../ml/faces/match.js';
import { preparedQuery, preparedQueryIn, preparedQueryWith, transaction } from '../db/prepared.js';
import type { FaceEnrollment } from './entities.js';

// A project's register of face descriptors (one per purpose and mode: see FaceRegister), searched
// for the same person; built for a million descriptors per project on plain PostgreSQL or PGlite
// (no pgvector).
//
// The search is exact: every enrolled descriptor is compared with the probe by Euclidean
// distance, so it finds exactly what face match would call the same person. No prefilter can
// promise that here: on the shared photos, same-person pairs within the match distance reach 68
// degrees apart around the average descriptor while strangers come down to 64, so locality-
// sensitive hashing needs to probe a large share of the register to find the far pairs (measured
// in docs/face-engine.md). A linear scan of the descriptors is fast when the
// descriptors are already open in memory, so:
// - Each instance holds a register as int8 codes (DescriptorTable): 512 bytes a face plus 24 for
//   its scale and rounding-error bound, scanned 16 codes at a time with WebAssembly SIMD. The
//   bound rules out nearly every face; the rest (the matches, rarely one more) are decided
//   by their exact float distance, from the sealed rows that confirm() reads anyway.
//   Measured at a million synthetic 512-d faces, the table alone on this 2-core machine: float32
//   rows as the 128-d design kept them take 2,048 bytes a face (2,050 MB, 2,134 MB with the ids)
//   and a JS scan with early exit 475 ms p50, 528 ms p95; int8 codes take 536 bytes a face
//   (513 MB, 596 MB with the ids) and 58 ms p50, 99 ms p95. The int8 scan in plain JS is no
//   faster than the float one (~400 ms; it is the fallback without WebAssembly), a float32 SIMD
//   scan still takes 160 ms and 2 GB, and a float copy kept for the exact decision would cost its
//   2,048 bytes a face again.
// - At rest, each descriptor is sealed (AES-256-GCM) in `face_enrollment`, with nothing derived
//   from it in clear.
// - Each instance opens a register once (first search) into a DescriptorTable, then catches up
//   on every search with the rows whose `seq` is above the last one it saw. Enrolment takes a
//   per-register lock, so `seq` order is commit order and catching up never skips a row.
// - Unlinks elsewhere are caught when a match is confirmed against the table (the database says
//   which of the matched faces still exist), so a stale face is never reported.

export const DESCRIPTOR_SIZE = DESCRIPTOR_DIMENSIONS;

export type FacePurpose = FaceEnrollment['purpose'];

export interface FaceMatch {
  faceId: string;
  reference: string | null;
  distance: number;
}

/** Bytes of one row's codes: the descriptor, zero padded to the kernel's step of 32 codes. */
const STRIDE = Math.ceil(DESCRIPTOR_SIZE / 32) * 32;
/** Rows per kernel call: 512 KB of codes, which stay in cache while the kernel reads them. */
const BLOCK = 1024;
/**
 * Rows per chunk of storage (2 MB of codes): a register grows without copying, and never needs one buffer of its whole
 * size.
 */
const CHUNK = 4096;
/** Per row in `meta`: the code scale, the norm of the rounding error, the norm of the descriptor. */
const META = 3;
/** Relative allowance for floating-point rounding in the bound (the bound's own rounding is below 1e-13). */
const ROUNDING = 1e-9;

/** Integer dot products of the probe's codes with rows of codes. */
interface DotKernel {
  /** The probe's codes, STRIDE of them. */
  readonly probe: Int16Array;
  /** probe . row for `count` rows of `codes` from `row` on (count <= BLOCK); the result is reused by the next call. */
  dots(codes: Int8Array, row: number, count: number): Int32Array;
}

interface WasmApi {
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

// The kernel as WebAssembly, assembled here (293 bytes), the equivalent of:
//   (func (export "dots") (param $probe i32) (param $row i32) (param $count i32) (param $out i32) (param $stride i32)
//     for each of $count rows: acc = 0; for $i in 0, 32, .. $stride: for both 16-code halves:
// x = v128.load($row + $i [+ 16]); acc += i32x4.dot_i16x8_s(i16x8.extend_low_i8x16_s(x), v128.load($probe + 2 $i [+
// 32]))
// acc += i32x4.dot_i16x8_s(i16x8.extend_high_i8x16_s(x), v128.load($probe + 2 $i + 16 [+ 32]))
//     i32.store($out, sum of acc's 4 lanes); $row += $stride; $out += 4)
// Codes are within +-127 and rows are 512 codes, so no sum overflows.
function dotsModule(): Uint8Array {
  const leb = (n: number) => {
    const out: number[] = [];
    do {
      const low = n & 0x7f;
      n >>>= 7;
      out.push(n ? low | 0x80 : low);
    } while (n);
    return out;
  };
  const section = (id: number, bytes: number[]) => [id, ...leb(bytes.length), ...bytes];
  const name = (text: string) => [...leb(text.length), ...Buffer.from(text)];
  const [probe, row, count, out, stride, i, acc, x, end] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const get = (local: number) => [0x20, local];
  const set = (local: number) => [0x21, local];
  const tee = (local: number) => [0x22, local];
  const simd = (op: number) => [0xfd, ...leb(op)];
  const load = (offset: number) => [...simd(0x00), 0, ...leb(offset)];
  const [extendLow, extendHigh, dot, add, lane] = [0x87, 0x88, 0xba, 0xae, 0x1b];
  // acc + dot(extend(x), probe[2i + offset ..])
  const half = (extend: number, offset: number) => [
    ...get(x),
    ...simd(extend),
    ...get(probe),
    ...get(i),
    0x41,
    1,
    0x74,
    0x6a,
    ...load(offset),
    ...simd(dot),
    ...simd(add),
  ];
  const step = (offset: number) => [
    ...get(row),
    ...get(i),
    0x6a,
    ...load(offset),
    ...set(x),
    ...get(acc),
    ...half(extendLow, 2 * offset),
    ...half(extendHigh, 2 * offset + 16),
    ...set(acc),
  ];
  const body = [
    ...[3, 1, 0x7f, 2, 0x7b, 1, 0x7f], // locals: $i i32, $acc $x v128, $end i32
    ...[...get(out), ...get(count), 0x41, 2, 0x74, 0x6a, ...set(end)], // $end = $out + 4 $count
    ...[0x02, 0x40, ...get(out), ...get(end), 0x4f, 0x0d, 0], // block; if $out >= $end: done
    ...[0x03, 0x40, ...simd(0x0c), ...new Array<number>(16).fill(0), ...set(acc), 0x41, 0, ...set(i)], // loop (rows): $acc = 0, $i = 0
    ...[0x03, 0x40, ...step(0), ...step(16)], // loop (codes): 32 codes
    ...[...get(i), 0x41, 32, 0x6a, ...tee(i), ...get(stride), 0x49, 0x0d, 0, 0x0b], // $i += 32; while $i < $stride
    ...[
      ...get(out),
      ...get(acc),
      ...simd(lane),
      0,
      ...get(acc),
      ...simd(lane),
      1,
      0x6a,
      ...get(acc),
      ...simd(lane),
      2,
      0x6a,
      ...get(acc),
      ...simd(lane),
      3,
      0x6a,
      0x36,
      2,
      0,
    ],
    ...[
      ...get(row),
      ...get(stride),
      0x6a,
      ...set(row),
      ...get(out),
      0x41,
      4,
      0x6a,
      ...tee(out),
      ...get(end),
      0x49,
      0x0d,
      0,
    ], // next row while $out < $end
    ...[0x0b, 0x0b, 0x0b],
  ];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0],
    ...section(1, [1, 0x60, 5, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0]), // (i32 x 5) -> ()
    ...section(2, [1, ...name('m'), ...name('memory'), 2, 0, 1]), // imports a memory
    ...section(3, [1, 0]),
    ...section(7, [1, ...name('dots'), 0, 0]),
    ...section(10, [1, ...leb(body.length), ...body]),
  ]);
}

/**
 * One instance per process, with its own small memory: the probe, the results and a block of codes copied in (no slower
 * than scanning in place, measured).
 */
function wasmKernel(): DotKernel | null {
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (!api) return null;
  try {
    const probeAt = 0;
    const outAt = STRIDE * 2;
    const codesAt = outAt + BLOCK * 4;
    const memory = new api.Memory({ initial: Math.ceil((codesAt + BLOCK * STRIDE) / 65_536) });
    const dots = new api.Instance(new api.Module(dotsModule()), { m: { memory } }).exports.dots as (
      probe: number,
      row: number,
      count: number,
      out: number,
      stride: number,
    ) => void;
    const probe = new Int16Array(memory.buffer, probeAt, STRIDE);
    const out = new Int32Array(memory.buffer, outAt, BLOCK);
    const block = new Int8Array(memory.buffer, codesAt, BLOCK * STRIDE);
    return {
      probe,
      dots(codes, row, count) {
        block.set(codes.subarray(row * STRIDE, (row + count) * STRIDE));
        dots(probeAt, codesAt, count, outAt, STRIDE);
        return out;
      },
    };
  } catch {
    return null; // no WebAssembly SIMD here
  }
}

function jsKernel(): DotKernel {
  const probe = new Int16Array(STRIDE);
  const out = new Int32Array(BLOCK);
  return {
    probe,
    dots(codes, row, count) {
      for (let r = 0, base = row * STRIDE; r < count; r++, base += STRIDE) {
        let sum = 0;
        for (let i = 0; i < STRIDE; i++) sum += probe[i]! * codes[base + i]!;
        out[r] = sum;
      }
      return out;
    },
  };
}

let sharedKernel: DotKernel | undefined;

/**
 * Codes `v` into `codes` from `at` (the padding stays zero), and returns its scale, the norm of
 * its rounding error and its norm. A non-finite value makes the error NaN.
 */
function quantise(
  v: Float32Array,
  codes: Int8Array | Int16Array,
  at: number,
): [scale: number, error: number, norm: number] {
  let maxAbs = 0;
  let squares = 0;
  for (let i = 0; i < DESCRIPTOR_SIZE; i++) {
    const x = v[i]!;
    squares += x * x;
    maxAbs = Math.max(maxAbs, Math.abs(x));
  }
  const scale = maxAbs / 127;
  let errors = 0;
  for (let i = 0; i < DESCRIPTOR_SIZE; i++) {
    const q = scale > 0 ? Math.max(-127, Math.min(127, Math.round(v[i]! / scale))) : 0;
    codes[at + i] = q;
    const e = v[i]! - scale * q;
    errors += e * e;
  }
  return [scale, Math.sqrt(errors), Math.sqrt(squares)];
}

interface Chunk {
  codes: Int8Array;
  meta: Float64Array;
  floats: Float32Array | null;
}

/**
 * Descriptors of one register in memory, searched exactly: every row within `maxDistance` of the
 * probe, as faceDistance computes it, is found, and no other.
 *
 * Each row is kept as int8 codes with its own scale (q = round(v / maxAbs * 127)), plus three
 * numbers: the scale, the norm of the rounding error e = v - scale * q, and the norm of v. The
 * probe is coded the same way. For probe p and row v,
 *   p . v = p^ . v^ + p^ . e_v + e_p . v,   so   |p . v - p^ . v^| <= |p^| |e_v| + |e_p| |v|
 * (Cauchy-Schwarz), and |p - v|^2 = |p|^2 + |v|^2 - 2 p . v is at least that with p . v at its
 * largest. p^ . v^ is an integer dot product times the two scales, computed 16 codes at a time
 * (WebAssembly SIMD; a plain loop where that is missing). A row whose lower bound is past the
 * limit (less a relative 1e-9 for floating-point rounding, far above the rounding it covers)
 * cannot be within it; every other row is a candidate, decided by its exact float distance. This
 * holds for any descriptor, unit or not; a row or probe with a non-finite value has a NaN bound,
 * so it is a candidate, then decided exactly (never within a finite limit).
 *
 * With `keepFloats` (the default: scripts/eval-faces.ts and tests) the table also keeps each
 * row's float32 values and `within()` decides the candidates itself. FaceIndex keeps none: it
 * asks for `candidates()` and decides them from the sealed rows it reads anyway to confirm a match.
 */
export class DescriptorTable {
  private chunks: Chunk[] = [];
  private ids: string[] = [];
  private readonly slots = new Map<string, number>();
  private readonly keepFloats: boolean;

  constructor(options: { keepFloats?: boolean } = {}) {
    this.keepFloats = options.keepFloats ?? true;
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  add(id: string, descriptor: Float32Array): void {
    if (descriptor.length !== DESCRIPTOR_SIZE)
      throw new RangeError(`a descriptor has ${DESCRIPTOR_SIZE} values, not ${descriptor.length}`);
    if (this.slots.has(id)) return;
    const row = this.ids.length;
    const chunk = this.room(row);
    const at = row % CHUNK;
    const [scale, error, norm] = quantise(descriptor, chunk.codes, at * STRIDE);
    chunk.meta[at * META] = scale;
    chunk.meta[at * META + 1] = error;
    chunk.meta[at * META + 2] = norm;
    chunk.floats?.set(descriptor, at * DESCRIPTOR_SIZE);
    this.slots.set(id, row);
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
      const to = this.chunks[Math.floor(slot / CHUNK)]!;
      const from = this.chunks[Math.floor(last / CHUNK)]!;
      const [a, b] = [slot % CHUNK, last % CHUNK];
      to.codes.set(from.codes.subarray(b * STRIDE, (b + 1) * STRIDE), a * STRIDE);
      to.meta.set(from.meta.subarray(b * META, (b + 1) * META), a * META);
      to.floats?.set(from.floats!.subarray(b * DESCRIPTOR_SIZE, (b + 1) * DESCRIPTOR_SIZE), a * DESCRIPTOR_SIZE);
      this.ids[slot] = lastId;
      this.slots.set(lastId, slot);
    }
    if (last % CHUNK === 0 && last > 0) this.chunks.pop();
  }

  /**
   * Every face that may be within `maxDistance`, with a lower bound of its distance, lowest first:
   * all of those `within()` returns, and the few others the int8 codes cannot rule out.
   */
  candidates(descriptor: Float32Array, maxDistance: number): { id: string; atLeast: number }[] {
    if (descriptor.length !== DESCRIPTOR_SIZE)
      throw new RangeError(`a descriptor has ${DESCRIPTOR_SIZE} values, not ${descriptor.length}`);
    // Nothing is within a negative or NaN distance.
    if (!this.ids.length || !(maxDistance >= 0)) return [];
    // A non-finite probe is at a NaN or infinite distance from every row.
    if (Number.isFinite(maxDistance) && !descriptor.every(Number.isFinite)) return [];
    sharedKernel ??= wasmKernel() ?? jsKernel();
    const kernel = sharedKernel;
    const [probeScale, probeError, probeNorm] = quantise(descriptor, kernel.probe, 0);
    let codedNorm = 0;
    for (let i = 0; i < DESCRIPTOR_SIZE; i++) codedNorm += (probeScale * kernel.probe[i]!) ** 2;
    codedNorm = Math.sqrt(codedNorm);
    const pp = probeNorm * probeNorm;
    const limit = maxDistance * maxDistance;
    const found: { id: string; atLeast: number }[] = [];
    for (const [c, chunk] of this.chunks.entries()) {
      const rows = Math.min(CHUNK, this.ids.length - c * CHUNK);
      const meta = chunk.meta;
      for (let start = 0; start < rows; start += BLOCK) {
        const count = Math.min(BLOCK, rows - start);
        const dots = kernel.dots(chunk.codes, start, count);
        for (let r = 0, m = start * META; r < count; r++, m += META) {
          const norm = meta[m + 2]!;
          const vv = norm * norm;
          const least = pp + vv - 2 * (probeScale * meta[m]! * dots[r]! + codedNorm * meta[m + 1]! + probeError * norm);
          const margin = ROUNDING * (pp + vv + limit);
          // Written so that a NaN bound keeps the row.
          if (!(least > limit + margin))
            found.push({
              id: this.ids[c * CHUNK + start + r]!,
              atLeast: least > margin ? Math.sqrt(least - margin) : 0,
            });
        }
      }
    }
    return found.sort((a, b) => a.atLeast - b.atLeast);
  }

  /** Every face within `maxDistance` (faceDistance), nearest first. Needs the float copy (`keepFloats`). */
  within(descriptor: Float32Array, maxDistance: number): { id: string; distance: number }[] {
    if (!this.keepFloats)
      throw new Error('this table keeps no float copy: decide its candidates() from the descriptors kept elsewhere');
    const found: { id: string; distance: number }[] = [];
    for (const { id } of this.candidates(descriptor, maxDistance)) {
      const row = this.slots.get(id)!;
      const at = (row % CHUNK) * DESCRIPTOR_SIZE;
      const distance = faceDistance(
        descriptor,
        this.chunks[Math.floor(row / CHUNK)]!.floats!.subarray(at, at + DESCRIPTOR_SIZE),
      );
      if (distance <= maxDistance) found.push({ id, distance });
    }
    return found.sort((a, b) => a.distance - b.distance);
  }

  /** The chunk that holds `row`, grown or added as needed (a small register starts with room for 64 faces). */
  private room(row: number): Chunk {
    const index = Math.floor(row / CHUNK);
    const at = row % CHUNK;
    let chunk = this.chunks[index];
    if (chunk && at < chunk.meta.length / META) return chunk;
    const capacity = index > 0 ? CHUNK : Math.min(CHUNK, Math.max(64, at * 2));
    const grown: Chunk = {
      codes: new Int8Array(capacity * STRIDE),
      meta: new Float64Array(capacity * META),
      floats: this.keepFloats ? new Float32Array(capacity * DESCRIPTOR_SIZE) : null,
    };
    if (chunk) {
      grown.codes.set(chunk.codes);
      grown.meta.set(chunk.meta);
      if (chunk.floats) grown.floats!.set(chunk.floats);
    }
    this.chunks[index] = chunk = grown;
    return chunk;
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
/** Candidates read back per query in confirm(). */
const CONFIRM_BATCH = 64;

const toBase64 = (descriptor: Float32Array) =>
  Buffer.from(descriptor.buffer, descriptor.byteOffset, descriptor.byteLength).toString('base64');
const fromBase64 = (text: string) => {
  const bytes = Buffer.from(text, 'base64');
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
};

/**
 * One register: a project's faces of one purpose, enrolled in one mode. Test keys and live keys
 * never share one (test mode shares nothing with live mode but the project's settings): a test
 * key's search never sees a live face, its enrolment never makes a live search fail, and it
 * cannot unlink a live face.
 */
export interface FaceRegister {
  projectId: string;
  purpose: FacePurpose;
  /** False: the register of the project's test keys. */
  livemode: boolean;
}

/**
 * The register's name: the in-memory copy's key and its enrolment lock. A live register keeps the
 * name registers had before modes were apart, so instances of the previous version, still running
 * during a rolling deploy, take the same lock for it.
 */
export const registerKey = (register: FaceRegister) =>
  `${register.projectId}:${register.purpose}${register.livemode ? '' : ':test'}`;

export class FaceIndex {
  private readonly registers = new Map<string, Register>();

  constructor(private readonly deps: { orm: Orm; clock: Clock; sealer: Sealer }) {}

  /**
   * Enrolled faces of the register within `maxDistance` of the descriptor, nearest first, and how
   * many were compared. With `enrollIfNew`, a face with no match is enrolled in the same step,
   * under the register's lock, so two concurrent requests cannot enrol the same new person twice.
   */
  async search(
    at: FaceRegister,
    descriptor: Float32Array,
    options: { maxDistance?: number; limit?: number; enrollIfNew?: { reference: string | null } } = {},
  ): Promise<{ matches: FaceMatch[]; compared: number; enrolledId: string | null }> {
    const register = await this.open(at);
    const find = async (tx?: Em) => {
      await this.catchUp(tx, at, register);
      return { matches: await this.confirm(tx, at, register, descriptor, options), compared: register.table.size };
    };
    const enroll = options.enrollIfNew;
    if (!enroll) return { ...(await find()), enrolledId: null };
    const result = await transaction(this.deps.orm, async (tx) => {
      await this.lock(tx, at);
      const found = await find(tx);
      const [enrolledId] = found.matches.length
        ? []
        : await this.insert(tx, at, [{ descriptor, reference: enroll.reference }]);
      return { ...found, enrolledId: enrolledId ?? null };
    });
    if (result.enrolledId) register.table.add(result.enrolledId, descriptor);
    return result;
  }

  /** Stores descriptors (sealed) in the register; returns their face ids in order. */
  async enroll(at: FaceRegister, faces: { descriptor: Float32Array; reference?: string | null }[]): Promise<string[]> {
    const ids = await transaction(this.deps.orm, async (tx) => {
      await this.lock(tx, at);
      return this.insert(tx, at, faces);
    });
    // Known here without unsealing; catching up later skips them. The register's `seq` is not
    // moved, so rows that other instances committed before these are still read.
    const table = this.registers.get(registerKey(at))?.table;
    if (table) for (const [i, id] of ids.entries()) table.add(id, faces[i]!.descriptor);
    return ids;
  }

  /** Removes an enrolled face; `not_found` when it is not in this register (another project's, or the other mode's). */
  async unlink(at: FaceRegister, faceId: string): Promise<void> {
    const deleted = await preparedQuery(
      this.deps.orm,
      'face_unlink',
      'delete from face_enrollment where id = $1 and project_id = $2 and purpose = $3 and livemode = $4 returning id',
      [faceId, at.projectId, at.purpose, at.livemode],
    );
    if (deleted.length === 0) throw new DomainError('not_found', 'no enrolled face with that id in this project');
    this.registers.get(registerKey(at))?.table.remove(faceId);
  }

  /** Serializes enrolments per register until the transaction ends (see `seq`). */
  private async lock(tx: Em, at: FaceRegister): Promise<void> {
    await preparedQueryIn(this.deps.orm, tx, 'face_register_lock', 'select pg_advisory_xact_lock(hashtext($1))', [
      `face_enrollment:${registerKey(at)}`,
    ]);
  }

  private async insert(
    tx: Em,
    at: FaceRegister,
    faces: { descriptor: Float32Array; reference?: string | null }[],
  ): Promise<string[]> {
    const ids = faces.map(() => newId('fce'));
    // Every face in one statement, one array per column.
    await preparedQueryIn(
      this.deps.orm,
      tx,
      'face_enroll',
      `insert into face_enrollment (id, project_id, purpose, livemode, reference, descriptor_sealed, descriptor_kind, created_at)
       select f.id, $2, $3, $8, f.reference, f.descriptor_sealed, $4, $5 from unnest($1::varchar[], $6::varchar[], $7::text[]) as f(id, reference, descriptor_sealed)`,
      [
        ids,
        at.projectId,
        at.purpose,
        FACE_DESCRIPTOR_KIND,
        this.deps.clock.now(),
        faces.map((face) => face.reference ?? null),
        faces.map((face) => this.deps.sealer.seal(toBase64(face.descriptor))),
        at.livemode,
      ],
    );
    return ids;
  }

  private open(at: FaceRegister): Promise<Register> {
    const key = registerKey(at);
    let register = this.registers.get(key);
    if (!register) {
      const created: Register = {
        table: new DescriptorTable({ keepFloats: false }),
        lastSeq: 0,
        opened: Promise.resolve(),
      };
      created.opened = this.catchUp(undefined, at, created).catch((error: unknown) => {
        this.registers.delete(key);
        throw error;
      });
      this.registers.set(key, created);
      register = created;
    }
    return register.opened.then(() => register);
  }

  /**
   * Reads the rows enrolled since the register's last `seq` (all of them the first time); faces of another descriptor
   * kind are never compared.
   */
  private async catchUp(tx: Em | undefined, at: FaceRegister, register: Register): Promise<void> {
    for (;;) {
      const rows = await preparedQueryWith<{ id: string; seq: string; descriptor_sealed: string }>(
        this.deps.orm,
        tx,
        'face_register_catch_up',
        'select id, seq, descriptor_sealed from face_enrollment where project_id = $1 and purpose = $2 and livemode = $3 and descriptor_kind = $4 and seq > $5 order by seq limit $6',
        [at.projectId, at.purpose, at.livemode, FACE_DESCRIPTOR_KIND, register.lastSeq, PAGE],
      );
      for (const row of rows) {
        if (!register.table.has(row.id))
          register.table.add(row.id, fromBase64(this.deps.sealer.open(row.descriptor_sealed)));
      }
      if (rows.length) register.lastSeq = Math.max(register.lastSeq, Number(rows.at(-1)!.seq));
      if (rows.length < PAGE) return;
    }
  }

  /**
   * The table's candidates decided exactly: read back (the database also says which still exist:
   * another instance may have unlinked one) and unsealed, lowest bound first, until `limit`
   * matches are known and no candidate left could be nearer than the furthest of them. At the
   * match distance the candidates are the matches and rarely one more: one query, as before.
   */
  private async confirm(
    tx: Em | undefined,
    at: FaceRegister,
    register: Register,
    descriptor: Float32Array,
    options: { maxDistance?: number; limit?: number },
  ): Promise<FaceMatch[]> {
    const maxDistance = options.maxDistance ?? MATCH_DISTANCE;
    const limit = options.limit ?? 5;
    const candidates = register.table.candidates(descriptor, maxDistance);
    const matches: FaceMatch[] = [];
    for (let next = 0; next < candidates.length && limit > 0; ) {
      if (matches.length >= limit && candidates[next]!.atLeast > matches[limit - 1]!.distance) break;
      const batch = candidates.slice(next, next + CONFIRM_BATCH).map((candidate) => candidate.id);
      next += batch.length;
      const rows = await preparedQueryWith<{ id: string; reference: string | null; descriptor_sealed: string }>(
        this.deps.orm,
        tx,
        'face_enrollment_candidates',
        'select id, reference, descriptor_sealed from face_enrollment where id = any($1::varchar[]) and project_id = $2 and purpose = $3 and livemode = $4',
        [batch, at.projectId, at.purpose, at.livemode],
      );
      const still = new Set(rows.map((row) => row.id));
      for (const id of batch) if (!still.has(id)) register.table.remove(id);
      for (const row of rows) {
        const distance = faceDistance(descriptor, fromBase64(this.deps.sealer.open(row.descriptor_sealed)));
        if (distance <= maxDistance) matches.push({ faceId: row.id, reference: row.reference, distance });
      }
      matches.sort((a, b) => a.distance - b.distance);
    }
    return matches.slice(0, limit);
  }
}
