import fs from 'node:fs';
import path from 'node:path';
import { defaultDetector } from '../../src/features/processing/action-items/detector.ts';
import { type LabelledExcerpt, ranking } from './action-item-data.ts';
import {
  countMatches,
  extractWith,
  loadTrainingData,
  scoreExcerpts,
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
 *   npx tsx bench/ingest/finetune-study.ts score DIR    # ranking per sentence and items, both detectors
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
const { data, vectors } = await loadTrainingData();
/** The shipped detector's probabilities for each set, from a model trained on the other seven. */
const heldOut = new Map(
  TRAIN_SETS.map((set) => [
    set,
    scoreExcerpts(data.get(set)!, trainedWithout(set, data, vectors), vectors.get(set)!),
  ]),
);
const key = (e: LabelledExcerpt, i: number) => `${e.set}|${e.id}|${i}`;

if (command === 'export') {
  fs.mkdirSync(dir, { recursive: true });
  const lines = TRAIN_SETS.flatMap((set) =>
    data.get(set)!.flatMap((e, x) =>
      e.sentences.map((s, i) =>
        JSON.stringify({
          key: key(e, i),
          set,
          excerpt: e.id,
          speaker: e.segments[s.segmentIndex]!.speaker,
          text: s.text,
          label: e.labels[i],
          shipped: heldOut.get(set)![x]![i],
        }),
      ),
    ),
  );
  fs.writeFileSync(path.join(dir, 'sentences.jsonl'), `${lines.join('\n')}\n`);
  process.stdout.write(`${lines.length} sentences written to ${dir}/sentences.jsonl\n`);
} else {
  const file = JSON.parse(fs.readFileSync(path.join(dir, 'cv-scores.json'), 'utf8')) as {
    /** The training sample's odds of a task sentence over the data's, which the logits are corrected by. */
    oddsFactor: number;
    logits: Record<string, number>;
  };
  const logit = (p: number) => Math.log(Math.max(p, 1e-6) / Math.max(1 - p, 1e-6));
  const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
  const shift = Math.log(file.oddsFactor);
  /** Each detector's probability from the shipped detector's held-out probability and the fine-tuned logit. */
  const detectors = {
    shipped: (shipped: number) => shipped,
    'fine-tuned': (_shipped: number, tuned: number) => sigmoid(tuned - shift),
    'mean of the two logits': (shipped: number, tuned: number) =>
      sigmoid((logit(shipped) + tuned - shift) / 2),
  };
  const pct = (v: number | undefined) => (v === undefined ? '—' : `${(v * 100).toFixed(1)} %`);
  const scored = (name: keyof typeof detectors, sets: readonly (typeof TRAIN_SETS)[number][]) =>
    sets.flatMap((set) =>
      data
        .get(set)!
        .map(
          (e, x) =>
            [
              e,
              e.sentences.map((_, i) => detectors[name](heldOut.get(set)![x]![i]!, file.logits[key(e, i)]!)),
            ] as const,
        ),
    );
  const thresholds = defaultDetector().thresholds(true);
  const itemSets = ['train', 'train2', 'train3'] as const;
  for (const name of Object.keys(detectors) as (keyof typeof detectors)[]) {
    const all = scored(name, TRAIN_SETS);
    const r = ranking(
      all.flatMap(([, s]) => s),
      all.flatMap(([e]) => e.labels),
    );
    process.stdout.write(
      `${name}: ROC AUC ${r.auc.toFixed(3)}; precision at recall 20 % ${pct(r.precisionAt[0.2])}, 30 % ${pct(r.precisionAt[0.3])}, 45 % ${pct(r.precisionAt[0.45])}; recall at precision ≥ 65 % ${pct(r.recallAtGoal)}\n`,
    );
    for (const scale of [0.5, 1, 2]) {
      const t = {
        keep: thresholds.keep * scale,
        add: thresholds.add,
        keepCommitted: thresholds.keepCommitted * scale,
      };
      const sum = { correct: 0, predicted: 0, gold: 0 };
      for (const [e, scores] of scored(name, itemSets)) {
        const c = countMatches(extractWith(e, scores, t), e);
        sum.correct += c.correct;
        sum.predicted += c.predicted;
        sum.gold += c.gold;
      }
      process.stdout.write(
        `  items on ${itemSets.join(', ')} at thresholds ${t.keep.toFixed(2)} / ${t.keepCommitted.toFixed(2)}: ${sum.predicted} listed, ${sum.correct} right of ${sum.gold}: precision ${pct(sum.correct / sum.predicted)}, recall ${pct(sum.correct / sum.gold)}\n`,
      );
    }
  }
}
