/**
 * `npm run bench:regex`: every regular-expression literal in src/ and every pattern of the action-item rule table
 * (most are built with `new RegExp`; other built patterns are not seen), checked by recheck (a ReDoS checker) and, where
 * it reports one vulnerable, timed on recheck's own attack string pumped to BENCH_REGEX_LENGTH characters
 * (100,000), as is and after `cleanText` (the form every sentence-level pattern sees: whitespace collapsed, so no
 * line breaks or runs of it), each in a thread stopped after BENCH_REGEX_LIMIT_MS (20 s). Slowest first, with a
 * count of those over a second; each of them is to be checked against the inputs it can meet.
 *
 * A review aid, not a CI gate (decision 48): recheck's fuzzing verdicts change from run to run, its automaton
 * checker cannot read lookarounds or back-references and takes minutes, and a verdict says nothing of the inputs
 * a pattern can meet. The timing on the attack string says whether it matters. The property test
 * (test/processing/adversarial-text.property.test.ts) keeps what this found from coming back.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { checkSync } from 'recheck';
import ts from 'typescript';
import { RULES } from '../../src/features/processing/action-items/rules.ts';
import { cleanText } from '../../src/features/processing/sentences.ts';

const LENGTH = Number(process.env.BENCH_REGEX_LENGTH ?? 100_000);
const LIMIT_MS = Number(process.env.BENCH_REGEX_LIMIT_MS ?? 20_000);
const SLOW_MS = 1_000;

interface Literal {
  where: string;
  source: string;
  flags: string;
}

function literals(): Literal[] {
  const files = execFileSync('git', ['ls-files', 'src'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter((file) => file.endsWith('.ts'));
  const found: Literal[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
        const text = node.getText(source);
        const end = text.lastIndexOf('/');
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push({ where: `${file}:${line + 1}`, source: text.slice(1, end), flags: text.slice(end + 1) });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** Milliseconds the pattern takes on the text, in a thread stopped at LIMIT_MS (then Infinity). */
function time(pattern: Literal, text: string): Promise<number> {
  const worker = new Worker(
    `const { parentPort, workerData: { source, flags, text } } = require('node:worker_threads');
     const re = new RegExp(source, flags);
     const start = performance.now();
     if (re.global) for (const _ of text.matchAll(re)); else re.exec(text);
     parentPort.postMessage(performance.now() - start);`,
    { eval: true, workerData: { source: pattern.source, flags: pattern.flags, text } },
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => void worker.terminate().then(() => resolve(Number.POSITIVE_INFINITY)),
      LIMIT_MS,
    );
    worker.once('message', (ms: number) => {
      clearTimeout(timer);
      void worker.terminate().then(() => resolve(ms));
    });
    worker.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

const format = (ms: number) => (Number.isFinite(ms) ? `${Math.round(ms)} ms` : `> ${LIMIT_MS / 1000} s`);

/** The rule table's patterns: most are built with `new RegExp` from shared pieces, which `literals` cannot read. */
function rulePatterns(): Literal[] {
  return RULES.flatMap((rule) =>
    (Array.isArray(rule.pattern) ? rule.pattern : [rule.pattern as RegExp]).map((p) => ({
      where: `rules.ts rule "${rule.name}"`,
      source: p.source,
      flags: p.flags,
    })),
  );
}

const found = literals();
const all = [
  ...found,
  ...rulePatterns().filter((r) => !found.some((l) => l.source === r.source && l.flags === r.flags)),
];
const rows: { where: string; summary: string; raw: number; cleaned: number }[] = [];
for (const pattern of all) {
  const verdict = checkSync(pattern.source, pattern.flags, { timeout: 10_000 });
  if (verdict.status !== 'vulnerable') continue;
  const pumps = verdict.attack.pumps;
  const unit = pumps.reduce((n, p) => n + p.pump.length, 0) || 1;
  const attack =
    pumps.map((p) => p.prefix + p.pump.repeat(Math.ceil(LENGTH / unit))).join('') + verdict.attack.suffix;
  rows.push({
    where: pattern.where,
    summary: verdict.complexity.summary,
    raw: await time(pattern, attack),
    cleaned: await time(pattern, cleanText(attack)),
  });
}
rows.sort((a, b) => Math.max(b.raw, b.cleaned) - Math.max(a.raw, a.cleaned));
console.log(
  `${all.length} literals; recheck calls ${rows.length} vulnerable; attack strings of ${LENGTH} characters:`,
);
for (const r of rows)
  console.log(`  ${format(r.raw).padStart(9)} ${format(r.cleaned).padStart(9)}  ${r.where} (${r.summary})`);
const slow = rows.filter((r) => Math.max(r.raw, r.cleaned) > SLOW_MS);
const slowCleaned = rows.filter((r) => r.cleaned > SLOW_MS);
console.log(
  `${slow.length} over ${SLOW_MS / 1000} s as is or after cleanText, ${slowCleaned.length} after cleanText.`,
  'Check each against the inputs it can meet.',
);
