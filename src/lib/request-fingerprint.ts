import { createHash } from 'node:crypto';

/**
 * What identifies "the same request" for Idempotency-Key: SHA-256 of `METHOD path`, a newline and the body as
 * `serializedBody` gives it. Pure, so a large body's fingerprint is taken in the processing thread that parsed
 * it and a small one's in place.
 */
export function requestFingerprint(methodAndPath: string, serialized: string): string {
  return createHash('sha256').update(`${methodAndPath}\n${serialized}`).digest('hex');
}

/**
 * A parsed body serialised for its fingerprint, or undefined when JSON.stringify overflows the stack (on bodies
 * nested thousands deep, which JSON.parse accepts): the caller then uses the body's text.
 */
export function serializedBody(body: unknown): string | undefined {
  try {
    return JSON.stringify(body);
  } catch {
    return undefined;
  }
}
