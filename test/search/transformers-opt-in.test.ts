import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbedderError } from '../../src/features/search/embedders/embedder.ts';
import {
  modelPath,
  TRANSFORMERS_INSTALL,
  TransformersEmbedder,
} from '../../src/features/search/embedders/transformers-embedder.ts';

function isInstalled(name: string): boolean {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
}

/** The default install leaves @huggingface/transformers out; EMBEDDER=transformers then says how to add it. */
describe.skipIf(isInstalled('@huggingface/transformers'))('transformers embedder without its package', () => {
  it('names the package and the one-line install', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-models-'));
    try {
      const model = 'Xenova/bge-small-en-v1.5';
      const folder = modelPath(dir, model);
      fs.mkdirSync(path.join(folder, 'onnx'), { recursive: true });
      for (const file of ['config.json', 'tokenizer.json', 'onnx/model_quantized.onnx'])
        fs.writeFileSync(path.join(folder, file), '{}');
      const error = await TransformersEmbedder.load(dir, model).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EmbedderError);
      expect((error as Error).message).toMatch(
        /needs the package @huggingface\/transformers, which is not installed/,
      );
      expect((error as Error).message).toContain(TRANSFORMERS_INSTALL);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
