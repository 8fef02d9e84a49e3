import type { DecodedImage } from '../image.js';
import { pixels, WORKING_COPY } from '../image.js';
import { type Box, LEFT_EYE, mean, MOUTH, type Point, RIGHT_EYE, rollDegrees } from './geometry.js';
import { padded, type QuarterTurns, type Rgb, toRgb, turn, unturnPoint, warp } from './raster.js';
import type { FaceRuntime } from './runtime.js';

// Detection strategy. SSD MobileNet v1 was trained on faces WITH context (a head in a scene), so:
// 1. run it on a copy whose long side is DETECT_SIDE (the net works at 512 anyway; full-size
//    input only costs time), keep faces at the usual confidence;
// 2. if nothing, put the image in the middle of a grey canvas three times its size: a crop the
//    face already fills then looks like a head in a scene at the scale SSD knows best. Measured
//    on the bbt 150x150 crops: a border of the long side finds 40/40 at the usual confidence,
//    a border of half the long side 36/40 (a quarter found none of the other four); the
//    no-face negatives stay below 0.3 with any border. A lower confidence is NOT used: it is
//    where objects (a dome, masks) start to score.
// 3. if still nothing, try the image turned 90/270/180 degrees (a phone held sideways whose
//    EXIF tag is missing or wrong); turned copies are padded too when the image is small (a
//    tight crop), where padding matters and costs nothing extra.
// 4. SSD also finds faces lying on their side (scores up to 0.99), but the landmark net only
//    knows upright faces and returns a squashed, meaningless shape for them. So every face's
//    landmarks are checked for an upright geometry (see `uprightMargin`); when they fail, the
//    area around the face is turned 90/270/180 degrees and detected again; the turn whose face
//    looks most upright wins. This makes the eye-line roll (and the aligned descriptor) right for sideways faces.
// There is no "whole image is a face" fallback: the landmark net returns 68 plausible points for
// ANY input (a blank page included), so it cannot verify a face; step 2 covers tight crops.
// Every box and landmark is mapped back to upright original-image pixels.

export const DETECT_SIDE = WORKING_COPY.maxSide;
/** face-api's own default; measured to keep every no-face negative at zero. */
export const MIN_CONFIDENCE = 0.5;
/** Up to this long side (in detection pixels) an image may be a tight crop: pad every attempt. */
const SMALL_SIDE = 400;

/** Faces per image whose orientation is double-checked (the largest ones). */
const MAX_REORIENT = 3;

export interface RawFace {
  box: Box;
  score: number;
  landmarks: Point[];
  rollDegrees: number;
}

/** Downscaled upright RGB pixels used for detection, with the factor back to original pixels. */
export async function detectionPixels(image: DecodedImage): Promise<{ rgb: Rgb; scale: number }> {
  const rgb = toRgb(await pixels(image, WORKING_COPY));
  return { rgb, scale: image.width / rgb.width };
}

/** Step 3's order: as sent, then sideways either way, then upside down. */
const EVERY_TURN: QuarterTurns[] = [0, 1, 3, 2];

/** Faces in the image, trying `turns` in order until one finds some (step 3). */
export async function findFaces(
  rt: FaceRuntime,
  rgb: Rgb,
  scale: number,
  turns: QuarterTurns[] = EVERY_TURN,
): Promise<RawFace[]> {
  const small = Math.max(rgb.width, rgb.height) <= SMALL_SIDE;
  for (const t of turns) {
    const turned = turn(rgb, t);
    let faces = await detectOnce(rt, turned, MIN_CONFIDENCE, 0);
    if (faces.length === 0 && (t === 0 || small)) {
      const border = Math.max(turned.width, turned.height);
      faces = await detectOnce(rt, padded(turned, border, 128), MIN_CONFIDENCE, border);
    }
    if (faces.length > 0) {
      faces.sort(byAreaDescending);
      // Each re-orientation costs up to three detector runs: bound it to the largest faces.
      for (let i = 0; i < Math.min(faces.length, MAX_REORIENT); i++) {
        const margin = uprightMargin(faces[i]!.landmarks, faces[i]!.box);
        if (margin < 0) faces[i] = await reorient(rt, turned, faces[i]!, margin);
      }
      return faces.map((f) => toOriginal(f, t, rgb.width, rgb.height, scale)).sort(byAreaDescending);
    }
  }
  return [];
}

function byAreaDescending(a: RawFace, b: RawFace): number {
  return b.box.width * b.box.height - a.box.width * a.box.height;
}

/** SSD + 68 landmarks on one RGB buffer; coordinates returned relative to the unpadded buffer. */
async function detectOnce(rt: FaceRuntime, rgb: Rgb, minConfidence: number, border: number): Promise<RawFace[]> {
  // face-api's detectAllFaces(SSD).withFaceLandmarks(), both nets run natively (ssd-onnx.ts, landmarks-onnx.ts)
  const faces: RawFace[] = [];
  for (const detection of await rt.ssd.locateFaces(rgb, { minConfidence, maxResults: 20 })) {
    const b = detection.box;
    const crop = faceCrop(b, rgb.width, rgb.height);
    if (!crop) continue;
    const found = await rt.landmarks.detect({ rgb, box: crop });
    // as face-api's extendWithFaceLandmarks: points on the crop, shifted by the box's own corner
    const landmarks = found.map((p) => ({ x: p.x + b.x - border, y: p.y + b.y - border }));
    faces.push({
      box: { x: b.x - border, y: b.y - border, width: b.width, height: b.height },
      score: detection.score,
      landmarks,
      rollDegrees: rollDegrees(landmarks),
    });
  }
  return faces;
}

