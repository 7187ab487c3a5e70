import { DOTS_WASM_BASE64 } from './dots-wasm.ts';

/**
 * The source of the thread that compares a query with a cached space's note vectors (the exact vector store):
 * 100,000 vectors of 384 floats are tens of millions of multiply-adds, which would stop the API's event loop for
 * 50–300 ms. The vectors are in shared WebAssembly memory, so a message carries no copy of them, and the dot
 * products run in dots.wat's SIMD loop (the same sums as a JavaScript loop, several times faster). Plain
 * JavaScript evaluated as the worker's script (`new Worker(source, { eval: true })`), so it works the same from
 * the sources (tsx) and from the bundle (dist/main.js), like the SQLite and sentence-model threads.
 *
 * Messages in: `{ id, memory, count, dims, query, k, queryAt, scoresAt }` (memory: from ScanMemories, its first
 * `count` rows of `dims` the notes' vectors; the offsets: scanLayout's). Out: `{ id, indexes, similarities }`: the
 * rows nearest to the query, best first (ties by row), `k` of them plus any tied with the k-th (the caller breaks
 * those ties by note id), or `{ id, error }`.
 */
export const SCAN_THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const dotsModule = new WebAssembly.Module(Buffer.from('${DOTS_WASM_BASE64}', 'base64'));

// The memory's layout (scan-memory.ts, scanLayout): count rows of dims floats, the query at queryAt, a float64
// score a row at scoresAt.
function nearest(memory, count, dims, query, k, queryAt, scoresAt) {
  new Float32Array(memory.buffer, queryAt, dims).set(query);
  new WebAssembly.Instance(dotsModule, { env: { memory } }).exports.dots(0, count, dims, queryAt, scoresAt);
  const scores = new Float64Array(memory.buffer, scoresAt, count);
  const rows = [];
  const sims = [];
  for (let i = 0; i < count; i++) {
    const sum = scores[i];
    if (sims.length >= k && sum < sims[k - 1]) continue;
    let at = sims.length;
    while (at > 0 && sims[at - 1] < sum) at--;
    rows.splice(at, 0, i);
    sims.splice(at, 0, sum);
    // Beyond k only rows tied with the k-th stay.
    while (sims.length > k && sims[sims.length - 1] < sims[k - 1]) {
      rows.pop();
      sims.pop();
    }
  }
  return { indexes: Int32Array.from(rows), similarities: Float64Array.from(sims) };
}

parentPort.on('message', (m) => {
  try {
    const { indexes, similarities } = nearest(m.memory, m.count, m.dims, m.query, m.k, m.queryAt, m.scoresAt);
    parentPort.postMessage({ id: m.id, indexes, similarities }, [indexes.buffer, similarities.buffer]);
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: String(err && err.message ? err.message : err) });
  }
});
`;
