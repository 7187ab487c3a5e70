import type { Config } from '../../../config.ts';
import { createOpenAiTranscriber } from './openai-transcriber.ts';
import type { Transcriber } from './transcriber.ts';

/** The configured transcriber, or undefined when none is (TRANSCRIBER=none). */
export function createTranscriber(config: Config['transcription']): Transcriber | undefined {
  switch (config.provider) {
    case 'none':
      return undefined;
    case 'openai':
      return createOpenAiTranscriber(config);
  }
}
