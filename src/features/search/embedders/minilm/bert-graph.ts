import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { AttributeType, DataType, type Graph, type Node, type Tensor } from './onnx-proto.ts';
import type { FloatTensor, SafeTensors } from './safetensors.ts';

/** The BERT configuration the graph is built for (config.json of the model). */
export interface BertConfig {
  hidden_size: number;
  num_attention_heads: number;
  num_hidden_layers: number;
  intermediate_size: number;
  layer_norm_eps: number;
  max_position_embeddings: number;
  vocab_size: number;
}

/**
 * How the dense layers' weights are stored: `fp32` as they are (widened from fp16), `int8` quantised per output
 * column (symmetric, 7-bit range, so AVX2 machines without VNNI cannot saturate), with the activations quantised
 * per batch at run time (dynamic quantisation: DynamicQuantizeLinear + MatMulInteger).
 */
export type Precision = 'fp32' | 'int8';

/** Default-domain opset of the graph (LayerNormalization needs 17). */
export const OPSET = 17;

/**
 * Builds the ONNX graph of a BERT encoder with mean pooling: inputs `input_ids` and `attention_mask` (int64,
 * [batch, sequence]), output `embeddings` (float, [batch, hidden]): the mean of the last layer's token states
 * over the attended tokens (not yet normalised). Token types are all 0 (single sentences). Yields to the event
 * loop between layers, as converting the weights takes a moment.
 */
