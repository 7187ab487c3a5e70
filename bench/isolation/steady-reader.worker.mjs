// The steady reader's thread (steady-reader.ts starts it). Plain JavaScript: tsx does not compile what a
// thread imports, and this loop needs nothing of the sources.
import { parentPort, workerData } from 'node:worker_threads';

function percentile(sorted, p) {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** GET `url` `rate` times a second (open loop: a slow answer does not delay the next request) for `seconds`. */
async function read({ url, key, seconds, rate }) {
  const times = [];
  let errors = 0;
  const pending = [];
  const interval = 1000 / rate;
  const started = performance.now();
  for (let i = 0; i < seconds * rate; i++) {
    const wait = started + i * interval - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      (async () => {
        const t = performance.now();
        try {
          const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
          await res.arrayBuffer();
          if (res.status !== 200) errors++;
          else times.push(performance.now() - t);
        } catch {
          errors++;
        }
      })(),
    );
  }
  await Promise.all(pending);
  times.sort((a, b) => a - b);
  return {
    count: times.length,
    errors,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    max: times.at(-1) ?? Number.NaN,
  };
}

parentPort.postMessage(await read(workerData));
