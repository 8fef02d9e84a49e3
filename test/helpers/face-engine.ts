import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { FaceEngine, FaceDescription, HeadPose, LivenessAssessment } from '../../src/core/face-engine.js';
import { DESCRIPTOR_DIMENSIONS, normalised } from '../../src/ml/faces/match.js';
import { pixels, type DecodedImage } from '../../src/ml/image.js';

// A small deterministic FaceEngine for core and HTTP tests that are not about the models. Test
// images are PNGs whose first pixel row encodes a face (who, how it is posed, live or not); the
// engine reads it back and builds 68 landmarks from a frontal template moved accordingly, and a
// 512-d unit descriptor from the person id. Any other image has no face. The rules built on top
// (burst motion, gestures, uniqueness search) run unchanged on what it returns.

export interface MarkerFace {
  /**
   * Who: the same person gives descriptors within ~0.35 of each other (cosine ~0.94), different people ~1.4 apart
   * (cosine ~0).
   */
  person: number;
  /** Photo of that person (varies the descriptor a little). */
  variant?: number;
  /** Passive liveness verdict. */
  live?: boolean;
  /** Faces in the image (the largest is this one). */
  faces?: number;
  /** Nose shift across the eye line, eye distances (turn to the subject's left: positive). */
  yaw?: number;
  /** Nose shift towards the mouth, eye-to-mouth distances (look up: negative). */
  pitch?: number;
  /** Eye aspect ratio (open ~0.3, closed ~0.05). */
  ear?: number;
  /** Mouth width factor (1 neutral, 1.2 smiling). */
  mouth?: number;
  /** Rigid motion of the whole face: shift in pixels and scale. */
  dx?: number;
  dy?: number;
  scale?: number;
  /** Non-rigid landmark noise, eye distances (natural micro-motion); 0 for a photo. */
  jitter?: number;
  /** Changes the file's bytes without changing the face. */
  nonce?: number;
  /** What the camera sees behind the face (0: a plain grey wall); another number is another place. Not read back. */
  scene?: number;
}

/** What the engine reads back from a marker image (the scene is only pixels). */
type Marker = Required<Omit<MarkerFace, 'scene'>>;

const MAGIC = [86, 70];
const SIDE = 96;
const byte = (x: number) => Math.max(0, Math.min(255, Math.round(x)));

/** A PNG test image carrying `face` (or no face at all when null). */
export async function markerImage(face: MarkerFace | null): Promise<Buffer> {
  const data = Buffer.alloc(SIDE * SIDE * 3, 128);
  const f = face ?? { person: 0, faces: 0 };
  const fields = [
    ...MAGIC,
    f.faces ?? 1,
    f.person,
    f.variant ?? 0,
    f.live === false ? 0 : 1,
    100 + 100 * (f.yaw ?? 0),
    100 + 100 * (f.pitch ?? 0),
    100 * (f.ear ?? 0.3),
    100 * (f.mouth ?? 1),
    100 + (f.dx ?? 0),
    100 + (f.dy ?? 0),
    50 * (f.scale ?? 1),
    1000 * (f.jitter ?? 0),
    f.nonce ?? 0,
  ];
  fields.forEach((value, i) => {
    data[i * 3] = byte(value);
  });
  if (f.scene) paintScene(data, f.scene);
  return sharp(data, { raw: { width: SIDE, height: SIDE, channels: 3 } })
    .png()
    .toBuffer();
}

/** A textured background for `scene` below the marker row, the same for every frame of that scene. */
function paintScene(data: Buffer, scene: number): void {
  for (let y = 1; y < SIDE; y++) {
    for (let x = 0; x < SIDE; x++) {
      const v = 128 + 70 * Math.sin(x * (0.2 + 0.07 * scene) + y * 0.13 * scene) * Math.cos(y * 0.09 + scene);
      data.fill(byte(v), (y * SIDE + x) * 3, (y * SIDE + x) * 3 + 3);
    }
  }
}

async function readMarker(image: DecodedImage): Promise<Marker | null> {
  const px = await pixels(image, { channels: 3 });
  if (px.width < 15) return null;
  const at = (i: number) => px.data[i * px.channels]!;
  if (at(0) !== MAGIC[0] || at(1) !== MAGIC[1] || at(2) === 0) return null;
  return {
    faces: at(2),
    person: at(3),
    variant: at(4),
    live: at(5) === 1,
    yaw: (at(6) - 100) / 100,
    pitch: (at(7) - 100) / 100,
    ear: at(8) / 100,
    mouth: at(9) / 100,
    dx: at(10) - 100,
    dy: at(11) - 100,
    scale: at(12) / 50,
    jitter: at(13) / 1000,
    nonce: at(14),
  };
}

/** Seeded uniform numbers in (0, 1) from SHA-256 of (seed, counter), so every run builds the same faces. */
function random(seed: number): () => number {
  let i = 0;
  return () => (createHash('sha256').update(`${seed}:${i++}`).digest().readUInt32BE(0) + 0.5) / 2 ** 32;
}
const gauss = (r: () => number) => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());

