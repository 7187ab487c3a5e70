/**
 * Fits the relevance model (src/features/search/relevance-model.ts) on gathered author-set queries: a logistic
 * regression of "this note is the query's note" on the features rankNotes computes, over each query's best
 * CANDIDATES notes by fused score (off-topic queries give only negatives), with a light L2 penalty on
 * standardised features. The intercept is then moved to the value that, replayed through rankNotes on the same
 * training queries, puts the most right-first results at ≥ 0.5 while at most ALARM_BUDGET of the off-topic
 * queries reach 0.5 (the goal is 10 %; the margin is for authors not fitted on).
 */
import { type NoteEvidence, type RankParams, rankNotes } from '../../src/features/search/rank.ts';
import {
  RELEVANCE_FEATURES,
  type RelevanceFeature,
  type RelevanceModel,
} from '../../src/features/search/relevance-model.ts';
import { authorMetrics, type QueryOutcome } from './author-sets.ts';

/** One query as gathered: its evidence and, for an on-topic query, the note it is about. */
export interface GatheredQuery {
  set: string;
  kind: string;
  query: string;
  offTopic: boolean;
  target?: string;
  spaceSize: number;
  evidence: NoteEvidence[];
}

const CANDIDATES = 3;
const ALARM_BUDGET = 0.08;
const L2 = 0.01;
/** Margins above the semantic line tried for meaning alone (1: meaning alone never decides). */
const MARGINS = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 1];
const STEPS = 3000;
const RATE = 0.5;

export function fitRelevanceModel(
  queries: readonly GatheredQuery[],
  features: readonly RelevanceFeature[] = RELEVANCE_FEATURES,
): RelevanceModel {
  const rows: { x: number[]; y: number }[] = [];
  for (const q of queries) {
    const ranked = rankNotes(q.evidence, q.spaceSize, undefined, null)
      .sort((a, b) => b.score - a.score)
      .slice(0, CANDIDATES);
    for (const r of ranked)
      rows.push({ x: features.map((f) => r.features[f]!), y: r.noteId === q.target ? 1 : 0 });
  }
  const d = features.length;
  const mean = features.map((_, j) => rows.reduce((s, r) => s + r.x[j]!, 0) / rows.length);
  const sd = features.map((_, j) =>
    Math.max(1e-6, Math.sqrt(rows.reduce((s, r) => s + (r.x[j]! - mean[j]!) ** 2, 0) / rows.length)),
  );
  const z = rows.map((r) => r.x.map((v, j) => (v - mean[j]!) / sd[j]!));
  const w = new Array<number>(d).fill(0);
  let b = 0;
  for (let step = 0; step < STEPS; step++) {
    const gw = new Array<number>(d).fill(0);
    let gb = 0;
    rows.forEach((r, i) => {
      const p = 1 / (1 + Math.exp(-(b + z[i]!.reduce((s, v, j) => s + v * w[j]!, 0))));
      const err = p - r.y;
      gb += err;
      for (let j = 0; j < d; j++) gw[j]! += err * z[i]![j]!;
    });
    b -= (RATE * gb) / rows.length;
    for (let j = 0; j < d; j++) w[j]! -= RATE * (gw[j]! / rows.length + L2 * w[j]!);
  }
  const weights = w.map((v, j) => v / sd[j]!);
  const bias = b - w.reduce((s, v, j) => s + (v * mean[j]!) / sd[j]!, 0);
  const sets = [...new Set(queries.map((q) => q.set))].sort();
  const model = (shift: number, margin: number): RelevanceModel => ({
    features: [...features],
    weights: weights.map((v) => Math.round(v * 1e4) / 1e4),
    bias: Math.round((bias + shift) * 1e4) / 1e4,
    meaningMargin: margin,
    tunedOn: `${sets.join(', ')} (${queries.length} queries); intercept for ≤ ${100 * ALARM_BUDGET} % off-topic alarms on them`,
  });
  let best: { shift: number; margin: number; first: number; alarms: number } | undefined;
  for (const margin of MARGINS) {
    for (let shift = -3; shift <= 3.001; shift += 0.2) {
      const m = authorMetrics(replay(queries, model(shift, margin)));
      const ok = m.falseAlarms <= ALARM_BUDGET;
      if (
        !best ||
        (ok && (best.alarms > ALARM_BUDGET || m.firstAndRelevant > best.first)) ||
        (!ok && best.alarms > ALARM_BUDGET && m.falseAlarms < best.alarms)
      )
        best = { shift, margin, first: m.firstAndRelevant, alarms: m.falseAlarms };
    }
  }
  return model(best!.shift, best!.margin);
}

/** Replays the API's ranking on gathered evidence: what searchNotes would have answered (10 results). */
export function replay(
  queries: readonly GatheredQuery[],
  model: RelevanceModel | null,
  params?: RankParams,
): QueryOutcome[] {
  return queries.map((q) => {
    const ranked = rankNotes(q.evidence, q.spaceSize, params, model).slice(0, 10);
    const at = q.target ? ranked.findIndex((r) => r.noteId === q.target) : -1;
    return {
      set: q.set,
      kind: q.kind,
      query: q.query,
      offTopic: q.offTopic,
      ...(at >= 0 ? { rank: at + 1 } : {}),
      ...(at === 0 ? { firstRelevance: ranked[0]!.relevance } : {}),
      maxRelevance: Math.max(0, ...ranked.map((r) => r.relevance)),
    };
  });
}
