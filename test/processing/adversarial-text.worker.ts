import type { TranscriptSegment } from '../../src/features/processing/parse-transcript.ts';
import { runEveryStage } from './adversarial-text.ts';

/** One adversarial case in a thread of its own, so that a case that never ends can be stopped (a thread is). */
export default function runCase({ text, segments }: { text: string; segments?: TranscriptSegment[] }): void {
  runEveryStage(text, segments);
}