/** 68 frontal landmarks in a 100-unit face (eye distance 30), posed as the marker says. */
function landmarks(m: Marker): { x: number; y: number }[] {
  const points: { x: number; y: number }[] = [];
  for (let i = 0; i <= 16; i++) {
    const t = Math.PI - (i * Math.PI) / 16;
    points.push({ x: 50 + 40 * Math.cos(t), y: 40 + 50 * Math.sin(t) });
  }
  for (let k = 0; k < 5; k++) points.push({ x: 22 + 5 * k, y: 28 });
  for (let k = 0; k < 5; k++) points.push({ x: 58 + 5 * k, y: 28 });
  for (const y of [38, 44, 50, 56]) points.push({ x: 50, y });
  for (const x of [42, 46, 50, 54, 58]) points.push({ x, y: 60 });
  const h = m.ear * 7; // EAR = 2h / 14
  for (const cx of [35, 65]) {
    points.push(
      { x: cx - 7, y: 40 },
      { x: cx - 2.3, y: 40 - h },
      { x: cx + 2.3, y: 40 - h },
      { x: cx + 7, y: 40 },
      { x: cx + 2.3, y: 40 + h },
      { x: cx - 2.3, y: 40 + h },
    );
  }
  const ring = (count: number, a: number, b: number) => {
    for (let k = 0; k < count; k++) {
      const t = Math.PI - (k * 2 * Math.PI) / count;
      points.push({ x: 50 + a * Math.cos(t), y: 75 - b * Math.sin(t) });
    }
  };
  ring(12, 12 * m.mouth, 4);
  ring(8, 8 * m.mouth, 2);
  // Head pose moves the nose (it sticks out of the face plane), the tip the most.
  const noseWeight: Record<number, number> = {
    27: 0.25,
    28: 0.5,
    29: 0.75,
    30: 1,
    31: 0.8,
    32: 0.8,
    33: 0.8,
    34: 0.8,
    35: 0.8,
  };
  for (const [i, w] of Object.entries(noseWeight)) {
    const p = points[Number(i)]!;
    points[Number(i)] = { x: p.x + w * m.yaw * 30, y: p.y + w * m.pitch * 35 };
  }
  const r = random(1000 * m.person + 37 * m.nonce + m.variant + 7);
  return points.map((p) => ({
    x: m.scale * (p.x + m.jitter * 30 * (2 * r() - 1)) + m.dx + 100,
    y: m.scale * (p.y + m.jitter * 30 * (2 * r() - 1)) + m.dy + 100,
  }));
}

function descriptor(m: Marker): Float32Array {
  const person = random(m.person + 1);
  const photo = random(7919 * (m.person + 1) + m.variant);
  // A unit vector, as the real descriptor: a random direction per person, nudged per photo.
  return normalised(
    Array.from({ length: DESCRIPTOR_DIMENSIONS }, () => gauss(person) + (m.variant ? 0.35 * gauss(photo) : 0)),
  );
}

function describe(m: Marker): FaceDescription {
  const marks = landmarks(m);
  const xs = marks.map((p) => p.x);
  const ys = marks.map((p) => p.y);
  const box = {
    x: Math.min(...xs),
    y: Math.min(...ys),
    width: Math.max(...xs) - Math.min(...xs),
    height: Math.max(...ys) - Math.min(...ys),
  };
  return { box, score: 0.99, landmarks: marks, rollDegrees: 0, descriptor: descriptor(m) };
}

/** The deterministic engine; `calls` counts model calls (tests check that bad input never reaches them). */
export function markerFaceEngine(): FaceEngine & { calls: number } {
  const engine = {
    calls: 0,
    async detectFaces(image: DecodedImage) {
      engine.calls++;
      const m = await readMarker(image);
      if (!m) return [];
      const { descriptor: _unused, ...face } = describe(m);
      return Array.from({ length: m.faces }, () => face);
    },
    async describeLargestFace(image: DecodedImage) {
      engine.calls++;
      const m = await readMarker(image);
      return m ? describe(m) : null;
    },
    async cropFace(image: DecodedImage) {
      return sharp(image.bytes).jpeg().toBuffer();
    },
    /**
     * The marker's pose in degrees, at the ratios the real mesh shows against landmark offsets (~110 per eye distance
     * of yaw, ~100 per eye-mouth distance of pitch).
     */
    async headPose(image: DecodedImage): Promise<HeadPose | null> {
      engine.calls++;
      const m = await readMarker(image);
      return m ? { yaw: 110 * m.yaw, pitch: -100 * m.pitch, roll: 0, confidence: 0.99 } : null;
    },
    async assessLiveness(image: DecodedImage): Promise<LivenessAssessment> {
      engine.calls++;
      const m = await readMarker(image);
      if (!m)
        return {
          liveScore: -1,
          result: 'no_face',
          scores: {},
          evidence: [{ name: 'face', value: 0, passed: false, detail: 'no face detected' }],
          faceCount: 0,
        };
      return {
        liveScore: m.live ? 1 : 0,
        result: m.live ? 'live' : 'spoof',
        scores: { minifasnet: m.live ? 0.9 : 0.2 },
        evidence: [{ name: 'marker', value: m.live ? 1 : 0, passed: m.live, detail: 'the test image says so' }],
        faceCount: m.faces,
      };
    },
  };
  return engine;
}
