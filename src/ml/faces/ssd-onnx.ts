import * as ort from 'onnxruntime-node';
import type * as FaceApi from '@vladmandic/face-api';
import type { Tensor } from '@tensorflow/tfjs';
import { OnnxGraph, convWeights } from '../onnx-writer.js';
import { netInput, runOnImage } from './onnx-input.js';
import type { Rgb } from './raster.js';
import { nonMaxSuppression } from './suppression.js';
import type { FaceRuntime } from './runtime.js';

// face-api's SSD MobileNet v1 face detector on onnxruntime-node instead of TF.js WASM: the same
// weights (read from face-api's loaded net), the same layers, input and box decoding as
// face-api's SsdMobilenetv1.locateFaces, so the detections are the same to float rounding; the
// convolutions run natively (measured: about 5x faster than WASM on this machine).
// Layers follow face-api's src/ssdMobilenetv1 (mobileNetV1.ts, predictionLayer.ts, outputLayer.ts).

const INPUT_SIZE = 512;
/** face-api's batch-norm epsilon (mobileNetV1.ts). */
const EPSILON = 0.0010000000474974513;
/** face-api's IoU threshold for non-maximum suppression (SsdMobilenetv1.ts). */
const IOU_THRESHOLD = 0.5;

type Params = Record<string, Record<string, Tensor>>;
interface ConvParams {
  filters: Tensor;
  batch_norm_offset?: Tensor;
  bias?: Tensor;
}
interface DepthwiseParams {
  filters: Tensor;
  batch_norm_scale: Tensor;
  batch_norm_offset: Tensor;
  batch_norm_mean: Tensor;
  batch_norm_variance: Tensor;
}

function buildGraph(params: Params): Uint8Array {
  const g = new OnnxGraph();
  const zero = g.weight('zero', [], Float32Array.of(0));
  const six = g.weight('six', [], Float32Array.of(6));
  let n = 0;
  /** conv + bias (+ relu6): face-api's pointwiseConvLayer (with the batch-norm offset) and convLayer. */
  const conv = (
    x: string,
    p: ConvParams,
    stride: number,
    relu6: boolean,
    group = 1,
    weights = convWeights(p.filters),
    bias = (p.batch_norm_offset ?? p.bias)!.dataSync() as Float32Array,
  ): string => {
    const id = n++;
    const w = g.weight(`w${id}`, weights.dims, weights.data);
    const b = g.weight(`b${id}`, [bias.length], Float32Array.from(bias));
    const out = g.node('Conv', [x, w, b], { auto_pad: 'SAME_UPPER', strides: [stride, stride], group });
    return relu6 ? g.node('Clip', [out, zero, six]) : out;
  };
  /** face-api's depthwiseConvLayer: depthwise conv, batch norm folded into its weights, relu6. */
  const depthwise = (x: string, p: DepthwiseParams, stride: number): string => {
    // [kh, kw, c, 1] read as a conv's [1, c, kh, kw] is, in memory, the depthwise [c, 1, kh, kw] (group = c)
    const { data } = convWeights(p.filters);
    const [kh, kw, channels] = p.filters.shape as [number, number, number];
    const dims = [channels, 1, kh, kw];
    const scale = p.batch_norm_scale.dataSync();
    const offset = p.batch_norm_offset.dataSync();
    const mean = p.batch_norm_mean.dataSync();
    const variance = p.batch_norm_variance.dataSync();
    const per = data.length / channels;
    const bias = new Float32Array(channels);
    for (let c = 0; c < channels; c++) {
      const k = scale[c]! / Math.sqrt(variance[c]! + EPSILON);
      for (let j = 0; j < per; j++) data[c * per + j] = data[c * per + j]! * k;
      bias[c] = offset[c]! - mean[c]! * k;
    }
    return conv(x, p as unknown as ConvParams, stride, true, channels, { dims, data }, bias);
  };
  const m = params.mobilenetv1 as unknown as Record<
    string,
    ConvParams & { depthwise_conv: DepthwiseParams; pointwise_conv: ConvParams }
  >;
  let x = g.node('Transpose', ['input'], { perm: [0, 3, 1, 2] }); // NHWC -> NCHW
  x = conv(x, m.conv_0!, 2, true);
  let conv11 = '';
  for (let layer = 1; layer <= 13; layer++) {
    x = depthwise(x, m[`conv_${layer}`]!.depthwise_conv, [2, 4, 6, 12].includes(layer) ? 2 : 1);
    x = conv(x, m[`conv_${layer}`]!.pointwise_conv, 1, true);
    if (layer === 11) conv11 = x;
  }
  const pl = params.prediction_layer as unknown as Record<
    string,
    ConvParams & { box_encoding_predictor: ConvParams; class_predictor: ConvParams }
  >;
  const extra: string[] = [];
  let y = x;
  for (let i = 0; i < 8; i++) {
    y = conv(y, pl[`conv_${i}`]!, i % 2 === 1 ? 2 : 1, true);
    extra.push(y);
  }
  const sources = [conv11, x, extra[1]!, extra[3]!, extra[5]!, extra[7]!];
  const flat = (t: string, width: number) =>
    g.node('Reshape', [g.node('Transpose', [t], { perm: [0, 2, 3, 1] }), g.int64s([1, -1, width])]);
  const boxes = sources.map((s, i) => flat(conv(s, pl[`box_predictor_${i}`]!.box_encoding_predictor, 1, false), 4));
  const classes = sources.map((s, i) => flat(conv(s, pl[`box_predictor_${i}`]!.class_predictor, 1, false), 3));
  g.node('Concat', boxes, { axis: 1 }, 'boxes');
  g.node('Concat', classes, { axis: 1 }, 'classes');
  return g.toModel({ name: 'input', dims: [1, INPUT_SIZE, INPUT_SIZE, 3] }, ['boxes', 'classes']);
}

