import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadMiniFasNet, miniFasNetCrop, miniFasNetLogits } from '../../src/ml/liveness/minifasnet.js';
import { loadTf } from '../../src/ml/tf.js';

// The TF.js port of MiniFASNet against the original network: scripts/convert-minifasnet.py ran
// the unconverted PyTorch weights on a fixed input and wrote the logits; ours must match them.

const parity = JSON.parse(readFileSync(new URL('../fixtures/minifasnet-parity.json', import.meta.url), 'utf8')) as {
  logits: Record<string, number[]>;
};

describe('MiniFASNet in TF.js', () => {
  it.each(['MiniFASNetV2', 'MiniFASNetV1SE'] as const)(
    '%s reproduces the PyTorch logits on a fixed input',
    async (name) => {
      const tf = await loadTf();
      const net = loadMiniFasNet(tf, name);
      const values = new Float32Array(80 * 80 * 3);
      for (let y = 0; y < 80; y++)
        for (let x = 0; x < 80; x++)
          for (let c = 0; c < 3; c++) values[(y * 80 + x) * 3 + c] = (y * 7 + x * 13 + c * 29 + y * x) % 256;
      const before = tf.memory().numTensors;
      const logits = tf.tidy(() =>
        Array.from(miniFasNetLogits(tf, net, tf.tensor4d(values, [1, 80, 80, 3])).dataSync()),
      );
      expect(tf.memory().numTensors).toBe(before);
      const expected = parity.logits[name]!;
      for (const [i, value] of logits.entries()) expect(value).toBeCloseTo(expected[i]!, 3);
    },
  );

  it('crops as the original: scaled about the face, shrunk to fit, shifted inside the image', () => {
    expect(miniFasNetCrop({ width: 640, height: 480 }, { x: 300, y: 200, width: 50, height: 60 }, 2.7)).toEqual({
      x: 257,
      y: 149,
      width: 136,
      height: 163,
    });
    // A face near the left edge: the crop is shifted right, not cut.
    expect(miniFasNetCrop({ width: 640, height: 480 }, { x: 5, y: 200, width: 50, height: 60 }, 4.0)).toMatchObject({
      x: 0,
      width: 201,
    });
    // A face too large for the scale: the scale shrinks to what fits.
    expect(
      miniFasNetCrop({ width: 640, height: 480 }, { x: 200, y: 100, width: 200, height: 240 }, 4.0).height,
    ).toBeLessThanOrEqual(480);
  });
});
