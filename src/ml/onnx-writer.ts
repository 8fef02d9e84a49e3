// A minimal ONNX model writer: enough of the protobuf wire format (ModelProto, GraphProto,
// NodeProto, TensorProto, ValueInfoProto) to hand onnxruntime a graph built in memory from weights
// already on disk, so no converted model file has to be shipped or fetched.
// Field numbers are those of onnx/onnx.proto (IR version 8).

/** Node attributes used here: integers, integer lists and strings (no float attributes are needed). */
type Attribute = number | number[] | string;

/** Protobuf wire format: varints, 32-bit floats and length-delimited fields. */
class Wire {
  private chunks: Uint8Array[] = [];

  varint(field: number, value: number | bigint): this {
    return this.key(field, 0).raw(varint(BigInt(value)));
  }

  bytes(field: number, value: Uint8Array): this {
    return this.key(field, 2)
      .raw(varint(BigInt(value.length)))
      .raw(value);
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  message(field: number, build: (w: Wire) => void): this {
    const inner = new Wire();
    build(inner);
    return this.bytes(field, inner.finish());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }

  private key(field: number, type: number): this {
    return this.raw(varint(BigInt((field << 3) | type)));
  }

  private raw(bytes: Uint8Array): this {
    this.chunks.push(bytes);
    return this;
  }
}

function varint(value: bigint): Uint8Array {
  let v = BigInt.asUintN(64, value); // negative int64s as two's complement, as protobuf does
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Uint8Array.from(out);
}

const FLOAT = 1;
const INT64 = 7;

/** A graph of float tensors: initializers, nodes, one input and named outputs, in order. */
export class OnnxGraph {
  private nodes: { op: string; inputs: string[]; outputs: string[]; attributes: Record<string, Attribute> }[] = [];
  private initializers: { name: string; dims: number[]; type: number; data: Uint8Array }[] = [];
  private count = 0;

  /** A constant float tensor (weights), by name. */
  weight(name: string, dims: number[], data: Float32Array): string {
    this.initializers.push({
      name,
      dims,
      type: FLOAT,
      data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    });
    return name;
  }

  /** A constant int64 tensor (shapes). */
  int64s(values: number[]): string {
    const name = `const_${this.count++}`;
    const data = BigInt64Array.from(values.map(BigInt));
    this.initializers.push({ name, dims: [values.length], type: INT64, data: new Uint8Array(data.buffer) });
    return name;
  }

  /** Adds a node and returns the name of its (single) output. */
  node(
    op: string,
    inputs: string[],
    attributes: Record<string, Attribute> = {},
    output = `${op.toLowerCase()}_${this.count++}`,
  ): string {
    this.nodes.push({ op, inputs, outputs: [output], attributes });
    return output;
  }

  /** The serialised ModelProto (opset 13) with `input` of the given shape and the named outputs. */
  toModel(input: { name: string; dims: number[] }, outputs: string[]): Uint8Array {
    const valueInfo = (w: Wire, name: string, dims?: number[]) =>
      w.string(1, name).message(2, (type) =>
        type.message(1, (tensor) => {
          tensor.varint(1, FLOAT);
          if (!dims) return;
          tensor.message(2, (shape) => {
            for (const d of dims) shape.message(1, (dim) => dim.varint(1, d));
          });
        }),
      );
    return new Wire()
      .varint(1, 8) // ir_version
      .string(2, 'verity')
      .message(7, (graph) => {
        for (const n of this.nodes) {
          graph.message(1, (node) => {
            for (const i of n.inputs) node.string(1, i);
            for (const o of n.outputs) node.string(2, o);
            node.string(4, n.op);
            for (const [name, value] of Object.entries(n.attributes)) node.message(5, (a) => attribute(a, name, value));
          });
        }
        graph.string(2, 'graph');
        for (const t of this.initializers) {
          graph.message(5, (tensor) => {
            for (const d of t.dims) tensor.varint(1, d);
            tensor.varint(2, t.type).string(8, t.name).bytes(9, t.data);
          });
        }
        graph.message(11, (w) => valueInfo(w, input.name, input.dims));
        for (const o of outputs) graph.message(12, (w) => valueInfo(w, o));
      })
      .message(8, (opset) => opset.string(1, '').varint(2, 13))
      .finish();
  }
}

function attribute(a: Wire, name: string, value: Attribute): void {
  a.string(1, name);
  if (typeof value === 'string') a.bytes(4, new TextEncoder().encode(value)).varint(20, 3);
  else if (Array.isArray(value)) {
    for (const v of value) a.varint(8, v);
    a.varint(20, 7);
  } else {
    if (!Number.isInteger(value)) throw new RangeError(`attribute ${name}: only integer attributes are written`);
    a.varint(3, value).varint(20, 2);
  }
}

/** TF.js conv filters [kh, kw, in, out] (as data and shape) in ONNX Conv's layout [out, in, kh, kw]. */
export function convWeights(filters: { shape: number[]; dataSync(): ArrayLike<number> }): {
  dims: number[];
  data: Float32Array;
} {
  const [kh, kw, cin, cout] = filters.shape as [number, number, number, number];
  const src = filters.dataSync();
  const data = new Float32Array(src.length);
  for (let y = 0; y < kh; y++)
    for (let x = 0; x < kw; x++)
      for (let i = 0; i < cin; i++)
        for (let o = 0; o < cout; o++)
          data[((o * cin + i) * kh + y) * kw + x] = src[((y * kw + x) * cin + i) * cout + o]!;
  return { dims: [cout, cin, kh, kw], data };
}
