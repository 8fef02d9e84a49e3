import * as ort from 'onnxruntime-node';
import type { Tensor } from '@tensorflow/tfjs';
import { OnnxGraph } from '../onnx-writer.js';
import type { Point } from './geometry.js';
import {
  type ConvParams,
  faceApiLayers,
  type ImageArea,
  netInput,
  runOnImage,
  type SeparableParams,
  FACE_MEAN_RGB,
} from './onnx-input.js';
import type { FaceRuntime } from './runtime.js';

// face-api's 68-point landmark net on onnxruntime-node instead of TF.js WASM: the same weights
// (read from face-api's loaded net), layers, input and output mapping as face-api's
// FaceLandmark68Net.detectLandmarks, so the points are the same to float rounding. Layers follow
// face-api's src/faceFeatureExtractor (FaceFeatureExtractor.ts, denseBlock.ts),
// src/common/depthwiseSeparableConv.ts and src/faceLandmarkNet/FaceLandmark68NetBase.ts.

const INPUT_SIZE = 112;

type DenseBlock = { conv0: ConvParams | SeparableParams } & Record<'conv1' | 'conv2' | 'conv3', SeparableParams>;

function buildGraph(extractor: Record<string, DenseBlock>, fc: { weights: Tensor; bias: Tensor }): Uint8Array {
  const g = new OnnxGraph();
  const { conv, separable, dense } = faceApiLayers(g);
  const relu = (x: string) => g.node('Relu', [x]);
  const add = (...xs: string[]) => xs.reduce((sum, x) => g.node('Add', [sum, x]));
  /** denseBlock.ts denseBlock4 (scaling down): each conv sees the sum of the ones before it. */
  const denseBlock = (x: string, p: DenseBlock, first: boolean) => {
    const out1 = relu(first ? conv(x, p.conv0 as ConvParams, 2) : separable(x, p.conv0 as SeparableParams, 2));
    const out2 = separable(out1, p.conv1, 1);
    const out3 = separable(relu(add(out1, out2)), p.conv2, 1);
    const out4 = separable(relu(add(out1, out2, out3)), p.conv3, 1);
    return relu(add(out1, out2, out3, out4));
  };
  let x = g.node('Transpose', ['input'], { perm: [0, 3, 1, 2] });
  for (const [i, block] of ['dense0', 'dense1', 'dense2', 'dense3'].entries())
    x = denseBlock(x, extractor[block]!, i === 0);
  dense(g.node('Flatten', [g.node('AveragePool', [x], { kernel_shape: [7, 7], strides: [2, 2] })]), fc, 'landmarks');
  return g.toModel({ name: 'input', dims: [1, INPUT_SIZE, INPUT_SIZE, 3] }, ['landmarks']);
}

export interface OnnxLandmarks {
  /**
   * face-api's `faceLandmark68Net.detectLandmarks(face).positions` for one face crop, natively: 68 points in the area's
   * pixels (of the mirrored area when it is).
   */
  detect(face: ImageArea): Promise<Point[]>;
}

/** Builds the landmark net's ONNX graph from face-api's loaded weights and opens a session on it. */
export async function onnxLandmarks(rt: Pick<FaceRuntime, 'faceapi'>, threads: number): Promise<OnnxLandmarks> {
  const { faceapi } = rt;
  const net = faceapi.nets.faceLandmark68Net as unknown as {
    params: { fc: { weights: Tensor; bias: Tensor } };
    faceFeatureExtractor: { params: Record<string, DenseBlock> };
  };
  const session = await ort.InferenceSession.create(buildGraph(net.faceFeatureExtractor.params, net.params.fc), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  return {
    async detect(face) {
      const { width, height } = face.box ?? face.rgb;
      // NetInput.toBatchTensor(112, true), minus the mean, / 255
      const out = (await runOnImage(session, netInput(face, INPUT_SIZE, true, FACE_MEAN_RGB, 255), INPUT_SIZE))
        .landmarks!.data as Float32Array;
      // FaceLandmark68NetBase.postProcess, then FaceLandmarks68's relative -> crop pixels
      const scale = INPUT_SIZE / Math.max(width, height);
      const [w, h] = [width * scale, height * scale];
      const padX = w < h ? Math.abs(w - h) / 2 : 0;
      const padY = h < w ? Math.abs(w - h) / 2 : 0;
      return Array.from({ length: 68 }, (_, i) => ({
        x: ((out[2 * i]! * INPUT_SIZE - padX) / w) * width,
        y: ((out[2 * i + 1]! * INPUT_SIZE - padY) / h) * height,
      }));
    },
  };
}
