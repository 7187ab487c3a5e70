/**
 * Why a keyword query is not judged by its cosine (rank.ts `keywordQueryWords`, decision 42): the cosines of
 * all-MiniLM-L6-v2 between short keyword queries, questions, and two passages that hold their words.
 *   npx tsx bench/search-quality/short-query-cosines.ts
 * Prints one line per query: its cosine with the budget passage, then with the remote-control passage.
 */
import { getSearchEngine } from '../../src/features/search/search-engine.ts';
import { benchDeps, openBenchDatabase } from '../search/setup.ts';

const PASSAGES = [
  'Maya: The launch budget was exceeded by about twenty percent, mostly because the contractor invoices came in ' +
    'late and we had to pay for overtime. Leo: So we need to cut the marketing spend next quarter or ask finance ' +
    "for more. Maya: I'll prepare the cost report for the board by Friday.",
  'Project Manager: Okay, so the remote control. We need to decide on the buttons today. Industrial Designer: I ' +
    'think fewer buttons, a big volume button and channel buttons, and maybe a scroll wheel. Marketing: Our ' +
    'survey said people lose their remote all the time, so a locator beep would help.',
];
const QUERIES = [
  'budget',
  'cost report',
  'contractor invoices',
  'launch budget exceeded',
  'What did they decide about the budget?',
  'buttons',
  'remote control',
  'scroll wheel',
  'What did the designer say about the buttons of the remote?',
  'locator',
];

const database = await openBenchDatabase('sqlite');
const deps = benchDeps(database);
try {
  const engine = await getSearchEngine(deps);
  await engine.refresh();
  const embedder = engine.embedder;
  if (!embedder) throw new Error('no embedder: the sentence model did not load');
  const passages = await embedder.embed(PASSAGES, 'passage');
  const queries = await embedder.embed(QUERIES, 'query');
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
  for (const [i, q] of QUERIES.entries())
    process.stdout.write(
      `${q.padEnd(60)} ${passages.map((p) => dot(queries[i]!, p).toFixed(2)).join('  ')}\n`,
    );
} finally {
  await deps.close();
  await database.close();
}
