import * as ort from 'onnxruntime-node';
import type * as FaceApi from '@vladmandic/face-api';
import { OnnxGraph } from '../onnx-writer.js';
import { type ConvParams, faceApiLayers, netInput, runOnImage, type SeparableParams } from './onnx-input.js';
import type { Rgb } from './raster.js';
import { nonMaxSuppression } from './suppression.js';
import type { FaceRuntime } from './runtime.js';

// face-api's Tiny Face Detector (a Tiny YOLO v2 with depthwise-separable convolutions) on
// onnxruntime-node: the same weights (read from face-api's loaded net), layers, input and box
// decoding as face-api's TinyFaceDetector.locateFaces, so the detections are the same to float
// rounding. Layers follow face-api's src/tinyYolov2 (TinyYolov2Base.runMobilenet,
// depthwiseSeparableConv.ts, leaky.ts, extractBoxes) and src/tinyFaceDetector/const.ts.

/** face-api's anchors for faces, in cells (tinyFaceDetector/const.ts). */
const ANCHORS = [
  [1.603231, 2.094468],
  [6.041143, 7.080126],
  [2.882459, 3.518061],
  [4.266906, 5.178857],
  [9.041765, 10.66308],
] as const;
const MEAN_RGB = [117.001, 114.697, 97.404];
const IOU_THRESHOLD = 0.4;
/** Box encoding per anchor: x, y, w, h, objectness (one class, no class scores). */
const ENCODING = 5;

function buildGraph(params: Record<string, unknown>, side: number): Uint8Array {
  const g = new OnnxGraph();
  const slope = g.weight('slope', [], Float32Array.of(0.10000000149011612));
  const layers = faceApiLayers(g);
  /** leaky.ts: max(x, 0.1 x). */
  const leaky = (x: string) => g.node('Max', [x, g.node('Mul', [x, slope])]);
  const conv = (x: string, p: ConvParams) => layers.conv(x, p, 1, 'VALID');
  /** depthwiseSeparableConv.ts: pad 1 and a 'valid' depthwise 3x3 (that is 'same'), pointwise 1x1 + bias, leaky. */
  const separable = (x: string, p: SeparableParams) => leaky(layers.separable(x, p));
  const pool = (x: string, stride: number) =>
    g.node('MaxPool', [x], { kernel_shape: [2, 2], strides: [stride, stride], auto_pad: 'SAME_UPPER' });
  const p = params as { conv0: ConvParams; conv8: ConvParams } & Record<string, SeparableParams>;
  let x = leaky(conv(g.node('Transpose', ['input'], { perm: [0, 3, 1, 2] }), p.conv0));
  for (let layer = 1; layer <= 5; layer++) x = separable(pool(x, 2), p[`conv${layer}`]!);
  x = pool(x, 1);
  // face-api's face model has no conv6/conv7 (seven filter sizes); runMobilenet skips them then
  for (const layer of ['conv6', 'conv7']) if (p[layer]) x = separable(x, p[layer]);
  g.node('Transpose', [conv(x, p.conv8)], { perm: [0, 2, 3, 1] }, 'cells');
  return g.toModel({ name: 'input', dims: [1, side, side, 3] }, ['cells']);
}

export interface OnnxTinyDetector {
  /** face-api's `tinyFaceDetector.locateFaces(input, { inputSize, scoreThreshold })`, natively. */
  locateFaces(input: Rgb, options: { scoreThreshold: number }): Promise<FaceApi.FaceDetection[]>;
}

/** Builds the detector's ONNX graph for `side` (a multiple of 32) from face-api's loaded weights. */
export async function onnxTinyDetector(
  rt: Pick<FaceRuntime, 'faceapi'>,
  threads: number,
  side: number,
): Promise<OnnxTinyDetector> {
  const { faceapi } = rt;
  const params = (faceapi.nets.tinyFaceDetector as unknown as { params: Record<string, unknown> }).params;
  const session = await ort.InferenceSession.create(buildGraph(params, side), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  return {
    async locateFaces(input, { scoreThreshold }) {
      const { width, height } = input;
      // NetInput.toBatchTensor(side, false), minus the mean, / 255
      const cells = (await runOnImage(session, netInput({ rgb: input }, side, false, MEAN_RGB, 255), side)).cells!;
      const data = cells.data as Float32Array;
      const count = cells.dims[1]!;
      // extractBoxes: the square's share of the image on each axis
      const scale = side / Math.max(width, height);
      const fx = side / Math.round(width * scale);
      const fy = side / Math.round(height * scale);
      const boxes: number[] = [];
      const scores: number[] = [];
      for (let row = 0; row < count; row++) {
        for (let col = 0; col < count; col++) {
          for (let a = 0; a < ANCHORS.length; a++) {
            const at = ((row * count + col) * ANCHORS.length + a) * ENCODING;
            const score = sigmoid(data[at + 4]!);
            if (score <= scoreThreshold) continue;
            const cx = ((col + sigmoid(data[at]!)) / count) * fx;
            const cy = ((row + sigmoid(data[at + 1]!)) / count) * fy;
            const w = ((Math.exp(data[at + 2]!) * ANCHORS[a]![0]) / count) * fx;
            const h = ((Math.exp(data[at + 3]!) * ANCHORS[a]![1]) / count) * fy;
            boxes.push(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2);
            scores.push(score);
          }
        }
      }
      return nonMaxSuppression(Float32Array.from(boxes), scores, scores.length, IOU_THRESHOLD, scoreThreshold).map(
        (i) => {
          const [left, top, right, bottom] = boxes.slice(4 * i, 4 * i + 4) as [number, number, number, number];
          return new faceapi.FaceDetection(scores[i]!, new faceapi.Rect(left, top, right - left, bottom - top), {
            height,
            width,
          });
        },
      );
    },
  };
}

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
