/**
 * The source of the thread that runs the sentence model. onnxruntime-node's `run` computes on the calling thread
 * (its own thread pool helps, but the call returns only when the result is there), so the model lives in a worker
 * thread: session creation (about a second) and every inference happen there, never on the event loop. Plain
 * JavaScript evaluated as the worker's script (`new Worker(source, { eval: true })`), so it works the same from
 * the sources (tsx) and from the one-file bundle (dist/main.js); the packages it loads are resolved by the
 * parent and passed as absolute paths.
 *
 * Messages in: `{ id, texts }` (a few texts, run one by one), or `{ close: true }` (release the session and end). Out: `{ type: 'ready' }` or `{ type: 'failed', error }` once,
 * then per job `{ id, vectors }` (a Float32Array of texts × 384, each row unit length, transferred) or
 * `{ id, error }`.
 */
export const INFERENCE_WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const ort = require(workerData.ortPath);
const { Tokenizer } = require(workerData.tokenizersPath);
const { maxTokens, cls, sep, dims } = workerData;
let session;
let tokenizer;

// Indexing yields the CPU to the API's thread: on Linux this thread (a task of its own, found through
// /proc/thread-self) runs at the process's priority lowered by the increment (as lowerThreadPriority does),
// and onnxruntime's threads created below inherit it.
try {
  const tid = Number(/task\/(\d+)$/.exec(fs.readlinkSync('/proc/thread-self'))?.[1]);
  const os = require('node:os');
  if (tid > 0) os.setPriority(tid, Math.min(19, os.getPriority(process.pid) + workerData.niceIncrement));
} catch {
  // not Linux, or not allowed: same priority as the API
}

function tokenize(text) {
  const ids = tokenizer.encode(text, { add_special_tokens: false }).ids;
  return [cls, ...ids.slice(0, maxTokens - 2), sep];
}

// One text per run: no padding, and a text's vector never depends on its batch (the int8 graph quantises the
// activations per run, so batch-mates would shift each other's scale).
async function embedOne(text, out, offset) {
  const row = tokenize(text);
  const shape = [1, row.length];
  const result = await session.run({
    input_ids: new ort.Tensor('int64', BigInt64Array.from(row, (id) => BigInt(id)), shape),
    attention_mask: new ort.Tensor('int64', new BigInt64Array(row.length).fill(1n), shape),
  });
  const pooled = result.embeddings.data;
  let sum = 0;
  for (let d = 0; d < dims; d++) sum += pooled[d] * pooled[d];
  const norm = Math.sqrt(sum) || 1;
  for (let d = 0; d < dims; d++) out[offset + d] = pooled[d] / norm;
}

async function embed(texts) {
  const out = new Float32Array(texts.length * dims);
  for (let i = 0; i < texts.length; i++) await embedOne(texts[i], out, i * dims);
  return out;
}

(async () => {
  try {
    tokenizer = new Tokenizer(JSON.parse(fs.readFileSync(workerData.tokenizerPath, 'utf8')), {});
    session = await ort.InferenceSession.create(workerData.modelPath, {
      intraOpNumThreads: workerData.threads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
      executionMode: 'sequential',
    });
    parentPort.postMessage({ type: 'ready' });
  } catch (err) {
    parentPort.postMessage({ type: 'failed', error: String((err && err.message) || err) });
    return;
  }
  parentPort.on('message', async (message) => {
    if (message.close) {
      // Released here, then the thread ends by itself: tearing a live session down from outside can abort
      // the process (onnxruntime throws from its finalizer).
      await session.release().catch(() => {});
      parentPort.close();
      return;
    }
    try {
      const vectors = await embed(message.texts);
      parentPort.postMessage({ id: message.id, vectors }, [vectors.buffer]);
    } catch (err) {
      parentPort.postMessage({ id: message.id, error: String((err && err.message) || err) });
    }
  });
})();
`;
