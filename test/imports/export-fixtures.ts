import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { runDueJobs } from '../../src/jobs/worker.ts';
import type { Harness } from '../helpers/harness.ts';

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Runs due jobs until none is left: every imported note processed. */
export async function processAll(h: Harness) {
  while ((await runDueJobs(h.deps)) > 0) {
    // every due job runs; a processed note enqueues nothing more
  }
}

/** The bytes GET /v1/recordings/:id/audio serves. */
export async function audioOf(h: Harness, key: string, recordingId: string): Promise<Buffer> {
  const res = await h.app.request(`/v1/recordings/${recordingId}/audio`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}
