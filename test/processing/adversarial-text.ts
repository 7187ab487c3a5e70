import { analyzeTranscript, createSpeakerDirectory } from '../../src/features/processing/analyze-builtin.ts';
import { extractActionItems } from '../../src/features/processing/extract-action-items.ts';
import { keyPhrase, makeTitle } from '../../src/features/processing/make-title.ts';
import { pickHighlights } from '../../src/features/processing/pick-highlights.ts';
import { resolveDueDate } from '../../src/features/processing/resolve-due-date.ts';
import {
  cleanText,
  splitSentences,
  splitText,
  tidySentence,
  tokenize,
  truncateText,
} from '../../src/features/processing/sentences.ts';
import { scoreSentences, summarizeTranscript } from '../../src/features/processing/summarize.ts';
import { chunkNote, splitLongText } from '../../src/features/search/chunk-note.ts';
import { analyzeQuery } from '../../src/features/search/query.ts';
import { buildSnippet } from '../../src/features/search/snippet.ts';
import { porterStem } from '../../src/features/search/text/porter-stem.ts';
import { foldWord, tokenize as searchTokenize, words } from '../../src/features/search/text/tokens.ts';
import { parseTranscript, type TranscriptSegment } from '../../src/features/transcripts/parse-transcript.ts';
import { renderTranscript } from '../../src/features/transcripts/render-transcript.ts';
import { transcriptContentType } from '../../src/features/transcripts/store-transcript.ts';

/**
 * Every analyzer stage that user text goes through, one after the other, on one text: what the adversarial
 * property test and the timing probe both run.
 */
export function runEveryStage(text: string, segments?: TranscriptSegment[]): void {
  let parsed: TranscriptSegment[];
  try {
    parsed = segments ?? parseTranscript(text);
  } catch {
    parsed = [{ speaker: 'A', start_ms: 0, end_ms: 1, text }];
  }
  transcriptContentType({ transcript: text });
  renderTranscript(parsed);
  renderTranscript([{ speaker: 'A', text }]);
  const speakers = [...new Set(parsed.map((s) => s.speaker))].map((label, i) => ({
    label,
    name: i % 2 ? label : `${label} Lopez`,
  }));
  cleanText(text);
  splitText(text);
  tidySentence(text);
  truncateText(text, 80);
  tokenize(text);
  const sentences = scoreSentences(splitSentences(parsed));
  summarizeTranscript(sentences);
  makeTitle(
    sentences,
    parsed.map((s) => s.speaker),
  );
  keyPhrase(text);
  pickHighlights(sentences);
  extractActionItems(sentences, createSpeakerDirectory(speakers), '2024-03-04T10:00:00Z');
  // The direct sentence path too: one "sentence" holding all of the text, as no splitter would leave it.
  extractActionItems(
    [{ index: 0, segmentIndex: 0, speaker: 'A', startMs: 0, text, words: tokenize(text) }],
    createSpeakerDirectory(speakers),
    '2024-03-04T10:00:00Z',
  );
  resolveDueDate(text, '2024-03-04T10:00:00Z');
  const analysis = analyzeTranscript({ segments: parsed, speakers, createdAt: '2024-03-04T10:00:00Z' });
  const chunks = chunkNote({
    title: analysis.title || text,
    summary: text,
    segments: parsed,
    speakers,
    highlights: [{ timestamp_ms: 0, text }],
    actionItems: [{ text, assignee: null }],
  });
  splitLongText(text, 200);
  const query = analyzeQuery(text.slice(0, 1000));
  const weights = new Map(query.stems.map((s) => [s, 1]));
  buildSnippet({ text, startMs: 0, lineStarts: null }, weights);
  for (const chunk of chunks.slice(0, 5))
    buildSnippet({ text: chunk.text, startMs: 0, lineStarts: null }, weights);
  searchTokenize(text);
  words(text);
  for (const w of text.split(/\s+/).slice(0, 50)) {
    foldWord(w);
    porterStem(w.toLowerCase());
  }
  porterStem(text.toLowerCase());
}

/**
 * What the pipeline itself does with a transcript (parse, analyze, chunk), without the stages above that take
 * text no pipeline stage would give them (the whole raw text as one sentence): for texts far longer than the
 * property test's, where only a linear stage finishes. `npm run bench:isolation` times it on its adversarial
 * transcripts.
 */
export function runPipeline(text: string): void {
  const segments = parseTranscript(text);
  const speakers = [...new Set(segments.map((s) => s.speaker))].map((label) => ({
    label,
    name: `${label} Lopez`,
  }));
  const analysis = analyzeTranscript({ segments, speakers, createdAt: '2024-03-04T10:00:00Z' });
  chunkNote({
    title: analysis.title,
    summary: analysis.summary,
    segments,
    speakers,
    highlights: analysis.highlights,
    actionItems: analysis.action_items.map((a) => ({ text: a.text, assignee: a.assignee ?? null })),
  });
}
