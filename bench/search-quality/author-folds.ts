/**
 * Author-disjoint folds over the independent author sets (npm run bench:search-folds). Every set is ingested into
 * an account of its own through the services, and every query's evidence is gathered once through
 * gatherEvidence (what searchNotes ranks); the ranking is then replayed with rankNotes, as the API runs it.
 *
 * Leave one author out: for each author, the relevance model is fitted on the others
 * (relevance-fit.ts) and reported on the one left out; the table labels every figure with what it was tuned on.
 * Options: --evidence FILE (read the gathered evidence from FILE, or write it there when FILE does not exist),
 * --paraphrase-evidence FILE (the paraphrase set's evidence saved by `bench/search-quality/run.ts
 * --paraphrase-only --paraphrase-evidence FILE`, added as a fifth author),
 * --write-model FILE (the model fitted on every author, as JSON), --out FILE (the figures as JSON). "before" is
 * the shipped relevance (rank.ts, fitted on QMSum and the paraphrase set, never on these authors).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gatherEvidence } from '../../src/features/search/gather-evidence.ts';
import { benchActor, benchDeps, openBenchDatabase } from '../search/setup.ts';
import {
  type AuthorMetrics,
  authorMetrics,
  ingestAuthorSet,
  loadAuthorSets,
  type QueryOutcome,
} from './author-sets.ts';
import type { ParaphraseEvidence } from './paraphrase.ts';
import { fitRelevanceModel, type GatheredQuery, replay } from './relevance-fit.ts';

async function gatherAll(): Promise<GatheredQuery[]> {
  const out: GatheredQuery[] = [];
  for (const set of loadAuthorSets()) {
    const database = await openBenchDatabase('sqlite');
    try {
      const deps = benchDeps(database);
      const actor = await benchActor(database);
      const ids = await ingestAuthorSet(deps, actor, set);
      const space = { accountId: actor.accountId, mode: actor.mode };
      const ask = async (text: string) =>
        gatherEvidence(deps, space, { query: text, limit: 10, min_relevance: 0 });
      for (const note of set.notes) {
        for (const q of note.queries) {
          const g = await ask(q.text);
          out.push({
            set: set.author,
            kind: q.kind,
            query: q.text,
            offTopic: false,
            target: ids.get(note.id)!,
            spaceSize: g.spaceSize,
            evidence: g.evidence,
          });
        }
      }
      for (const q of set.off_topic) {
        const g = await ask(q.text);
        out.push({
          set: set.author,
          kind: q.kind,
          query: q.text,
          offTopic: true,
          spaceSize: g.spaceSize,
          evidence: g.evidence,
        });
      }
      await deps.close();
      process.stderr.write(`gathered ${set.author}\n`);
    } finally {
      await database.close();
    }
  }
  return out;
}

export async function loadOrGather(file: string | undefined): Promise<GatheredQuery[]> {
  if (file && fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')).queries;
  const queries = await gatherAll();
  if (file) fs.writeFileSync(file, JSON.stringify({ queries }));
  return queries;
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const queries = await loadOrGather(option('--evidence'));
  // The project's own paraphrase set (bench/search-quality/paraphrase-set.json) as a fifth author, when given.
  const paraphraseFile = option('--paraphrase-evidence');
  if (paraphraseFile) {
    const items = JSON.parse(fs.readFileSync(paraphraseFile, 'utf8')) as ParaphraseEvidence[];
    for (const item of items)
      queries.push({
        set: 'paraphrase-set',
        kind: 'paraphrase',
        query: item.query,
        offTopic: !item.relevantNote,
        ...(item.relevantNote ? { target: item.relevantNote } : {}),
        spaceSize: item.spaceSize,
        evidence: item.evidence,
      });
  }
  const authors = [...new Set(queries.map((q) => q.set))].sort();
  const pct = (x: number) => (Number.isNaN(x) ? '—' : `${(100 * x).toFixed(1)} %`);
  const line = (label: string, tuned: string, m: AuthorMetrics) =>
    `${label.padEnd(14)} ${tuned.padEnd(34)} MRR@10 ${m.mrr10.toFixed(3)}  first at ≥ 0.5 ${pct(m.firstAndRelevant).padStart(7)}  alarms ${pct(m.falseAlarms).padStart(7)}\n`;
  const figures: Record<string, unknown>[] = [];
  const report = (label: string, tuned: string, outcomes: QueryOutcome[]) => {
    const m = authorMetrics(outcomes);
    figures.push({ set: label, tuned_on: tuned, ...m });
    process.stdout.write(line(label, tuned, m));
  };
  // Fitted on every author: what would ship (weights written to FILE with --write-model FILE).
  const allModel = fitRelevanceModel(queries);
  const modelFile = option('--write-model');
  if (modelFile) fs.writeFileSync(modelFile, `${JSON.stringify(allModel, null, 2)}\n`);
  const heldOut: QueryOutcome[] = [];
  const before: QueryOutcome[] = [];
  const fittedOnAll: QueryOutcome[] = [];
  for (const author of authors) {
    const test = queries.filter((q) => q.set === author);
    const train = queries.filter((q) => q.set !== author);
    const model = fitRelevanceModel(train);
    const b = replay(test, null);
    before.push(...b);
    report(author, 'before (QMSum + paraphrase set)', b);
    const h = replay(test, model);
    heldOut.push(...h);
    report(
      author,
      `fitted on ${authors
        .filter((a) => a !== author)
        .map((a) => a.replace('set-', '').replace('-set', ''))
        .join('+')}`,
      h,
    );
    const s = replay(test, allModel);
    fittedOnAll.push(...s);
    report(author, 'fitted on all (this one included)', s);
  }
  report('all', 'before (QMSum + paraphrase set)', before);
  report('all', 'held out (leave one author out)', heldOut);
  report('all', 'fitted on all (tuned on)', fittedOnAll);
  const out = option('--out');
  if (out) fs.writeFileSync(out, JSON.stringify({ figures }, null, 1));
}
