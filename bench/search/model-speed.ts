/**
 * The sentence model's cost per passage, the figure behind the import's and indexing's speed: QMSum passages chunked
 * as indexing chunks a note, embedded one text a run on one model thread, in alternated rounds against a baseline in
 * the same process (the fp32 graph of the same builder; or, with MODEL_SPEED_BASELINE_TREE=/path/to/checkout, the
 * shipped precision as that tree builds it, to compare two builders: a `git worktree` with this tree's
 * node_modules linked into it). Reports the CPU time of the whole process per
 * passage (the model thread included) and the wall time, median and fastest over the rounds, and the largest
 * difference between the two vectors of a passage.
 *
 *   npm run bench:model-speed                      (MODEL_SPEED_PASSAGES=470, MODEL_SPEED_ROUNDS=10)
 */
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chunkNote } from '../../src/features/search/chunk-note.ts';
import { MiniLmEmbedder } from '../../src/features/search/embedders/minilm-embedder.ts';
import { loadMeetings, segmentsOf } from '../search-quality/qmsum.ts';

const PASSAGES = Number(process.env.MODEL_SPEED_PASSAGES ?? 470);
const ROUNDS = Number(process.env.MODEL_SPEED_ROUNDS ?? 10);
const BASELINE_TREE = process.env.MODEL_SPEED_BASELINE_TREE;
const modelsDir = path.join(os.tmpdir(), 'minutes-model-speed');

interface Loaded {
  name: string;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

function passages(): string[] {
  const out: string[] = [];
  for (const meeting of loadMeetings()) {
    const chunks = chunkNote({
      title: meeting.name,
      summary: '',
      segments: segmentsOf(meeting),
      speakers: [],
      highlights: [],
      actionItems: [],
    });
    for (const chunk of chunks) if (chunk.kind === 'transcript') out.push(chunk.text);
    if (out.length >= PASSAGES) break;
  }
  return out.slice(0, PASSAGES);
}

async function load(tree: string | undefined, precision: 'int8' | 'fp32'): Promise<Loaded> {
  const module = (
    tree
      ? await import(pathToFileURL(path.join(tree, 'src/features/search/embedders/minilm-embedder.ts')).href)
      : { MiniLmEmbedder }
  ) as { MiniLmEmbedder: typeof MiniLmEmbedder };
  const embedder = await module.MiniLmEmbedder.load(path.join(modelsDir, tree ? 'baseline' : 'here'), {
    precision,
    threads: 1,
  });
  return {
    name: `${tree ? `${tree} ` : ''}${precision}`,
    embed: (texts) => embedder.embed(texts, 'passage'),
    close: () => embedder.close(),
  };
}

/** One text a call, as a note's passages reach the thread one batch after another; CPU and wall ms per passage. */
async function round(model: Loaded, texts: readonly string[]): Promise<{ cpu: number; wall: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (const text of texts) await model.embed([text]);
  const used = process.cpuUsage(cpu);
  return {
    cpu: (used.user + used.system) / 1000 / texts.length,
    wall: (performance.now() - start) / texts.length,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const fmt = (ms: number) => ms.toFixed(2);

const texts = passages();
const shipped = await load(undefined, 'int8');
const baseline = await load(BASELINE_TREE, BASELINE_TREE ? 'int8' : 'fp32');
const models = [baseline, shipped];
// A warm-up pass each (the first runs allocate onnxruntime's buffers), and the vectors compared.
const [a, b] = [await baseline.embed(texts), await shipped.embed(texts)];
let largest = 0;
for (let i = 0; i < texts.length; i++)
  for (let d = 0; d < (a[i] as Float32Array).length; d++)
    largest = Math.max(largest, Math.abs((a[i] as Float32Array)[d]! - (b[i] as Float32Array)[d]!));

const runs = new Map<Loaded, { cpu: number[]; wall: number[] }>(
  models.map((m) => [m, { cpu: [], wall: [] }]),
);
for (let r = 0; r < ROUNDS; r++) {
  for (const model of r % 2 ? [...models].reverse() : models) {
    const { cpu, wall } = await round(model, texts);
    runs.get(model)?.cpu.push(cpu);
    runs.get(model)?.wall.push(wall);
  }
}
const words = texts.reduce((n, t) => n + t.split(/\s+/).length, 0) / texts.length;
console.log(
  `${texts.length} QMSum passages (${words.toFixed(0)} words on average), ${ROUNDS} alternated rounds, one thread`,
);
console.log('| model | CPU ms a passage, median / fastest | wall ms a passage, median / fastest |');
console.log('|---|---|---|');
for (const model of models) {
  const { cpu, wall } = runs.get(model) as { cpu: number[]; wall: number[] };
  const role = model === shipped ? 'shipped' : 'baseline';
  const cell = (xs: number[]) => `${fmt(median(xs))} / ${fmt(Math.min(...xs))}`;
  console.log(`| ${model.name} (${role}) | ${cell(cpu)} | ${cell(wall)} |`);
}
const ratio =
  median((runs.get(shipped) as { cpu: number[] }).cpu) /
  median((runs.get(baseline) as { cpu: number[] }).cpu);
console.log(`shipped / baseline CPU (medians): ${ratio.toFixed(3)}`);
console.log(`largest difference of a vector component: ${largest.toExponential(2)}`);
await Promise.all(models.map((m) => m.close()));
