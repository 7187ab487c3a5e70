import { loadAskMeetings } from './data.ts';
import { passageVectors } from './passage-vectors.ts';

const all = loadAskMeetings();
const order = [
  ...all.filter((m) => m.split === 'tune').slice(0, 40),
  ...all.filter((m) => m.split === 'heldout'),
];
const t = performance.now();
await passageVectors(order);
console.log(order.length, ((performance.now() - t) / 1000).toFixed(1), 's');
