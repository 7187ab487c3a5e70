import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultDetector } from '../../src/features/processing/action-items/detector.ts';
import { createSpeakerDirectory } from '../../src/features/processing/analyze-builtin.ts';
import { extractActionItems, ruleCandidates } from '../../src/features/processing/extract-action-items.ts';
import { splitSentences } from '../../src/features/processing/sentences.ts';
import { MiniLmEmbedder } from '../../src/features/search/embedders/minilm-embedder.ts';

/**
 * `npx tsx bench/ingest/clean-probe.ts`: the plain, clean-English tasks a user of a clean transcript expects as
 * items (commitments, requests by name, team to-dos), each in a short meeting of its own, scored by the shipped
 * detector with sentence vectors: which survive its thresholds. Written for this check, not taken from any
 * labelled set; a threshold that drops these is a regression for the service, whatever QMSum says.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PEOPLE = [
  { label: 'Speaker 1', name: 'Alice Chen' },
  { label: 'Speaker 2', name: 'Bob Smith' },
  { label: 'Speaker 3', name: 'Maria Lopez' },
];
export const CLEAN_TASKS: [string, string][] = [
  ['Speaker 1', 'We need to finalize the launch budget for the March release.'],
  ['Speaker 1', 'Maria will send the report by Friday.'],
  ['Speaker 2', "I'll send the minutes."],
  ['Speaker 2', "I'd be happy to write the summary."],
  ['Speaker 1', 'Maria, can you send the deck to the client?'],
  ['Speaker 3', 'I will update the pricing page.'],
  ['Speaker 1', 'Bob, please book a room for the offsite.'],
  ['Speaker 2', 'We have to review the contract before we sign it.'],
  ['Speaker 3', "I'm going to draft the job description."],
  ['Speaker 1', "Let's schedule a follow-up with the vendor."],
  ['Speaker 2', 'I need to check the numbers with finance.'],
  ['Speaker 1', 'Bob is going to prepare the demo for the customer.'],
  ['Speaker 3', "I'll follow up with legal about the privacy policy."],
  ['Speaker 1', 'We should migrate the database before the end of the quarter.'],
  ['Speaker 2', 'Maria, could you share the slides with the team?'],
  ['Speaker 3', 'I can write the test plan.'],
];

if (process.argv[1]?.endsWith('clean-probe.ts')) {
  const embedder = await MiniLmEmbedder.load(process.env.MODELS_DIR ?? path.join(ROOT, 'data/models'), {
    threads: 1,
  });
  const detector = defaultDetector();
  const t = detector.thresholds(true);
  const speakers = createSpeakerDirectory(PEOPLE);
  const lines = [`thresholds: keep ${t.keep}, commitments ${t.keepCommitted}`];
  let kept = 0;
  for (const turn of CLEAN_TASKS) {
    const sentences = splitSentences([{ speaker: turn[0], start_ms: 0, text: turn[1] }]);
    const vectors = await embedder.embed(
      sentences.map((s) => s.text),
      'passage',
    );
    const [p] = detector.score(sentences, { names: speakers.names ?? [] }, vectors);
    const rule = ruleCandidates(sentences, speakers)[0]!.found.map((m) => m.rule);
    const items = extractActionItems(sentences, speakers, '2026-11-23T10:00:00.000Z', { vectors });
    if (items.length) kept++;
    lines.push(`${items.length ? 'kept ' : 'LOST '} p=${p!.toFixed(3)} ${rule.join(',')}: ${turn[1]}`);
  }
  lines.push(`${kept} of ${CLEAN_TASKS.length} kept`);
  await embedder.close();
  process.stdout.write(`${lines.join('\n')}\n`);
}
