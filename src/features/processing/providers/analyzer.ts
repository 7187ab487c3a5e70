import type { Logger } from 'pino';
import type { Config } from '../../../config.ts';
import { type Analysis, type AnalysisInput, analyzeTranscript } from '../analyze-builtin.ts';
import { createOpenAiAnalyzer } from './openai-analyzer.ts';

export interface AnalyzeContext {
  logger: Logger;
  /** True on the job's last attempt: a provider that could retry must settle for its fallback instead. */
  lastAttempt: boolean;
}

/** Transcript → title, summary, action items and highlights. */
export interface Analyzer {
  readonly name: string;
  analyze(input: AnalysisInput, ctx: AnalyzeContext): Promise<Analysis>;
}

/** The offline analyzer: deterministic, no network. */
export const builtinAnalyzer: Analyzer = {
  name: 'builtin',
  analyze: async (input) => analyzeTranscript(input),
};

/** The configured analyzer (ANALYZER=builtin|openai). */
export function createAnalyzer(config: Config['analysis']): Analyzer {
  switch (config.provider) {
    case 'builtin':
      return builtinAnalyzer;
    case 'openai':
      return createOpenAiAnalyzer(config, builtinAnalyzer);
  }
}
