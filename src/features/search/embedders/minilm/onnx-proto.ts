import protobuf from 'protobufjs';

/**
 * The part of ONNX's `onnx.proto` (IR version 8) that our graphs need (operators of the default domain and of
 * onnxruntime's `com.microsoft`), declared here with protobufjs reflection: field numbers and types as in the
 * ONNX specification. Nothing is downloaded or generated; the messages are only encoded (onnxruntime reads the
 * file).
 */
const root = protobuf.Root.fromJSON({
  nested: {
    onnx: {
      nested: {
        ModelProto: {
          fields: {
            ir_version: { id: 1, type: 'int64' },
            producer_name: { id: 2, type: 'string' },
            producer_version: { id: 3, type: 'string' },
            graph: { id: 7, type: 'GraphProto' },
            opset_import: { id: 8, rule: 'repeated', type: 'OperatorSetIdProto' },
          },
        },
        OperatorSetIdProto: {
          fields: { domain: { id: 1, type: 'string' }, version: { id: 2, type: 'int64' } },
        },
        GraphProto: {
          fields: {
            node: { id: 1, rule: 'repeated', type: 'NodeProto' },
            name: { id: 2, type: 'string' },
            initializer: { id: 5, rule: 'repeated', type: 'TensorProto' },
            input: { id: 11, rule: 'repeated', type: 'ValueInfoProto' },
            output: { id: 12, rule: 'repeated', type: 'ValueInfoProto' },
          },
        },
        NodeProto: {
          fields: {
            input: { id: 1, rule: 'repeated', type: 'string' },
            output: { id: 2, rule: 'repeated', type: 'string' },
            name: { id: 3, type: 'string' },
            op_type: { id: 4, type: 'string' },
            attribute: { id: 5, rule: 'repeated', type: 'AttributeProto' },
            domain: { id: 7, type: 'string' },
          },
        },
        AttributeProto: {
          fields: {
            name: { id: 1, type: 'string' },
            f: { id: 2, type: 'float' },
            i: { id: 3, type: 'int64' },
            ints: { id: 8, rule: 'repeated', type: 'int64' },
            type: { id: 20, type: 'int32' },
          },
        },
        TensorProto: {
          fields: {
            dims: { id: 1, rule: 'repeated', type: 'int64' },
            data_type: { id: 2, type: 'int32' },
            name: { id: 8, type: 'string' },
            raw_data: { id: 9, type: 'bytes' },
          },
        },
        ValueInfoProto: {
          fields: { name: { id: 1, type: 'string' }, type: { id: 2, type: 'TypeProto' } },
        },
        TypeProto: {
          fields: { tensor_type: { id: 1, type: 'TensorTypeProto' } },
        },
        TensorTypeProto: {
          fields: { elem_type: { id: 1, type: 'int32' }, shape: { id: 2, type: 'TensorShapeProto' } },
        },
        TensorShapeProto: {
          fields: { dim: { id: 1, rule: 'repeated', type: 'Dimension' } },
        },
        Dimension: {
          oneofs: { value: { oneof: ['dim_value', 'dim_param'] } },
          fields: { dim_value: { id: 1, type: 'int64' }, dim_param: { id: 2, type: 'string' } },
        },
      },
    },
  },
});

const ModelProto = root.lookupType('onnx.ModelProto');

/** TensorProto.DataType values used here. */
export const DataType = { FLOAT: 1, UINT8: 2, INT8: 3, INT32: 6, INT64: 7, FLOAT16: 10 } as const;
/** AttributeProto.AttributeType values used here. */
export const AttributeType = { FLOAT: 1, INT: 2, INTS: 7 } as const;

export interface Tensor {
  name: string;
  dims: number[];
  data_type: number;
  raw_data: Uint8Array;
}

export interface Attribute {
  name: string;
  type: number;
  f?: number;
  i?: number;
  ints?: number[];
}

export interface Node {
  op_type: string;
  input: string[];
  output: string[];
  name?: string;
  domain?: string;
  attribute?: Attribute[];
}

export interface ValueInfo {
  name: string;
  elemType: number;
  /** A number is a fixed size, a string a symbolic one (batch, sequence). */
  shape: (number | string)[];
}

export interface Graph {
  name: string;
  nodes: Node[];
  initializers: Tensor[];
  inputs: ValueInfo[];
  outputs: ValueInfo[];
}

const valueInfo = (v: ValueInfo) => ({
  name: v.name,
  type: {
    tensor_type: {
      elem_type: v.elemType,
      shape: { dim: v.shape.map((d) => (typeof d === 'number' ? { dim_value: d } : { dim_param: d })) },
    },
  },
});

const TensorProto = root.lookupType('onnx.TensorProto');
const GraphProto = root.lookupType('onnx.GraphProto');

/** A protobuf varint. */
function varint(value: number): Uint8Array {
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Uint8Array.from(out);
}

/** A length-delimited field's key and length (wire type 2). */
const lengthDelimited = (field: number, length: number) =>
  Buffer.concat([varint((field << 3) | 2), varint(length)]);

/**
 * Serialises a graph as an ONNX model file (IR 8, default-domain opset `opset`, com.microsoft opset 1), piece by
 * piece: protobuf lets a message's fields come in any order, so the graph is its nodes and inputs encoded at once,
 * then each initializer encoded on its own (field 5), and the model's `graph` field (7) wraps their total length.
 * `write` gets the pieces in order; between initializers the event loop gets a turn, so encoding 60 MB of weights
 * never holds it.
 */
export async function writeModel(
  graph: Graph,
  opset: number,
  producerVersion: string,
  write: (bytes: Uint8Array) => Promise<void>,
  pause: () => Promise<void>,
): Promise<void> {
  const head = ModelProto.encode(
    ModelProto.fromObject({
      ir_version: 8,
      producer_name: 'minutes',
      producer_version: producerVersion,
      opset_import: [
        { domain: '', version: opset },
        { domain: 'com.microsoft', version: 1 },
      ],
    }),
  ).finish();
  const body = GraphProto.encode(
    GraphProto.fromObject({
      name: graph.name,
      node: graph.nodes,
      input: graph.inputs.map(valueInfo),
      output: graph.outputs.map(valueInfo),
    }),
  ).finish();
  // A tensor is its small fields encoded, then raw_data (field 9) appended as it is: no copy of the weights.
  const tensors: Uint8Array[][] = [];
  let graphLength = body.length;
  for (const tensor of graph.initializers) {
    const fields = TensorProto.encode(
      TensorProto.fromObject({ dims: tensor.dims, data_type: tensor.data_type, name: tensor.name }),
    ).finish();
    const data = lengthDelimited(9, tensor.raw_data.length);
    const length = fields.length + data.length + tensor.raw_data.length;
    const piece = [lengthDelimited(5, length), fields, data, tensor.raw_data];
    tensors.push(piece);
    graphLength += piece[0]!.length + length;
  }
  await write(head);
  await write(lengthDelimited(7, graphLength));
  await write(body);
  for (const piece of tensors) {
    for (const bytes of piece) await write(bytes);
    await pause();
  }
}

/** Serialises a graph as an ONNX model in one buffer (small graphs: tests). */
export async function encodeModel(graph: Graph, opset: number, producerVersion: string): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  await writeModel(
    graph,
    opset,
    producerVersion,
    async (b) => void pieces.push(b),
    async () => {},
  );
  return Buffer.concat(pieces);
}
