// Non-maximum suppression for both native detectors (ssd-onnx.ts, tiny-onnx.ts), as face-api does it.

/**
 * face-api's nonMaxSuppression.ts on plain arrays: greedy by score, IoU above the threshold
 * suppresses. `boxes` holds four numbers per box, the two corners (either axis order, the same for every box).
 */
export function nonMaxSuppression(
  boxes: Float32Array,
  scores: number[],
  maxOutputSize: number,
  iouThreshold: number,
  scoreThreshold: number,
): number[] {
  const outputSize = Math.min(maxOutputSize, scores.length);
  const candidates = scores
    .map((score, index) => ({ score, index }))
    .filter((c) => c.score > scoreThreshold)
    .sort((a, b) => b.score - a.score);
  const selected: number[] = [];
  for (const c of candidates) {
    if (selected.length >= outputSize) break;
    let suppressed = false;
    for (let j = selected.length - 1; j >= 0; j--) {
      const iou = intersectionOverUnion(boxes, c.index, selected[j]!);
      if (iou === 0) continue;
      if (iou > iouThreshold) {
        suppressed = true;
        break;
      }
    }
    if (!suppressed) selected.push(c.index);
  }
  return selected;
}

function intersectionOverUnion(boxes: Float32Array, i: number, j: number): number {
  const a = [
    Math.min(boxes[4 * i]!, boxes[4 * i + 2]!),
    Math.min(boxes[4 * i + 1]!, boxes[4 * i + 3]!),
    Math.max(boxes[4 * i]!, boxes[4 * i + 2]!),
    Math.max(boxes[4 * i + 1]!, boxes[4 * i + 3]!),
  ] as const;
  const b = [
    Math.min(boxes[4 * j]!, boxes[4 * j + 2]!),
    Math.min(boxes[4 * j + 1]!, boxes[4 * j + 3]!),
    Math.max(boxes[4 * j]!, boxes[4 * j + 2]!),
    Math.max(boxes[4 * j + 1]!, boxes[4 * j + 3]!),
  ] as const;
  const areaA = (a[2] - a[0]) * (a[3] - a[1]);
  const areaB = (b[2] - b[0]) * (b[3] - b[1]);
  if (areaA <= 0 || areaB <= 0) return 0;
  const inter =
    Math.max(Math.min(a[2], b[2]) - Math.max(a[0], b[0]), 0) * Math.max(Math.min(a[3], b[3]) - Math.max(a[1], b[1]), 0);
  return inter / (areaA + areaB - inter);
}
