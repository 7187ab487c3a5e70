import fs from 'node:fs';
import { DEFAULT_RANK_PARAMS, rankNotes } from '../../src/features/search/rank.ts';
const cross = JSON.parse(fs.readFileSync('/tmp/s13/cross.json','utf8')).queries;
let sem=0, rare=0, fit=0, n=0;
const causes: Record<string, number> = {};
const top: number[] = []; const pass: number[] = [];
for (const q of cross) {
  const r = rankNotes(q.evidence, q.spaceSize);
  const a = r.find((x) => x.relevance >= 0.5);
  if (!a) continue;
  n++;
  const e = q.evidence.find((x: any) => x.noteId === a.noteId);
  const k = e.rareTermsPresent ? 'rare' : (a.features.coverage <= 0.5 && a.features.zVector >= 2 && a.features.vector >= 0.3) ? 'semantic?' : 'fit';
  causes[k] = (causes[k] ?? 0) + 1;
  top.push(a.features.vector); pass.push(e.passages ?? 0);
}
console.log(n, causes);
const s = [...top].sort(); console.log('cos quantiles', [0.1,0.25,0.5,0.75,0.9].map(p=>s[Math.floor(p*s.length)]?.toFixed(3)));
const ps = [...pass].sort((a,b)=>a-b); console.log('passages quantiles', [0.1,0.25,0.5,0.75,0.9].map(p=>ps[Math.floor(p*ps.length)]));
