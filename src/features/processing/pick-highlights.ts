import { tidySentence, truncateText } from './sentences.ts';
import { pickSalient, type ScoredSentence } from './summarize.ts';

export interface ExtractedHighlight {
  timestamp_ms: number;
  text: string;
}

const MAX_HIGHLIGHT_TEXT = 300;
/** A marker sentence shorter than this ("Bookmark that.") points at what was said just before it. */
const MIN_MARKED_WORDS = 6;
/** "Important" is a common word: in a long meeting only the most salient marked sentences make it. */
const MAX_MARKED = 5;
const MARKER =
  /\b(?:highlight|bookmark|important|key point|key takeaway|takeaway|remember this|note this)\b/i;
/** A marker used as a label in front of what it marks: "Important: …", "Key point - …". */
const LABELLED =
  /^\W*(?:highlight|bookmark|important|key point|key takeaway|takeaway|note)\s*[:\u2013\u2014-]\s*\S+(?:\s+\S+){2,}/i;

/**
 * Highlights: every sentence marked as one ("highlight", "bookmark", "important", "key point") plus the
 * 1–3 most salient statements, each at the start of its speaker turn, in transcript order.
 */
export function pickHighlights(sentences: readonly ScoredSentence[]): ExtractedHighlight[] {
  const marked = new Map<number, ScoredSentence>();
  for (const sentence of sentences) {
    if (!MARKER.test(sentence.text)) continue;
    const previous = sentences[sentence.index - 1];
    // "Bookmark that." points back; "Important: the launch moves online." is the highlight itself.
    const pointsBack = sentence.words.length < MIN_MARKED_WORDS && !LABELLED.test(sentence.text);
    const target = pointsBack && previous ? previous : sentence;
    marked.set(target.index, target);
  }
  const chosen = new Map(
    [...marked.values()]
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .slice(0, MAX_MARKED)
      .map((s) => [s.index, s]),
  );
  const salientCount = sentences.length < 10 ? 1 : sentences.length < 40 ? 2 : 3;
  const statements = (s: ScoredSentence) =>
    s.words.length >= 6 && !s.text.endsWith('?') && !chosen.has(s.index);
  for (const sentence of pickSalient(sentences, salientCount, statements))
    chosen.set(sentence.index, sentence);
  return [...chosen.values()]
    .sort((a, b) => a.index - b.index)
    .map((s) => ({ timestamp_ms: s.startMs, text: truncateText(tidySentence(s.text), MAX_HIGHLIGHT_TEXT) }));
}
