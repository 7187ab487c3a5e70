/**
 * Issue 11, item 7: one account's dead receivers do not delay another account's deliveries. Claims are round
 * robin across accounts and modes, and a worker keeps at most WEBHOOKS_CONCURRENCY_PER_ACCOUNT attempts of one
 * account and mode in flight, so slots stay free for the others. The tests assert progress and order, never
 * durations.
 */
import { describe, expect, it } from 'vitest';
import { deliveriesRepo, spaceKey } from '../../src/features/webhooks/delivery/deliveries.repo.ts';
import { fanOutEvents } from '../../src/features/webhooks/delivery/fan-out-events.ts';
import { startWebhookWorker } from '../../src/features/webhooks/webhook-worker.ts';
import { webhooksDb } from '../../src/features/webhooks/webhooks.tables.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { createWebhook, emit, eventually, listDeliveries } from './fixtures.ts';
import { startReceiver } from './receiver.ts';

const PER_ACCOUNT = 8;
const ENV = {
  WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOKS_RETRY_SCHEDULE: '60,60,60',
  WEBHOOKS_MAX_PER_ACCOUNT: '100',
  WEBHOOKS_CONCURRENCY: '32',
  WEBHOOKS_CONCURRENCY_PER_ACCOUNT: String(PER_ACCOUNT),
  // Attempts to receivers that never answer stay in flight for the whole test.
  WEBHOOKS_TIMEOUT_MS: '120000',
  WEBHOOKS_POLL_MS: '50',
};

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect, ENV);

    it('a claim takes due deliveries round robin across accounts, each up to its room', async () => {
      const a = await h.tenant();
      const b = await h.tenant();
      await createWebhook(h, a.liveKey, { url: 'https://a.example/hook' });
      await createWebhook(h, b.liveKey, { url: 'https://b.example/hook' });
      // A's backlog is older than B's: by due order alone, a claim of 5 would take A's only.
      for (let i = 0; i < 10; i++) await emit(h, a, 'note.created');
      for (let i = 0; i < 2; i++) await emit(h, b, 'note.created');
      await fanOutEvents(h.deps.db, h.deps.dialect);
      const claim = (workerId: string, limit: number, busy: [string, number][]) => {
        const now = Date.now();
        return deliveriesRepo.claim(h.deps.db, h.deps.dialect, {
          workerId,
          now: new Date(now).toISOString(),
          lockedUntil: new Date(now + 60_000).toISOString(),
          limit,
          perSpace: { cap: 3, busy: new Map(busy) },
        });
      };
      const count = (rows: { account_id: string }[], id: string) =>
        rows.filter((r) => r.account_id === id).length;

      const first = await claim('w1', 5, []);
      expect(count(first, a.accountId)).toBe(3);
      expect(count(first, b.accountId)).toBe(2);
      // A's oldest three, in due order.
      const aSeqs = first.filter((r) => r.account_id === a.accountId).map((r) => Number(r.event_seq));
      expect(aSeqs).toEqual([...aSeqs].sort((x, y) => x - y));

      // A worker with 3 of A's attempts in flight gets none more of A's.
      expect(await claim('w1', 10, [[spaceKey(a.accountId, 'live'), 3]])).toHaveLength(0);
      // With one in flight, two more.
      const more = await claim('w2', 10, [[spaceKey(a.accountId, 'live'), 1]]);
      expect(count(more, a.accountId)).toBe(2);
      expect(count(more, b.accountId)).toBe(0);
    });

    it("account A's 100 never-answering receivers do not hold back account B's delivery", async () => {
      const receiver = await startReceiver((req) => (req.path.startsWith('/dead') ? { hang: true } : {}));
      const worker = startWebhookWorker(h.deps);
      try {
        const a = await h.tenant();
        const b = await h.tenant();
        for (let i = 0; i < 100; i++)
          await createWebhook(h, a.liveKey, { url: `${receiver.url}/dead/${i}`, events: ['note.created'] });
        const bHook = await createWebhook(h, b.liveKey, { url: `${receiver.url}/alive` });
        const deadRequests = () => receiver.requests.filter((r) => r.path.startsWith('/dead'));

        // A's event first: 100 deliveries, all due before B's.
        await emit(h, a, 'note.created');
        worker.wake();
        await eventually(async () => deadRequests().length >= PER_ACCOUNT, 30_000);
        const bEvent = await emit(h, b, 'note.created');
        worker.wake();

        const [arrived] = await eventually(async () => {
          const got = receiver.requests.filter((r) => r.path === '/alive');
          return got.length ? got : undefined;
        }, 30_000);
        expect(arrived!.headers['webhook-id']).toBe(bEvent.id);
        // B's delivery went out while every one of A's attempts was still hanging: it did not wait for a slot
        // that one of them had to free.
        expect(deadRequests().length).toBeLessThanOrEqual(PER_ACCOUNT);
        const [bDelivery] = await eventually(async () => {
          const log = await listDeliveries(h, b.liveKey, bHook.id);
          return log[0]?.status === 'succeeded' ? log : undefined;
        });
        expect(bDelivery!.attempt_count).toBe(1);
        const aAttempts = await webhooksDb(h.deps.db)
          .selectFrom('delivery_attempts')
          .innerJoin('deliveries as d', 'd.id', 'delivery_attempts.delivery_id')
          .select('d.id')
          .where('d.account_id', '=', a.accountId)
          .execute();
        expect(aAttempts).toHaveLength(0);
      } finally {
        // Dropping the hanging connections ends A's attempts at once, so the worker stops promptly.
        await receiver.close();
        await worker.stop();
      }
    }, 90_000);
  });
}
