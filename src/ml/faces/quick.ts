import { faceCrop, type RawFace, toOriginal, uprightMargin } from './detect.js';
import { type Box, boundsOf, LEFT_EYE, mean, type Point, RIGHT_EYE, rollDegrees } from './geometry.js';
import type { Rgb } from './raster.js';
import type { FaceRuntime } from './runtime.js';

// The quick way to the one face a face match describes: face-api's tiny detector (about a fifth of
// the SSD's time here) finds the largest face, and the landmark net places it. Taken only when the
// face is plainly upright; anything else (no face, a face on its side or upside down, a doubtful
// one) goes the full way (detect.ts: SSD, padding, turns), so the quick way can only skip work.
// 1. The tiny detector's box is loose (often 1.5-2 times the face), so its landmarks are only a
//    first guess: they give a box shaped like the SSD's (fitted below), where the landmarks are run
//    again. The rest of the pipeline (describe.ts) then sees what the SSD would have handed it.
// 2. The tiny detector also fires on faces lying on their side or upside down, and the landmark
//    net draws a plausible upright face on anything. What tells them apart: on an upright face the
//    net reads the mirrored crop the same way (its points, mirrored back, land within 0.11 eye
//    distances of the first ones on every upright face measured), on a turned face it guesses
//    anew each time (0.18 and more). Fitted on frames of the shared video (upright, at most 0.108)
//    and the passport photos turned 90/180/270 degrees (at least 0.184); on the two pair sets:
//    upright faces at most 0.108, turned ones at least 0.189.

/** The tiny detector's input side: 224 kept the pair sets' accuracy (320 let an impostor through). */
export const QUICK_SIDE = 224;
/** face-api's default for the tiny detector. */
const MIN_SCORE = 0.5;
/** Mean landmark disagreement with the mirrored crop, in eye distances, above which a face may be turned. */
const MAX_MIRROR_DISAGREEMENT = 0.15;

/** The 68 points' mirror images: point i of a face is point MIRROR[i] of its mirrored copy. */
const MIRROR = [
  ...[16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0], // jaw
  ...[26, 25, 24, 23, 22, 21, 20, 19, 18, 17], // brows
  ...[27, 28, 29, 30, 35, 34, 33, 32, 31], // nose
  ...[45, 44, 43, 42, 47, 46, 39, 38, 37, 36, 41, 40], // eyes
  ...[54, 53, 52, 51, 50, 49, 48, 59, 58, 57, 56, 55], // outer lips
  ...[64, 63, 62, 61, 60, 67, 66, 65], // inner lips
];

/** The largest face, when the quick way finds it plainly upright; null sends the caller the full way. */
export async function findUprightFaceQuickly(rt: FaceRuntime, rgb: Rgb, scale: number): Promise<RawFace | null> {
  const found = await rt.tiny.locateFaces(rgb, { scoreThreshold: MIN_SCORE });
  const largest = found.sort((a, b) => b.box.area - a.box.area)[0];
  if (!largest) return null;
  const loose = faceCrop(largest.box, rgb.width, rgb.height);
  if (!loose) return null;
  const box = ssdLikeBox(await landmarksIn(rt, rgb, loose));
  const crop = faceCrop(box, rgb.width, rgb.height);
  if (!crop) return null;
  const landmarks = await landmarksIn(rt, rgb, crop);
  if (uprightMargin(landmarks, box) < 0) return null;
  if ((await mirrorDisagreement(rt, rgb, crop, landmarks)) > MAX_MIRROR_DISAGREEMENT) return null;
  return toOriginal(
    { box, score: largest.score, landmarks, rollDegrees: rollDegrees(landmarks) },
    0,
    rgb.width,
    rgb.height,
    scale,
  );
}

/** 68 landmarks of the face in `crop` (whole pixels inside the image), in the image's pixels. */
async function landmarksIn(rt: FaceRuntime, rgb: Rgb, crop: Box): Promise<Point[]> {
  return (await rt.landmarks.detect({ rgb, box: crop })).map((p) => ({ x: p.x + crop.x, y: p.y + crop.y }));
}

/**
 * The SSD's box for a face, from its landmarks: as wide as their extent, 1.35 times as tall, a
 * little above their centre. Medians of the SSD's boxes against its own landmarks on frames of the
 * shared video and the liveness photos (46 faces; not the pair sets).
 */
function ssdLikeBox(landmarks: Point[]): Box {
  const extent = boundsOf(landmarks);
  const side = Math.max(extent.width, extent.height);
  const cx = extent.x + extent.width / 2 + 0.03 * side;
  const cy = extent.y + extent.height / 2 - 0.13 * side;
  return { x: cx - 0.49 * side, y: cy - 0.675 * side, width: 0.98 * side, height: 1.35 * side };
}

/** Step 2: how far the landmarks of the mirrored crop, mirrored back, fall from `landmarks`, in eye distances. */
async function mirrorDisagreement(rt: FaceRuntime, rgb: Rgb, crop: Box, landmarks: Point[]): Promise<number> {
  const seen = await rt.landmarks.detect({ rgb, box: crop, mirrored: true });
  const l = mean(landmarks, LEFT_EYE);
  const r = mean(landmarks, RIGHT_EYE);
  const eyes = Math.hypot(r.x - l.x, r.y - l.y);
  if (eyes < 1) return Number.POSITIVE_INFINITY;
  let sum = 0;
  landmarks.forEach((p, i) => {
    const q = seen[MIRROR[i]!]!;
    sum += Math.hypot(p.x - (crop.x + crop.width - q.x), p.y - (crop.y + q.y));
  });
  return sum / landmarks.length / eyes;
}
