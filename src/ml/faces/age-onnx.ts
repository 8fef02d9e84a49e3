import * as ort from 'onnxruntime-node';
import type { Tensor } from '@tensorflow/tfjs';
import { OnnxGraph } from '../onnx-writer.js';
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

// face-api's age net (AgeGenderNet: a TinyXception with two main blocks and an age regression) on
// onnxruntime-node instead of TF.js WASM: the same weights (read from face-api's loaded net),
// layers and input as face-api's AgeGenderNet.predictAgeAndGender, so the age is the same to float
// rounding. Layers follow face-api's src/xception/TinyXception.ts and src/ageGenderNet/AgeGenderNet.ts;
// the gender head is left out (nothing reads it).

const INPUT_SIZE = 112;

interface ReductionBlock {
  separable_conv0: SeparableParams;
  separable_conv1: SeparableParams;
  expansion_conv: ConvParams;
}
type MainBlock = Record<'separable_conv0' | 'separable_conv1' | 'separable_conv2', SeparableParams>;
interface XceptionParams {
  entry_flow: { conv_in: ConvParams; reduction_block_0: ReductionBlock; reduction_block_1: ReductionBlock };
  middle_flow: Record<string, MainBlock>;
  exit_flow: { reduction_block: ReductionBlock; separable_conv: SeparableParams };
}

function buildGraph(xception: XceptionParams, age: { weights: Tensor; bias: Tensor }): Uint8Array {
  const g = new OnnxGraph();
  const { conv, separable, dense } = faceApiLayers(g);
  const relu = (x: string) => g.node('Relu', [x]);
  /** TinyXception.ts reductionBlock: two separable convs, a 3x3 max pool by 2, plus a strided 1x1 of the input. */
  const reduction = (x: string, p: ReductionBlock, activateInput: boolean) => {
    let out = separable(activateInput ? relu(x) : x, p.separable_conv0);
    out = g.node('MaxPool', [separable(relu(out), p.separable_conv1)], {
      kernel_shape: [3, 3],
      strides: [2, 2],
      auto_pad: 'SAME_UPPER',
    });
    return g.node('Add', [out, conv(x, p.expansion_conv, 2)]);
  };
  /** TinyXception.ts mainBlock: three activated separable convs and the identity. */
  const main = (x: string, p: MainBlock) => {
    const out = separable(
      relu(separable(relu(separable(relu(x), p.separable_conv0)), p.separable_conv1)),
      p.separable_conv2,
    );
    return g.node('Add', [out, x]);
  };
  const { entry_flow: entry, middle_flow: middle, exit_flow: exit } = xception;
  let x = relu(conv(g.node('Transpose', ['input'], { perm: [0, 3, 1, 2] }), entry.conv_in, 2));
  x = reduction(x, entry.reduction_block_0, false);
  x = reduction(x, entry.reduction_block_1, true);
  for (const block of ['main_block_0', 'main_block_1']) x = main(x, middle[block]!);
  x = relu(separable(reduction(x, exit.reduction_block, true), exit.separable_conv));
  dense(g.node('Flatten', [g.node('AveragePool', [x], { kernel_shape: [7, 7], strides: [2, 2] })]), age, 'age');
  return g.toModel({ name: 'input', dims: [1, INPUT_SIZE, INPUT_SIZE, 3] }, ['age']);
}

export interface OnnxAge {
  /** face-api's `ageGenderNet.predictAgeAndGender(face).age` for one face crop, natively. */
  estimate(face: ImageArea): Promise<number>;
}

/** Builds the age net's ONNX graph from face-api's loaded weights and opens a session on it. */
export async function onnxAge(rt: Pick<FaceRuntime, 'faceapi'>, threads: number): Promise<OnnxAge> {
  const { faceapi } = rt;
  const net = faceapi.nets.ageGenderNet as unknown as {
    params: { fc: { age: { weights: Tensor; bias: Tensor } } };
    faceFeatureExtractor: { params: XceptionParams };
  };
  const session = await ort.InferenceSession.create(buildGraph(net.faceFeatureExtractor.params, net.params.fc.age), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  return {
    async estimate(face) {
      // NetInput.toBatchTensor(112, true), minus the mean, / 255
      return (
        (await runOnImage(session, netInput(face, INPUT_SIZE, true, FACE_MEAN_RGB, 255), INPUT_SIZE)).age!
          .data as Float32Array
      )[0]!;
    },
  };
}
