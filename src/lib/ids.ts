import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Id prefixes of every resource; ids are prefix + 24 base62 chars from a CSPRNG. */
export const ID_PREFIX = {
  note: 'note_',
  recording: 'rec_',
  highlight: 'hl_',
  actionItem: 'ai_',
  webhook: 'wh_',
  event: 'evt_',
  delivery: 'dlv_',
  apiKey: 'key_',
  request: 'req_',
  account: 'acct_',
  job: 'job_',
  segment: 'seg_',
  user: 'user_',
  import: 'imp_',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/** Uniform random base62 string (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** True when the value has the form of an id of that kind (prefix + 24 base62 characters). */
export function isId(kind: IdKind, value: string): boolean {
  const prefix = ID_PREFIX[kind];
  return value.startsWith(prefix) && /^[0-9A-Za-z]{24}$/.test(value.slice(prefix.length));
}

export function newId(kind: IdKind): string {
  return ID_PREFIX[kind] + randomBase62(24);
}
