import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeTranscript, createSpeakerDirectory } from '../../src/features/processing/analyze-builtin.ts';
import {
  type ExtractedActionItem,
  sentencesToEmbed,
} from '../../src/features/processing/extract-action-items.ts';
import { contentWords, splitSentences, tokenize } from '../../src/features/processing/sentences.ts';
import { porterStem } from '../../src/features/search/text/porter-stem.ts';
import { loadLabelledSet } from './action-item-data.ts';
import { type ExcerptSet, selectExcerpts } from './excerpts.ts';
import { loadMeeting, meetingNames, toSegments } from './qmsum.ts';
import { closeSentenceModel, sentenceVectors } from './sentence-vectors.ts';

/**
 * Quality of the builtin analyzer on QMSum (`npm run bench:quality`):
 * - action items: precision and recall against the hand-labelled excerpts in labels/action-items*.json (five
 *   development sets, reported one by one and together, and the held-out set, never shown item by item);
 * - summaries: ROUGE-1/2/L F1 of the whole-meeting summary against QMSum's "summarize the meeting" answers.
 *
 * Each set is measured with the analyzer as shipped (rules + learned detector) and with the rules alone. The
 * detector was trained on dev … dev5, train, train2 and train3; held-out, test, final and final2 are meetings it
 * never saw.
 *
 * Flags: `--verbose` (every development-set item as ok / FP / FN), `--no-heldout`, `--final` (the final test set,
 * once, at the end), `--final2` (the third round's blind check), `--no-summaries`, `--json`.
 */

export interface GoldItem {
  text: string;
  /** The transcript turn that says the item (train and test sets), for aligning items with sentences. */
  turn?: number;
  assignee?: string;
  aliases?: string[];
  due?: string;
}
export interface LabelFile {
  created_at: string;
  excerpts: { id: string; items: GoldItem[] }[];
}

export const LABEL_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'labels');
export const LABELS: Record<ExcerptSet, string> = {
  dev: path.join(LABEL_DIR, 'action-items.json'),
  dev2: path.join(LABEL_DIR, 'action-items.dev2.json'),
  dev3: path.join(LABEL_DIR, 'action-items.dev3.json'),
  dev4: path.join(LABEL_DIR, 'action-items.dev4.json'),
  dev5: path.join(LABEL_DIR, 'action-items.dev5.json'),
  heldout: path.join(LABEL_DIR, 'action-items.heldout.json'),
  train: path.join(LABEL_DIR, 'action-items.train.json'),
  test: path.join(LABEL_DIR, 'action-items.test.json'),
  final: path.join(LABEL_DIR, 'action-items.final.json'),
  train2: path.join(LABEL_DIR, 'action-items.train2.json'),
  final2: path.join(LABEL_DIR, 'action-items.final2.json'),
  train3: path.join(LABEL_DIR, 'action-items.train3.json'),
};

