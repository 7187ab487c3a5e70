import { describe, expect, it } from 'vitest';
import type { EventBody } from '../../src/features/events/events.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import {
  createWebhook,
  emit,
  eventually,
  listDeliveries,
  SECRET,
  sampleData,
  verifySignatures,
} from './fixtures.ts';
import { useReceiver } from './receiver.ts';
import { spawnWorker, useWorkerProcesses, type WorkerProcess } from './worker-process.ts';

const SETTINGS = {
  WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOKS_RETRY_SCHEDULE: '0.2,0.4,0.8',
  WEBHOOKS_POLL_MS: '50',
  // Leases run out 1 s after the timeout: a killed worker's deliveries are taken over within ~3 s.
  WEBHOOKS_TIMEOUT_MS: '2000',
  WEBHOOKS_LEASE_SECONDS: '1',
};

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect, SETTINGS);
    const { receiver, pathOf, requestsTo } = useReceiver();
    const workers = useWorkerProcesses();

    it('a worker process killed (SIGKILL) with deliveries in flight loses nothing: a restarted one sends every event', async () => {
      const t = await h.tenant();
      const path = pathOf('crash');
      // Slow answers keep attempts in flight when the worker dies.
      receiver().respond((req) => (req.path === path ? { status: 200, delayMs: 1500 } : { status: 200 }));
      const wh = await createWebhook(h, t.liveKey, { url: `${receiver().url}${path}`, secret: SECRET });
      const notes = Array.from(
        { length: 10 },
        (_, i) => `note_crash${i}${Math.random().toString(36).slice(2)}`,
      );
      const events: EventBody[] = [];
      for (const type of ['note.created', 'note.processed'] as const) {
        for (const note of notes) events.push(await emit(h, t, type, sampleData(type, note)));
      }

      const first = await spawnWorker(h.db.database, SETTINGS);
      workers.push(first);
      await eventually(async () => requestsTo(path).length >= 5, 15_000);
      await first.kill('SIGKILL');
      const seenBeforeCrash = new Set(requestsTo(path).map((r) => r.headers['webhook-id']));
      expect(seenBeforeCrash.size).toBeLessThan(events.length);

      receiver().respond(() => ({ status: 200 }));
      const second = await spawnWorker(h.db.database, SETTINGS);
      workers.push(second);
      await eventually(async () => {
        const got = new Set(requestsTo(path).map((r) => r.headers['webhook-id']));
        return events.every((e) => got.has(e.id));
      }, 20_000);

      for (const req of requestsTo(path)) {
        const body = verifySignatures(req, SECRET) as { id: string };
        expect(req.headers['webhook-id']).toBe(body.id);
        expect(req.headers['x-svc-delivery']).toBe(body.id);
      }
      // The attempts the dead worker had in flight were sent again, with the same webhook-id.
      const resent = [...seenBeforeCrash].filter(
        (id) => requestsTo(path).filter((r) => r.headers['webhook-id'] === id).length > 1,
      );
      expect(resent.length).toBeGreaterThan(0);
      // Per note, note.created still arrived before note.processed on the first complete delivery.
      const log = await eventually(async () => {
        const all = await listDeliveries(h, t.liveKey, wh.id);
        return all.length === events.length && all.every((d) => d.status === 'succeeded') ? all : undefined;
      }, 10_000);
      const lost = log.filter((d) => d.attempts.some((a) => /worker stopped/.test(a.error ?? '')));
      expect(lost.length).toBeGreaterThan(0);
      for (const d of lost) expect(d.attempt_count).toBeGreaterThanOrEqual(2);
    }, 60_000);

    if (dialect === 'postgres') {
      it('two worker processes share the outbox without sending any event twice', async () => {
        const t = await h.tenant();
        const path = pathOf('shared');
        receiver().respond((req) => (req.path === path ? { status: 200, delayMs: 5 } : { status: 200 }));
        await createWebhook(h, t.liveKey, { url: `${receiver().url}${path}` });
        const settings = { ...SETTINGS, WEBHOOKS_CONCURRENCY: '4', WEBHOOKS_POLL_MS: '20' };
        const a = await spawnWorker(h.db.database, { ...settings, TEST_WORKER_ID: 'worker-a' });
        const b = await spawnWorker(h.db.database, { ...settings, TEST_WORKER_ID: 'worker-b' });
        workers.push(a, b);
        const events: EventBody[] = [];
        for (let i = 0; i < 200; i++) events.push(await emit(h, t, 'note.created'));
        await eventually(async () => requestsTo(path).length >= events.length, 30_000);
        // Give a duplicate time to show up.
        await new Promise((r) => setTimeout(r, 500));
        const ids = requestsTo(path).map((r) => r.headers['webhook-id']);
        expect(ids.length).toBe(events.length);
        expect(new Set(ids).size).toBe(events.length);
        const delivered = (w: WorkerProcess) => w.logs().filter((l) => l.msg === 'webhook delivered').length;
        expect(delivered(a)).toBeGreaterThan(0);
        expect(delivered(b)).toBeGreaterThan(0);
        expect(delivered(a) + delivered(b)).toBe(events.length);
      }, 60_000);
    }
  });
}
