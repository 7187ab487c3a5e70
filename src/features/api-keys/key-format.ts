import { createHash, timingSafeEqual } from 'node:crypto';
import type { Mode } from '../../db/schema.ts';
import { randomBase62 } from '../../lib/ids.ts';

const PREFIX: Record<Mode, string> = { live: 'svc_sk_live_', test: 'svc_sk_test_' };
/** 32 base62 characters ≈ 190 bits of randomness. */
const SECRET_LENGTH = 32;
const KEY_RE = /^svc_sk_(live|test)_([0-9A-Za-z]{32})$/;

export function generateApiKey(mode: Mode): string {
  return PREFIX[mode] + randomBase62(SECRET_LENGTH);
}

/** The mode a well-formed key claims, or null when the key is malformed. */
export function parseApiKey(key: string): Mode | null {
  const m = KEY_RE.exec(key);
  return m ? (m[1] as Mode) : null;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Shown in listings: the prefix and four characters, enough to tell keys apart, useless to an attacker. */
export function keyStart(key: string): string {
  return key.slice(0, PREFIX.live.length + 4);
}

/** Constant-time equality of two hex digests. */
export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
