import { type SentenceModelSettings, sentenceModel } from './action-items/sentence-model.ts';
import { transcriptLanguage } from './detect-language.ts';
import {
  type ExtractedActionItem,
  type ExtractOptions,
  extractActionItems,
  type SpeakerDirectory,
  sentencesToEmbed,
} from './extract-action-items.ts';
import { makeTitle } from './make-title.ts';
import { type ExtractedHighlight, pickHighlights } from './pick-highlights.ts';
import { splitSentences } from './sentences.ts';
import { scoreSentences, summarizeTranscript } from './summarize.ts';

export interface AnalysisInput {
  segments: readonly { speaker: string; start_ms: number; end_ms: number; text: string }[];
  /** Display names of speaker labels; a label without one is shown as is. */
  speakers: readonly { label: string; name: string }[];
  /** When the note was recorded (ISO 8601): "by Friday" means the Friday after this. */
  createdAt: string;
  /** The note's language (BCP 47) when its owner gave one; a language model writes the notes in it. */
  language?: string;
  /**
   * The sentence model for the action-item detector (EMBEDDER=builtin: all-MiniLM-L6-v2); absent, or when it
   * cannot be loaded, the detector uses words only. Read by `analyzeTranscriptWithModel`.
   */
  sentenceModel?: SentenceModelSettings;
}

/** What analysis adds to a note. */
export interface Analysis {
  title: string;
  summary: string;
  action_items: ExtractedActionItem[];
  highlights: ExtractedHighlight[];
  /** What the analysis could not do and why (the note's `analysis_notes`); absent when it did everything. */
  analysis_notes?: string;
}

/**
 * The offline analyzer: deterministic (same transcript, same result), no network. Extractive summary and title
 * by word-frequency salience, action items found by rules and a small learned detector (with assignee and due
 * date), highlights from explicit markers plus the most salient statements. `options.actionItems` changes how
 * action items are found (tests of the rules alone pass `{ detector: null }`).
 */
export function analyzeTranscript(
  input: AnalysisInput,
  options: { actionItems?: ExtractOptions } = {},
): Analysis {
  const sentences = scoreSentences(splitSentences(input.segments));
  const speakers = createSpeakerDirectory(input.speakers);
  const speakerNames = input.segments.map((s) => speakers.nameOf(s.speaker));
  const language = transcriptLanguage(input.segments, input.language);
  if (!language.english) {
    // The action-item rules, the detector and the highlight markers read English: in another language they
    // would find nothing or nonsense, so the note says what it has instead.
    return {
      title: makeTitle(sentences, speakerNames),
      summary: summarizeTranscript(sentences),
      action_items: [],
      highlights: [],
      analysis_notes: `This note is in ${language.name} (${language.detected ? 'detected' : 'as given'}), and the builtin analyzer writes English only: the title and summary are sentences taken from the transcript, and no action items or highlights were looked for. An analyzer using a language model (ANALYZER=openai) writes notes in the note's language.`,
    };
  }
  return {
    title: makeTitle(sentences, speakerNames),
    summary: summarizeTranscript(sentences),
    action_items: extractActionItems(sentences, speakers, input.createdAt, options.actionItems),
    highlights: pickHighlights(sentences),
  };
}

/**
 * `analyzeTranscript` with the action-item detector's sentence vectors, when `input.sentenceModel` is set and the
 * model loads: the sentences the rules propose (`sentencesToEmbed`) are embedded in this thread, then analysed.
 * Meant for a processing thread (the model runs on the calling thread).
 */
export async function analyzeTranscriptWithModel(input: AnalysisInput): Promise<Analysis> {
  const embed = input.sentenceModel ? await sentenceModel(input.sentenceModel) : undefined;
  if (!embed || !transcriptLanguage(input.segments, input.language).english) return analyzeTranscript(input);
  const sentences = splitSentences(input.segments);
  const wanted = sentencesToEmbed(sentences, createSpeakerDirectory(input.speakers));
  let rows: Float32Array[];
  try {
    rows = await embed(wanted.map((i) => sentences[i]!.text));
  } catch {
    return analyzeTranscript(input);
  }
  const vectors: (Float32Array | undefined)[] = sentences.map(() => undefined);
  wanted.forEach((i, k) => {
    vectors[i] = rows[k];
  });
  return analyzeTranscript(input, { actionItems: { vectors } });
}

/** Resolves labels and spoken names ("Maria", "maria lopez", "Speaker 2") to display names. */
export function createSpeakerDirectory(
  speakers: readonly { label: string; name: string }[],
): SpeakerDirectory {
  const byLabel = new Map(speakers.map((s) => [s.label, s.name]));
  const bySpoken = new Map<string, string>();
  for (const { label, name } of speakers) {
    for (const alias of [name, name.split(/\s+/)[0] ?? '', label]) {
      const key = alias.trim().toLowerCase();
      // A first name two speakers share identifies neither.
      if (!key) continue;
      if (bySpoken.has(key) && bySpoken.get(key) !== name) bySpoken.set(key, '');
      else bySpoken.set(key, name);
    }
  }
  return {
    nameOf: (label) => byLabel.get(label) || label,
    resolve: (spoken) => bySpoken.get(spoken.trim().toLowerCase()) || undefined,
    names: [...new Set(speakers.map((s) => s.name || s.label))],
  };
}
