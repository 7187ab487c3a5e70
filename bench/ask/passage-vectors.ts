import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import { chunkNote } from '../../src/features/search/chunk-note.ts';
import { createEmbedder } from '../../src/features/search/embedders/load-embedder.ts';
import type { AskMeeting } from './data.ts';

/**
 * Each meeting's transcript passages (chunked as the search index chunks a note) and their vectors from the
 * search's sentence model, as the index stores them, cached in bench/ask/.cache (embedding 13k passages is the
 * slow part); the questions' vectors likewise.
 */
const CACHE = path.join(path.dirname(fileURLToPath(import.meta.url)), '.cache');

export interface MeetingPassages {
  starts: number[];
  vectors: Float32Array[];
}

export async function passageVectors(
  meetings: readonly AskMeeting[],
  options: { onlyCached?: boolean } = {},
): Promise<{ passages: Map<string, MeetingPassages>; questions: Map<string, Float32Array> }> {
  fs.mkdirSync(CACHE, { recursive: true });
  const config = loadConfig({ ...process.env, DATA_DIR: process.env.DATA_DIR ?? path.join(CACHE, 'data') });
  const embedder = await createEmbedder(config);
  const tag = embedder.id.replace(/\W+/g, '_');
  const passages = new Map<string, MeetingPassages>();
  const questions = new Map<string, Float32Array>();
  const read = (file: string, dims: number) => {
    const buf = fs.readFileSync(file);
    const all = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    const out: Float32Array[] = [];
    for (let i = 0; i < all.length; i += dims) out.push(all.slice(i, i + dims));
    return out;
  };
  const write = (file: string, vectors: Float32Array[]) =>
    fs.writeFileSync(
      file,
      Buffer.concat(vectors.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength))),
    );
  for (const m of meetings) {
    if (options.onlyCached && !fs.existsSync(path.join(CACHE, `${m.name}.${tag}.questions.f32`))) continue;
    const chunks = chunkNote({
      title: '',
      summary: '',
      segments: m.note.segments.map((s) => ({
        ...s,
        speaker: s.speaker ?? 'Speaker',
        start_ms: s.start_ms ?? 0,
        end_ms: s.end_ms ?? 0,
      })),
      speakers: [],
      highlights: [],
      actionItems: [],
    }).filter((c) => c.kind === 'transcript');
    const file = path.join(CACHE, `${m.name}.${tag}.passages.f32`);
    let vectors: Float32Array[];
    if (fs.existsSync(file)) vectors = read(file, embedder.dims);
    else {
      vectors = [];
      for (let i = 0; i < chunks.length; i += 16)
        vectors.push(
          ...(await embedder.embed(
            chunks.slice(i, i + 16).map((c) => c.text),
            'passage',
          )),
        );
      write(file, vectors);
    }
    passages.set(m.name, { starts: chunks.map((c) => c.startMs ?? 0), vectors });
    const qfile = path.join(CACHE, `${m.name}.${tag}.questions.f32`);
    let qv: Float32Array[];
    if (fs.existsSync(qfile)) qv = read(qfile, embedder.dims);
    else {
      qv = await embedder.embed(
        m.queries.map((q) => q.query),
        'query',
      );
      write(qfile, qv);
    }
    for (const [i, q] of m.queries.entries()) questions.set(`${m.name}\n${q.query}`, qv[i]!);
  }
  await embedder.close?.();
  return { passages, questions };
}