export interface OnnxSsd {
  /** face-api's `ssdMobilenetv1.locateFaces(input, { minConfidence, maxResults })`, natively. */
  locateFaces(input: Rgb, options: { minConfidence: number; maxResults: number }): Promise<FaceApi.FaceDetection[]>;
}

/** Builds the detector's ONNX graph from face-api's loaded weights and opens a session on it. */
export async function onnxSsd(rt: Pick<FaceRuntime, 'faceapi'>, threads: number): Promise<OnnxSsd> {
  const { faceapi } = rt;
  const params = (faceapi.nets.ssdMobilenetv1 as unknown as { params: Params }).params;
  const session = await ort.InferenceSession.create(buildGraph(params), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  const priors = params.output_layer!.extra_dim!.dataSync() as Float32Array; // [count, 4]: ymin, xmin, ymax, xmax
  return {
    async locateFaces(input, { minConfidence, maxResults }) {
      const { width, height } = input;
      // face-api's NetInput.toBatchTensor(512, false), then x / 127.5 - 1
      const out = await runOnImage(
        session,
        netInput({ rgb: input }, INPUT_SIZE, false, [127.5, 127.5, 127.5], 127.5),
        INPUT_SIZE,
      );
      const encodings = out.boxes!.data as Float32Array;
      const logits = out.classes!.data as Float32Array;
      const count = priors.length / 4;
      const boxes = new Float32Array(count * 4);
      const scores = new Array<number>(count);
      for (let i = 0; i < count; i++) {
        // outputLayer.ts: decode against the prior box, score = sigmoid of class 1
        const [p0, p1, p2, p3] = [priors[4 * i]!, priors[4 * i + 1]!, priors[4 * i + 2]!, priors[4 * i + 3]!];
        const [v0, v1, v2, v3] = [
          encodings[4 * i]!,
          encodings[4 * i + 1]!,
          encodings[4 * i + 2]!,
          encodings[4 * i + 3]!,
        ];
        const h = p2 - p0;
        const w = p3 - p1;
        const cy = (v0 / 10) * h + (p0 + h / 2);
        const cx = (v1 / 10) * w + (p1 + w / 2);
        const hh = (Math.exp(v2 / 5) * h) / 2;
        const hw = (Math.exp(v3 / 5) * w) / 2;
        boxes.set([cy - hh, cx - hw, cy + hh, cx + hw], 4 * i);
        scores[i] = 1 / (1 + Math.exp(-logits[3 * i + 1]!));
      }
      const kept = nonMaxSuppression(boxes, scores, maxResults, IOU_THRESHOLD, minConfidence);
      // SsdMobilenetv1.locateFaces: undo the square padding, relative to the input's size
      const scale = INPUT_SIZE / Math.max(width, height);
      const padX = INPUT_SIZE / Math.round(width * scale);
      const padY = INPUT_SIZE / Math.round(height * scale);
      return kept.map((i) => {
        const top = Math.max(0, boxes[4 * i]!) * padY;
        const bottom = Math.min(1, boxes[4 * i + 2]!) * padY;
        const left = Math.max(0, boxes[4 * i + 1]!) * padX;
        const right = Math.min(1, boxes[4 * i + 3]!) * padX;
        return new faceapi.FaceDetection(scores[i]!, new faceapi.Rect(left, top, right - left, bottom - top), {
          height,
          width,
        });
      });
    },
  };
}