/** Porter-stemmed content words: what two phrasings of one task share ("keeping" and "keep" alike). */
function terms(text: string): Set<string> {
  return new Set(contentWords(tokenize(text)).map((w) => porterStem(w.replace(/'.*$/, ''))));
}

/**
 * A predicted item matches a gold item when the text overlaps (at least half of the gold item's content words,
 * and at least a fifth of the predicted item's, so a rambling prediction cannot match everything) and the
 * assignee agrees (the same person, or both without one).
 */
export function matches(predicted: ExtractedActionItem, gold: GoldItem): boolean {
  const p = terms(predicted.text);
  const g = terms(gold.text);
  let shared = 0;
  for (const t of g) if (p.has(t)) shared++;
  if (!g.size || !p.size || shared / g.size < 0.5 || shared / p.size < 0.2) return false;
  const names = [gold.assignee, ...(gold.aliases ?? [])].filter(Boolean).map((n) => n!.toLowerCase());
  const assignee = predicted.assignee?.toLowerCase();
  return names.length === 0 ? assignee === undefined : assignee !== undefined && names.includes(assignee);
}

export function evaluateActionItems(
  set: ExcerptSet,
  options: {
    verbose?: boolean;
    /** The extractor to measure (default: the builtin analyzer's), e.g. an older version for a comparison. */
    extract?: (input: Parameters<typeof analyzeTranscript>[0]) => ExtractedActionItem[];
    /** The rules without the learned detector. */
    rulesOnly?: boolean;
    /**
     * Sentence vectors of every sentence by excerpt id (`sentenceVectors`): the detector then gets those of the
     * sentences the analyzer would embed (`sentencesToEmbed`), as with EMBEDDER=builtin.
     */
    vectors?: ReadonlyMap<string, readonly Float32Array[]>;
  } = {},
) {
  const withVectors = (input: Parameters<typeof analyzeTranscript>[0], all: readonly Float32Array[]) => {
    const sentences = splitSentences(input.segments);
    const vectors: (Float32Array | undefined)[] = sentences.map(() => undefined);
    for (const i of sentencesToEmbed(sentences, createSpeakerDirectory(input.speakers))) vectors[i] = all[i];
    return analyzeTranscript(input, { actionItems: { vectors } }).action_items;
  };
  const labels = JSON.parse(fs.readFileSync(LABELS[set], 'utf8')) as LabelFile;
  const selected = new Map(selectExcerpts(set).map((e) => [e.id, e]));
  let truePositives = 0;
  let predictedCount = 0;
  let goldCount = 0;
  let goldWithAssignee = 0;
  let predictedDues = 0;
  let textOnly = 0;
  const lines: string[] = [];
  for (const labelled of labels.excerpts) {
    const excerpt = selected.get(labelled.id);
    if (!excerpt) throw new Error(`label ${labelled.id} is not one of the selected excerpts`);
    const turns = loadMeeting(excerpt.meeting).turns.slice(excerpt.from, excerpt.to);
    const segments = toSegments(turns);
    const speakers = [...new Set(segments.map((s) => s.speaker))].map((label) => ({ label, name: label }));
    const input = { segments, speakers, createdAt: labels.created_at };
    const all = options.vectors?.get(labelled.id);
    const predicted = options.extract
      ? options.extract(input)
      : all && !options.rulesOnly
        ? withVectors(input, all)
        : analyzeTranscript(input, options.rulesOnly ? { actionItems: { detector: null } } : {}).action_items;
    predictedCount += predicted.length;
    goldCount += labelled.items.length;
    goldWithAssignee += labelled.items.filter((g) => g.assignee).length;
    predictedDues += predicted.filter((p) => p.due).length;
    const used = new Set<number>();
    for (const p of predicted) {
      const hit = labelled.items.findIndex((g, i) => !used.has(i) && matches(p, g));
      if (hit >= 0) {
        used.add(hit);
        truePositives++;
      } else if (labelled.items.some((g) => matches({ text: p.text }, { text: g.text }))) {
        textOnly++;
      }
      if (options.verbose)
        lines.push(`${hit >= 0 ? '  ok ' : '  FP '} ${labelled.id}: ${p.text} [${p.assignee ?? '-'}]`);
    }
    if (options.verbose) {
      labelled.items.forEach((g, i) => {
        if (!used.has(i)) lines.push(`  FN  ${labelled.id}: ${g.text} [${g.assignee ?? '-'}]`);
      });
    }
  }
  const precision = predictedCount ? truePositives / predictedCount : 1;
  const recall = goldCount ? truePositives / goldCount : 1;
  return {
    excerpts: labels.excerpts.length,
    gold: goldCount,
    goldWithAssignee,
    predicted: predictedCount,
    truePositives,
    precision,
    recall,
    f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0,
    /** Predictions whose text matches a gold item but whose assignee does not. */
    wrongAssignee: textOnly,
    /** Due dates predicted on a set where none is said: every one is wrong. */
    predictedDues,
    lines,
  };
}

/** Lower-cased, Porter-stemmed word tokens (as rouge-score with use_stemmer=True). */
function rougeTokens(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).map(porterStem);
}

function ngrams(tokens: string[], n: number): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    const key = tokens.slice(i, i + n).join(' ');
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

function f1(overlap: number, candidate: number, reference: number): number {
  if (!overlap) return 0;
  const p = overlap / candidate;
  const r = overlap / reference;
  return (2 * p * r) / (p + r);
}

function rougeN(candidate: string[], reference: string[], n: number): number {
  const c = ngrams(candidate, n);
  const r = ngrams(reference, n);
  let overlap = 0;
  for (const [gram, count] of c) overlap += Math.min(count, r.get(gram) ?? 0);
  return f1(overlap, Math.max(1, candidate.length - n + 1), Math.max(1, reference.length - n + 1));
}

function rougeL(candidate: string[], reference: string[]): number {
  const prev = new Array<number>(reference.length + 1).fill(0);
  const row = new Array<number>(reference.length + 1).fill(0);
  for (let i = 1; i <= candidate.length; i++) {
    for (let j = 1; j <= reference.length; j++) {
      row[j] = candidate[i - 1] === reference[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, row[j - 1]!);
    }
    for (let j = 0; j <= reference.length; j++) prev[j] = row[j]!;
  }
  return f1(prev[reference.length]!, candidate.length, reference.length);
}

/** QMSum general queries that ask for a summary of the whole meeting. */
const WHOLE_MEETING = /summar(?:y|i[sz]e)\b.*\bmeeting\b/i;

export function evaluateSummaries() {
  const scores: { r1: number; r2: number; rl: number; words: number; refWords: number }[] = [];
  for (const name of meetingNames()) {
    const meeting = loadMeeting(name);
    const query = meeting.generalQueries.find((q) => WHOLE_MEETING.test(q.query));
    if (!query) continue;
    const segments = toSegments(meeting.turns);
    const speakers = [...new Set(segments.map((s) => s.speaker))].map((label) => ({ label, name: label }));
    const { summary } = analyzeTranscript({ segments, speakers, createdAt: '2026-03-02T10:00:00.000Z' });
    const c = rougeTokens(summary);
    const r = rougeTokens(query.answer);
    scores.push({
      r1: rougeN(c, r, 1),
      r2: rougeN(c, r, 2),
      rl: rougeL(c, r),
      words: c.length,
      refWords: r.length,
    });
  }
  const mean = (k: keyof (typeof scores)[number]) => scores.reduce((s, x) => s + x[k], 0) / scores.length;
  return {
    meetings: scores.length,
    rouge1: mean('r1'),
    rouge2: mean('r2'),
    rougeL: mean('rl'),
    summaryWords: mean('words'),
    referenceWords: mean('refWords'),
  };
}

if (process.argv[1]?.endsWith('quality.ts')) {
  const verbose = process.argv.includes('--verbose');
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const out: string[] = [];
  const figures: Record<string, unknown> = {};
  const NAMES: Record<ExcerptSet, string> = {
    dev: 'development',
    dev2: 'second development',
    dev3: 'third development',
    dev4: 'fourth development',
    dev5: 'fifth development',
    heldout: 'held-out',
    train: 'detector training',
    test: 'first final test',
    final: 'final test',
    train2: 'second detector training',
    final2: 'third final test',
    train3: 'third detector training',
  };
  type Figures = Omit<ReturnType<typeof evaluateActionItems>, 'lines'>;
  const report = (name: string, f: Figures) =>
    out.push(
      `Action items, ${name} set (${f.excerpts} excerpts, ${f.gold} labelled items, ${f.goldWithAssignee} with an assignee):`,
      `  predicted ${f.predicted}, correct ${f.truePositives}, right text but wrong assignee ${f.wrongAssignee}`,
      `  precision ${pct(f.precision)}  recall ${pct(f.recall)}  F1 ${pct(f.f1)}`,
      `  due dates predicted (none is scored in these excerpts): ${f.predictedDues}`,
    );
  const otherLine = (name: string, f: Figures) =>
    out.push(
      `  ${name}: predicted ${f.predicted}, correct ${f.truePositives}, precision ${pct(f.precision)}  recall ${pct(f.recall)}  F1 ${pct(f.f1)}`,
    );
  // The analyzer as shipped with EMBEDDER=builtin (the detector with sentence vectors; `--words` for the
  // words-only detector, as with EMBEDDER=glove/none), beside the words-only detector and the rules alone.
  const useVectors = !process.argv.includes('--words');
  const vectorsOf = async (set: ExcerptSet) => {
    if (!useVectors) return undefined;
    const excerpts = loadLabelledSet(set);
    const vectors = await sentenceVectors(excerpts);
    return new Map(excerpts.map((e, i) => [e.id, vectors[i]!] as const));
  };
  const measure = async (set: ExcerptSet, verboseSet: boolean) => {
    const vectors = await vectorsOf(set);
    const { lines, ...f } = evaluateActionItems(set, {
      verbose: verboseSet,
      ...(vectors ? { vectors } : {}),
    });
    const { lines: _, ...words } = evaluateActionItems(set);
    const { lines: __, ...rules } = evaluateActionItems(set, { rulesOnly: true });
    figures[set] = { ...f, wordsOnly: words, rulesAlone: rules };
    if (verboseSet) out.push(`${set}:`, ...lines, '');
    report(NAMES[set], f);
    if (useVectors) otherLine('words-only detector', words);
    otherLine('rules alone', rules);
    return f;
  };
  const development: Figures[] = [];
  for (const set of ['dev', 'dev2', 'dev3', 'dev4', 'dev5', 'train', 'train2', 'train3'] as const) {
    const f = await measure(set, verbose);
    if (!set.startsWith('train')) development.push(f);
  }
  // The development sets together: the figure to tune against.
  const sum = (k: keyof Figures) => development.reduce((total, f) => total + f[k], 0);
  const [predicted, truePositives, gold] = [sum('predicted'), sum('truePositives'), sum('gold')];
  const precision = predicted ? truePositives / predicted : 1;
  const recall = gold ? truePositives / gold : 1;
  const combined: Figures = {
    excerpts: sum('excerpts'),
    gold,
    goldWithAssignee: sum('goldWithAssignee'),
    predicted,
    truePositives,
    precision,
    recall,
    f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0,
    wrongAssignee: sum('wrongAssignee'),
    predictedDues: sum('predictedDues'),
  };
  figures.development = combined;
  report('combined development', combined);
  // Never shown item by item: the held-out set stays unseen while tuning.
  if (!process.argv.includes('--no-heldout')) await measure('heldout', false);
  if (process.argv.includes('--final')) {
    // The final test sets: never shown item by item. `test` was measured several times before this round;
    // `final` is measured once, at the end.
    await measure('test', false);
    await measure('final', false);
  }
  // Issue 17's third round: its blind check, measured once at the end of the round.
  if (process.argv.includes('--final2')) await measure('final2', false);
  await closeSentenceModel();
  if (process.argv.includes('--no-summaries')) {
    process.stdout.write(`${out.join('\n')}\n`);
    if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
    process.exit(0);
  }
  const summaries = evaluateSummaries();
  figures.summaries = summaries;
  out.push(
    `Summaries (${summaries.meetings} meetings with a whole-meeting summary query):`,
    `  ROUGE-1 ${pct(summaries.rouge1)}  ROUGE-2 ${pct(summaries.rouge2)}  ROUGE-L ${pct(summaries.rougeL)} (F1, Porter-stemmed)`,
    `  summary length ${summaries.summaryWords.toFixed(0)} words, reference ${summaries.referenceWords.toFixed(0)} words`,
    '',
  );
  process.stdout.write(out.join('\n'));
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
}
