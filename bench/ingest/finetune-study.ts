import fs from 'node:fs';
import path from 'node:path';
import { defaultDetector } from '../../src/features/processing/action-items/detector.ts';
import { describeRanking, type LabelledExcerpt, loadLabelledSet, logit } from './action-item-data.ts';
import {
  describeMatches,
  extractWith,
  loadTrainingData,
  scoreExcerpts,
  sumMatches,
  TRAIN_SETS,
  trainedWithout,
} from './train-action-items.ts';

/**
 * Would fine-tuning the sentence model make the detector precise enough? (issue 17, fifth round; decision 47).
 * A study, not part of the product: the fine-tuning itself runs in Python (`finetune-detector.py`, torch on the
 * CPU), because nothing in TypeScript trains a transformer.
 *
 *   npx tsx bench/ingest/finetune-study.ts export DIR   # DIR/sentences.jsonl: every sentence of the eight
 *                                                        # training sets, its label, and the shipped detector's
 *                                                        # probability from a model that had not seen its set
 *   python3 bench/ingest/finetune-detector.py DIR        # DIR/cv-scores.json, about 50 minutes on two cores
 *   npx tsx bench/ingest/finetune-study.ts score DIR    # ranking per sentence and items, each detector
 *
 * The fine-tuned model is scored by four folds (the five development sets together, `train`, `train2`, `train3`),
 * the shipped logistic regression with each set held out in turn (so it trains on a little more than the
 * fine-tuned model does). The blind sets are not used.
 */

const [command, dir] = process.argv.slice(2);
if ((command !== 'export' && command !== 'score') || !dir) {
  process.stderr.write('usage: finetune-study.ts export|score DIR\n');
  process.exit(2);
}
const key = (e: LabelledExcerpt, i: number) => `${e.set}|${e.id}|${i}`;

if (command === 'export') {
  const { data, vectors } = await loadTrainingData();
  fs.mkdirSync(dir, { recursive: true });
  const lines = TRAIN_SETS.flatMap((set) => {
    // The shipped detector's probabilities, from a model trained on the other seven sets.
    const heldOut = scoreExcerpts(data.get(set)!, trainedWithout(set, data, vectors), vectors.get(set)!);
    return data.get(set)!.flatMap((e, x) =>
      e.sentences.map((s, i) =>
        JSON.stringify({
          key: key(e, i),
          set,
          excerpt: e.id,
          speaker: e.segments[s.segmentIndex]!.speaker,
          text: s.text,
          label: e.labels[i],
          shipped: heldOut[x]![i],
        }),
      ),
    );
  });
  fs.writeFileSync(path.join(dir, 'sentences.jsonl'), `${lines.join('\n')}\n`);
  process.stdout.write(`${lines.length} sentences written to ${dir}/sentences.jsonl\n`);
} else {
  const shipped = new Map(
    fs
      .readFileSync(path.join(dir, 'sentences.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { key: string; shipped: number })
      .map((row) => [row.key, row.shipped] as const),
  );
  const file = JSON.parse(fs.readFileSync(path.join(dir, 'cv-scores.json'), 'utf8')) as {
    /** The training sample's odds of a task sentence over the data's, which the logits are corrected by. */
    oddsFactor: number;
    logits: Record<string, number>;
  };
  const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
  const shift = Math.log(file.oddsFactor);
  /** Each detector's probability from the shipped detector's held-out probability and the fine-tuned logit. */
  const detectors = {
    shipped: (p: number) => p,
    'fine-tuned': (_p: number, tuned: number) => sigmoid(tuned - shift),
    'mean of the two logits': (p: number, tuned: number) => sigmoid((logit(p) + tuned - shift) / 2),
  };
  const thresholds = defaultDetector().thresholds(true);
  const itemSets: readonly string[] = ['train', 'train2', 'train3'];
  const excerpts = TRAIN_SETS.flatMap((set) => loadLabelledSet(set));
  for (const [name, probability] of Object.entries(detectors)) {
    const scored = excerpts.map(
      (e) =>
        [
          e,
          e.sentences.map((_, i) => probability(shipped.get(key(e, i))!, file.logits[key(e, i)]!)),
        ] as const,
    );
    const labels = excerpts.flatMap((e) => e.labels);
    process.stdout.write(
      `${name}: ${describeRanking(
        scored.flatMap(([, s]) => s),
        labels,
      )}\n`,
    );
    const forItems = scored.filter(([e]) => itemSets.includes(e.set));
    for (const scale of [0.5, 1, 2]) {
      const t = {
        ...thresholds,
        keep: thresholds.keep * scale,
        keepCommitted: thresholds.keepCommitted * scale,
      };
      const sum = sumMatches(forItems.map(([e, scores]) => [e, extractWith(e, scores, t)] as const));
      process.stdout.write(
        `  items on ${itemSets.join(', ')} at thresholds ${t.keep.toFixed(2)} / ${t.keepCommitted.toFixed(2)}: ${describeMatches(sum)}\n`,
      );
    }
  }
}
