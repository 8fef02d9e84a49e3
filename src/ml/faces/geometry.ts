// Plain 2-D helpers shared by detection, alignment and cropping (no pixels, no tensors).

export interface Point {
  x: number;
  y: number;
}
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Landmark indices of the 68-point (iBUG/dlib) layout. */
export const LEFT_EYE = [36, 37, 38, 39, 40, 41] as const; // image-left eye (the subject's right)
export const RIGHT_EYE = [42, 43, 44, 45, 46, 47] as const;
export const MOUTH = [48, 51, 54, 57] as const; // corners, top and bottom of the outer lip

export function mean(points: readonly Point[], indices: readonly number[]): Point {
  let x = 0;
  let y = 0;
  for (const i of indices) {
    x += points[i]!.x;
    y += points[i]!.y;
  }
  return { x: x / indices.length, y: y / indices.length };
}

/** In-plane rotation of the eye line, degrees, clockwise positive (image y points down). */
export function rollDegrees(landmarks: readonly Point[]): number {
  const l = mean(landmarks, LEFT_EYE);
  const r = mean(landmarks, RIGHT_EYE);
  return (Math.atan2(r.y - l.y, r.x - l.x) * 180) / Math.PI;
}

export function boundsOf(points: readonly Point[]): Box {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const p of points) {
    minX = Math.min(minX, p.x);
    minY = Math.min(minY, p.y);
    maxX = Math.max(maxX, p.x);
    maxY = Math.max(maxY, p.y);
  }
  return { x: minX, y: minY, width: maxX - minX, height: maxY - minY };
}

/** Grows a box by `fraction` of its size on every side. */
export function padBox(box: Box, fraction: number): Box {
  const dx = box.width * fraction;
  const dy = box.height * fraction;
  return { x: box.x - dx, y: box.y - dy, width: box.width + 2 * dx, height: box.height + 2 * dy };
}

export function clipBox(box: Box, width: number, height: number): Box {
  const x = Math.max(0, box.x);
  const y = Math.max(0, box.y);
  return {
    x,
    y,
    width: Math.max(0, Math.min(width, box.x + box.width) - x),
    height: Math.max(0, Math.min(height, box.y + box.height) - y),
  };
}