export async function buildBertGraph(
  weights: SafeTensors,
  config: BertConfig,
  precision: Precision,
): Promise<Graph> {
  const nodes: Node[] = [];
  const initializers: Tensor[] = [];
  let counter = 0;
  const fresh = (hint: string) => `${hint}_${counter++}`;
  const op = (
    opType: string,
    inputs: string[],
    attributes: Node['attribute'] = [],
    outputs = 1,
    domain?: string,
  ): string[] => {
    const out = Array.from({ length: outputs }, () => fresh(opType.toLowerCase()));
    nodes.push({
      op_type: opType,
      ...(domain ? { domain } : {}),
      input: inputs,
      output: out,
      name: fresh(`n_${opType}`),
      attribute: attributes,
    });
    return out;
  };
  const op1 = (opType: string, inputs: string[], attributes: Node['attribute'] = []) =>
    op(opType, inputs, attributes)[0]!;
  const constant = (name: string, dims: number[], dataType: number, bytes: Uint8Array): string => {
    initializers.push({ name, dims, data_type: dataType, raw_data: bytes });
    return name;
  };
  const floats = (name: string, dims: number[], data: Float32Array) =>
    constant(name, dims, DataType.FLOAT, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  const int64s = (name: string, values: number[]) => {
    const data = BigInt64Array.from(values.map((v) => BigInt(v)));
    return constant(name, [values.length], DataType.INT64, new Uint8Array(data.buffer));
  };
  const scalar = (name: string, value: number) => floats(name, [], Float32Array.of(value));
  const intAttr = (name: string, i: number) => ({ name, type: AttributeType.INT, i });
  const intsAttr = (name: string, ints: number[]) => ({ name, type: AttributeType.INTS, ints });
  const floatAttr = (name: string, f: number) => ({ name, type: AttributeType.FLOAT, f });

  const hidden = config.hidden_size;
  const heads = config.num_attention_heads;
  const headSize = hidden / heads;
  const t = (name: string) => weights.get(name);

  /** x · Wᵀ + b for a torch Linear weight W of shape [out, in]. */
  const linear = async (x: string, prefix: string): Promise<string> => {
    await yieldToLoop();
    const w = t(`${prefix}.weight`);
    const [outDim, inDim] = w.shape as [number, number];
    const wt = transpose(w);
    const bias = floats(`${prefix}.bias`, [outDim], t(`${prefix}.bias`).data);
    if (precision === 'fp32') {
      const weight = floats(`${prefix}.weight_t`, [inDim, outDim], wt);
      return op1('Add', [op1('MatMul', [x, weight]), bias]);
    }
    const { q, scales } = quantizeColumns(wt, inDim, outDim);
    const weight = constant(`${prefix}.weight_q`, [inDim, outDim], DataType.INT8, q);
    const weightZero = constant(`${prefix}.weight_zp`, [outDim], DataType.INT8, new Uint8Array(outDim));
    const weightScale = floats(`${prefix}.weight_scale`, [outDim], scales);
    const [xq, xScale, xZero] = op('DynamicQuantizeLinear', [x], [], 3) as [string, string, string];
    const product = op1('MatMulInteger', [xq, weight, xZero, weightZero]);
    const scale = op1('Mul', [xScale, weightScale]);
    const value = op1('Mul', [op1('Cast', [product], [intAttr('to', DataType.FLOAT)]), scale]);
    return op1('Add', [value, bias]);
  };
  const layerNorm = (x: string, prefix: string): string =>
    op1(
      'LayerNormalization',
      [
        x,
        floats(`${prefix}.weight`, [hidden], t(`${prefix}.weight`).data),
        floats(`${prefix}.bias`, [hidden], t(`${prefix}.bias`).data),
      ],
      [intAttr('axis', -1), floatAttr('epsilon', config.layer_norm_eps)],
    );

  // Embeddings: word + position (0..S-1) + token type 0, then LayerNorm.
  const table = async (name: string, onnxName: string) => {
    const widened = await weights.getAsync(name, () => yieldToLoop());
    return floats(onnxName, widened.shape, widened.data);
  };
  const words = await table('embeddings.word_embeddings.weight', 'word_embeddings');
  const positions = await table('embeddings.position_embeddings.weight', 'position_embeddings');
  const tokenType = floats(
    'token_type_0',
    [hidden],
    t('embeddings.token_type_embeddings.weight').data.slice(0, hidden),
  );

  const toFloat = [intAttr('to', DataType.FLOAT)];
  const wordVectors = op1('Gather', [words, 'input_ids'], [intAttr('axis', 0)]);
  const shape = op1('Shape', ['input_ids']);
  const seqLen = op1('Slice', [shape, int64s('one', [1]), int64s('two', [2]), int64s('axis0', [0])]);
  const positionVectors = op1('Slice', [positions, int64s('zero', [0]), seqLen, int64s('axis0b', [0])]);
  let x = layerNorm(
    op1('Add', [op1('Add', [wordVectors, positionVectors]), tokenType]),
    'embeddings.LayerNorm',
  );

  // Attention mask → additive bias [B, 1, 1, S]: 0 where attended, -10000 on padding.
  const maskFloat = op1('Cast', ['attention_mask'], toFloat);
  const maskBias = op1('Mul', [
    op1('Sub', [scalar('one_f', 1), op1('Unsqueeze', [maskFloat, int64s('axes12', [1, 2])])]),
    scalar('mask_neg', -10_000),
  ]);
  const splitHeads = int64s('split_heads', [0, 0, heads, headSize]);
  const mergeHeads = int64s('merge_heads', [0, 0, hidden]);
  const attentionScale = scalar('attention_scale', 1 / Math.sqrt(headSize));

  for (let layer = 0; layer < config.num_hidden_layers; layer++) {
    await yieldToLoop();
    const p = `encoder.layer.${layer}`;
    const heads4 = (v: string, perm: number[]) =>
      op1('Transpose', [op1('Reshape', [v, splitHeads])], [intsAttr('perm', perm)]);
    const q = heads4(await linear(x, `${p}.attention.self.query`), [0, 2, 1, 3]);
    const k = heads4(await linear(x, `${p}.attention.self.key`), [0, 2, 3, 1]);
    const v = heads4(await linear(x, `${p}.attention.self.value`), [0, 2, 1, 3]);
    const scores = op1('Add', [op1('Mul', [op1('MatMul', [q, k]), attentionScale]), maskBias]);
    const probs = op1('Softmax', [scores], [intAttr('axis', -1)]);
    const context = op1('Reshape', [
      op1('Transpose', [op1('MatMul', [probs, v])], [intsAttr('perm', [0, 2, 1, 3])]),
      mergeHeads,
    ]);
    const attended = await linear(context, `${p}.attention.output.dense`);
    x = layerNorm(op1('Add', [attended, x]), `${p}.attention.output.LayerNorm`);
    // Feed-forward with exact GELU, 0.5 · h · (1 + erf(h / √2)), as onnxruntime's own kernel (com.microsoft):
    // one pass over the 1,536-wide activations instead of five, with the same vectors (decision 93).
    const gelu = op('Gelu', [await linear(x, `${p}.intermediate.dense`)], [], 1, 'com.microsoft')[0]!;
    const out = await linear(gelu, `${p}.output.dense`);
    x = layerNorm(op1('Add', [out, x]), `${p}.output.LayerNorm`);
  }

  // Mean pooling over attended tokens.
  const mask3 = op1('Unsqueeze', [maskFloat, int64s('axis2', [2])]);
  const summed = op1('ReduceSum', [op1('Mul', [x, mask3]), int64s('axis1', [1])], [intAttr('keepdims', 0)]);
  const counts = op1('Max', [
    op1('ReduceSum', [mask3, int64s('axis1b', [1])], [intAttr('keepdims', 0)]),
    scalar('min_count', 1e-9),
  ]);
  nodes.push({ op_type: 'Div', input: [summed, counts], output: ['embeddings'], name: 'n_pool' });

  return {
    name: 'bert_mean_pooling',
    nodes,
    initializers,
    inputs: [
      { name: 'input_ids', elemType: DataType.INT64, shape: ['batch', 'sequence'] },
      { name: 'attention_mask', elemType: DataType.INT64, shape: ['batch', 'sequence'] },
    ],
    outputs: [{ name: 'embeddings', elemType: DataType.FLOAT, shape: ['batch', hidden] }],
  };
}

/** [out, in] → [in, out]. */
function transpose(w: FloatTensor): Float32Array {
  const [rows, cols] = w.shape as [number, number];
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = w.data[r * cols + c]!;
  return out;
}

/** Largest magnitude of a quantised weight: 7 bits, so u8·s8 pairs stay within int16 on AVX2. */
const WEIGHT_RANGE = 127;

/** Symmetric int8 per output column of a [in, out] matrix: q = round(w / scale), scale = max|w| / range. */
export function quantizeColumns(
  w: Float32Array,
  inDim: number,
  outDim: number,
): { q: Uint8Array; scales: Float32Array } {
  const scales = new Float32Array(outDim);
  for (let c = 0; c < outDim; c++) {
    let max = 0;
    for (let r = 0; r < inDim; r++) max = Math.max(max, Math.abs(w[r * outDim + c]!));
    scales[c] = max > 0 ? max / WEIGHT_RANGE : 1;
  }
  const q = new Int8Array(inDim * outDim);
  for (let r = 0; r < inDim; r++) {
    for (let c = 0; c < outDim; c++) q[r * outDim + c] = Math.round(w[r * outDim + c]! / scales[c]!);
  }
  return { q: new Uint8Array(q.buffer), scales };
}
