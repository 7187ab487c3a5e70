/**
 * The source of the thread that compares a query with a cached space's note vectors (the exact vector store):
 * 100,000 vectors of 384 floats are tens of millions of multiply-adds, which would stop the API's event loop for
 * 50–300 ms. The vectors are in a SharedArrayBuffer, so a message carries no copy of them. Plain JavaScript
 * evaluated as the worker's script (`new Worker(source, { eval: true })`), so it works the same from the sources
 * (tsx) and from the bundle (dist/main.js), like the SQLite and sentence-model threads.
 *
 * Messages in: `{ id, vectors, count, dims, query, k }` (vectors: a Float32Array over a SharedArrayBuffer, one row
 * of `dims` per note). Out: `{ id, indexes, similarities }`: the rows nearest to the query, best first (ties by
 * row), `k` of them plus any tied with the k-th (the caller breaks those ties by note id), or `{ id, error }`.
 */
export const SCAN_THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');

function nearest(vectors, count, dims, query, k) {
  const rows = [];
  const sims = [];
  const tail = dims - (dims % 4);
  for (let i = 0; i < count; i++) {
    const base = i * dims;
    // Four running sums: about twice as fast in V8 as one.
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let d = 0; d < tail; d += 4) {
      s0 += query[d] * vectors[base + d];
      s1 += query[d + 1] * vectors[base + d + 1];
      s2 += query[d + 2] * vectors[base + d + 2];
      s3 += query[d + 3] * vectors[base + d + 3];
    }
    let sum = s0 + s1 + s2 + s3;
    for (let d = tail; d < dims; d++) sum += query[d] * vectors[base + d];
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
    const { indexes, similarities } = nearest(m.vectors, m.count, m.dims, m.query, m.k);
    parentPort.postMessage({ id: m.id, indexes, similarities }, [indexes.buffer, similarities.buffer]);
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: String(err && err.message ? err.message : err) });
  }
});
`;
