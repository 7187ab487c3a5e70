import fs from 'node:fs/promises';

interface TensorEntry {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

/** A tensor read from a safetensors file, as float32 (fp16 and bf16 are widened). */
export interface FloatTensor {
  shape: number[];
  data: Float32Array;
}

/** float16 bits → float32 value (IEEE 754 half precision, subnormals included). */
export function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

let halfTable: Float32Array | undefined;
/** All 65,536 half values, so widening a tensor is one lookup per component. */
function halves(): Float32Array {
  if (!halfTable) {
    halfTable = new Float32Array(65_536);
    for (let h = 0; h < 65_536; h++) halfTable[h] = halfToFloat(h);
  }
  return halfTable;
}

/**
 * The tensors of a safetensors file (an 8-byte little-endian header length, a JSON header naming each tensor's
 * dtype, shape and byte range, then the data), read whole into memory.
 */
export class SafeTensors {
  private constructor(
    private readonly header: Record<string, TensorEntry>,
    private readonly data: Buffer,
  ) {}

  static async read(file: string): Promise<SafeTensors> {
    const bytes = await fs.readFile(file);
    const headerLength = Number(bytes.readBigUInt64LE(0));
    const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8')) as Record<
      string,
      TensorEntry
    >;
    delete header.__metadata__;
    return new SafeTensors(header, bytes.subarray(8 + headerLength));
  }

  names(): string[] {
    return Object.keys(this.header);
  }

  /** Like get, with a turn of the event loop every million components (the word table has 11.7 million). */
  async getAsync(name: string, pause: () => Promise<void>): Promise<FloatTensor> {
    const entry = this.header[name];
    if (entry?.dtype !== 'F16') return this.get(name);
    const [start] = entry.data_offsets;
    const count = entry.shape.reduce((a, b) => a * b, 1);
    const out = new Float32Array(count);
    const table = halves();
    const step = 1 << 20;
    for (let from = 0; from < count; from += step) {
      const to = Math.min(count, from + step);
      for (let i = from; i < to; i++) out[i] = table[this.data.readUInt16LE(start + i * 2)]!;
      await pause();
    }
    return { shape: entry.shape, data: out };
  }

  /** The tensor widened to float32; throws when it is missing. */
  get(name: string): FloatTensor {
    const entry = this.header[name];
    if (!entry) throw new Error(`tensor ${name} is missing from the weights`);
    const [start, end] = entry.data_offsets;
    const raw = this.data.subarray(start, end);
    const count = entry.shape.reduce((a, b) => a * b, 1);
    const out = new Float32Array(count);
    if (entry.dtype === 'F16') {
      const table = halves();
      for (let i = 0; i < count; i++) out[i] = table[raw.readUInt16LE(i * 2)]!;
    } else if (entry.dtype === 'BF16') {
      const view = new DataView(new ArrayBuffer(4));
      for (let i = 0; i < count; i++) {
        view.setUint32(0, raw.readUInt16LE(i * 2) << 16, true);
        out[i] = view.getFloat32(0, true);
      }
    } else if (entry.dtype === 'F32') {
      for (let i = 0; i < count; i++) out[i] = raw.readFloatLE(i * 4);
    } else {
      throw new Error(`tensor ${name} has the unsupported dtype ${entry.dtype}`);
    }
    return { shape: entry.shape, data: out };
  }
}
