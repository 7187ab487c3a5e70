import type { TranscriptSegment } from '../../src/features/transcripts/parse-transcript.ts';
import { runEveryStage, runPipeline } from './adversarial-text.ts';

/** One adversarial case in a thread of its own, so that a case that never ends can be stopped (a thread is). */
export default function runCase({
  text,
  segments,
  pipeline,
}: {
  text: string;
  segments?: TranscriptSegment[];
  /** Only what the pipeline does (`runPipeline`). */
  pipeline?: boolean;
}): void {
  if (pipeline) runPipeline(text);
  else runEveryStage(text, segments);
}
