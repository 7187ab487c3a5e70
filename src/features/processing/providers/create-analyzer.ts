import type { Config } from '../../../config.ts';
import { type Analyzer, builtinAnalyzer } from './analyzer.ts';
import { createOpenAiAnalyzer } from './openai-analyzer.ts';

/** The configured analyzer (ANALYZER=builtin|openai). */
export function createAnalyzer(config: Config['analysis']): Analyzer {
  switch (config.provider) {
    case 'builtin':
      return builtinAnalyzer;
    case 'openai':
      return createOpenAiAnalyzer(config, builtinAnalyzer);
  }
}