/**
 * face-api's extractFaceTensors: the box clipped at the image's borders, in whole pixels; null when nothing is left.
 */
export function faceCrop(box: Box, width: number, height: number): Box | null {
  const x = Math.max(box.x, 0);
  const y = Math.max(box.y, 0);
  const crop = {
    x: Math.floor(x),
    y: Math.floor(y),
    width: Math.floor(Math.min(box.x + box.width - x, width - x)),
    height: Math.floor(Math.min(box.y + box.height - y, height - y)),
  };
  return crop.width > 0 && crop.height > 0 ? crop : null;
}

/** The face with its box corners and landmarks moved by `map` (a rotation and/or a scale). */
function mapFace(face: RawFace, map: (p: Point) => Point): RawFace {
  const a = map({ x: face.box.x, y: face.box.y });
  const b = map({ x: face.box.x + face.box.width, y: face.box.y + face.box.height });
  const landmarks = face.landmarks.map(map);
  return {
    box: { x: Math.min(a.x, b.x), y: Math.min(a.y, b.y), width: Math.abs(b.x - a.x), height: Math.abs(b.y - a.y) },
    score: face.score,
    landmarks,
    rollDegrees: rollDegrees(landmarks),
  };
}

export function toOriginal(face: RawFace, turns: QuarterTurns, w: number, h: number, scale: number): RawFace {
  // (w, h) is the size of the UNturned buffer; the turned one is (h, w) for odd turns.
  return mapFace(face, (p) => {
    const q = unturnPoint(p, turns, w, h);
    return { x: q.x * scale, y: q.y * scale };
  });
}

/**
 * How upright 68 landmarks look within their detector box: >= 0 passes. Measured on the
 * evaluation photos turned 0/90/270 degrees: upright faces have an eye distance of 0.42-0.48 of
 * the box width (one at 0.38) and the mouth at 0.69-0.84 of its height; landmarks run on sideways faces give at
 * most 0.37 and 0.66. The margin is the smaller distance past the cuts (0.39, 0.68), so the
 * best-looking of several orientations can be chosen when none passes outright.
 */
export function uprightMargin(landmarks: readonly Point[], box: Box): number {
  const l = mean(landmarks, LEFT_EYE);
  const r = mean(landmarks, RIGHT_EYE);
  const mouth = mean(landmarks, MOUTH);
  if (r.x <= l.x) return -1; // eyes swapped: upside down or mirrored nonsense
  const eyeDistance = Math.hypot(r.x - l.x, r.y - l.y) / box.width;
  const mouthDepth = (mouth.y - box.y) / box.height;
  return Math.min(eyeDistance - 0.39, mouthDepth - 0.68);
}

/**
 * Re-detects the face on a crop around it (twice its size, for context) turned each way. The
 * first turn that looks upright wins; failing that, the best-looking turn if it beats the
 * original. Landmarks alone cannot be re-run on the turned box: SSD's box for a sideways face
 * covers only part of it, so a square on it cuts the face.
 */
async function reorient(rt: FaceRuntime, rgb: Rgb, face: RawFace, margin: number): Promise<RawFace> {
  const side = Math.round(2 * Math.max(face.box.width, face.box.height));
  if (side < 16) return face;
  const x0 = face.box.x + face.box.width / 2 - side / 2;
  const y0 = face.box.y + face.box.height / 2 - side / 2;
  const crop = warp(rgb, { a: 1, b: 0, c: x0, d: 0, e: 1, f: y0 }, side, side);
  let best = { face, margin };
  for (const q of [1, 3, 2] as QuarterTurns[]) {
    for (const found of await detectOnce(rt, turn(crop, q), MIN_CONFIDENCE, 0)) {
      // the same face: its centre near the crop centre (neighbours may be in the context)
      const cx = found.box.x + found.box.width / 2 - side / 2;
      const cy = found.box.y + found.box.height / 2 - side / 2;
      if (Math.abs(cx) > side / 4 || Math.abs(cy) > side / 4) continue;
      const m = uprightMargin(found.landmarks, found.box);
      if (m > best.margin) best = { face: unturnFace(found, q, side, x0, y0), margin: m };
    }
    if (best.margin >= 0) break;
  }
  return best.face;
}

/** A face found on the crop turned by q, back in the coordinates of the buffer the crop came from. */
function unturnFace(found: RawFace, q: QuarterTurns, side: number, x0: number, y0: number): RawFace {
  return mapFace(found, (p) => {
    const u = unturnPoint(p, q, side, side);
    return { x: u.x + x0, y: u.y + y0 };
  });
}
