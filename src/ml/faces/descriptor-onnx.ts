import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { modelFolder } from '../model-files.js';
import { DESCRIPTOR_DIMENSIONS, normalised } from './match.js';
import { mirrored, type Rgb } from './raster.js';

// The face descriptor: faceplugin's `fr_feature.onnx`, an ArcFace-style MobileFaceNet-like net
// (1.19M parameters) taken from the npm package faceplugin-face-recognition-js 0.0.1
// (models/fr-feature/README.md: licence, provenance, what is and is not known of its training).
// It reads a 112 x 112 RGB chip aligned on ArcFace's five-point template (align.ts faceChip, mode
// 'similarity', zoom 1) as (v - 127) / 128, NCHW, as the package's own fr_feature.js does, and
// gives 512 values. The service's descriptor is the mean of the net's output on the chip and on
// its mirror image, L2-normalised: two photos of one person have a high cosine. Averaging with
// the mirror kept the one impostor pair above the left-out operating point out (Damon and
// DiCaprio, deepface img33 ~ img35) and lifted same-person pairs of generated variants
// (docs/face-engine.md, "Face match: the descriptor"), for a second 6 ms inference.

/** The chip side the net reads. */
export const DESCRIPTOR_SIDE = 112;

export interface OnnxDescriptor {
  /**
   * The service's descriptor of one aligned 112 x 112 chip: the net on the chip and its mirror, averaged,
   * L2-normalised.
   */
  describe(chip: Rgb): Promise<Float32Array>;
  /** The net's output on the chip alone, L2-normalised (for the evaluation). */
  embed(chip: Rgb): Promise<Float32Array>;
}

export async function onnxDescriptor(threads: number): Promise<OnnxDescriptor> {
  const session = await ort.InferenceSession.create(join(modelFolder('fr-feature'), 'fr_feature.onnx'), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    // Not 'all': its layout pass (NCHWc) made this net's convolutions 3 times slower on an
    // AVX-512 Xeon of this project's machines (one description, chip and mirror, 1 thread: 122 ms
    // against 41 ms with 'extended'). The face-api nets and the OCR keep 'all', which is faster
    // for them there (the tiny detector 10 against 17 ms, a document's OCR 15% less CPU).
    graphOptimizationLevel: 'extended',
  });
  const run = async (chip: Rgb): Promise<Float32Array> => {
    if (chip.width !== DESCRIPTOR_SIDE || chip.height !== DESCRIPTOR_SIDE)
      throw new RangeError(`the descriptor reads ${DESCRIPTOR_SIDE} px chips, not ${chip.width} x ${chip.height}`);
    const out = await session.run({
      input: new ort.Tensor('float32', planarInput(chip), [1, 3, DESCRIPTOR_SIDE, DESCRIPTOR_SIDE]),
    });
    const values = out.output!.data as Float32Array;
    if (values.length !== DESCRIPTOR_DIMENSIONS)
      throw new Error(`the descriptor net gave ${values.length} values, not ${DESCRIPTOR_DIMENSIONS}`);
    return normalised(values);
  };
  return {
    async describe(chip) {
      const direct = await run(chip);
      const mirror = await run(mirrored(chip));
      return normalised(direct.map((v, i) => v + mirror[i]!));
    },
    embed: run,
  };
}

/** Interleaved RGB bytes as three planes of (v - 127) / 128. */
function planarInput(chip: Rgb): Float32Array {
  const plane = chip.width * chip.height;
  const out = new Float32Array(3 * plane);
  for (let i = 0; i < plane; i++) {
    out[i] = (chip.data[i * 3]! - 127) / 128;
    out[plane + i] = (chip.data[i * 3 + 1]! - 127) / 128;
    out[2 * plane + i] = (chip.data[i * 3 + 2]! - 127) / 128;
  }
  return out;
}
