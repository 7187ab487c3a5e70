/**
 * The worker's throughput machinery keeps its guarantees: batch claims (one statement for many deliveries)
 * never hand a delivery to two workers, outcomes are recorded only under a held lease, the dispatcher fans a
 * burst out batch by batch, and the cached DNS answers are still vetted on every attempt.
 */
import { describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/features/events/events.ts';
import { deliveriesRepo, type Outcome } from '../../src/features/webhooks/delivery/deliveries.repo.ts';
import { fanOutEvents, fanOutSome } from '../../src/features/webhooks/delivery/fan-out-events.ts';
import {
  createCachingLookup,
  createOutboundPolicy,
  resolveTarget,
  TargetRefusedError,
} from '../../src/features/webhooks/outbound/guarded-request.ts';
import { runDueDeliveries } from '../../src/features/webhooks/webhook-worker.ts';
import { webhooksDb } from '../../src/features/webhooks/webhooks.tables.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import {
  createWebhook,
  emit,
  listDeliveries,
  SECRET,
  sampleData,
  sleep,
  verifySignatures,
} from './fixtures.ts';
import { useReceiver } from './receiver.ts';

const iso = (ms: number) => new Date(ms).toISOString();

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect, { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' });
    const { receiver: currentReceiver, pathOf, requestsTo } = useReceiver();

    /** A webhook and `count` events of distinct notes, fanned out into pending deliveries. */
    async function pendingDeliveries(count: number, path = pathOf('batch')) {
      const t = await h.tenant();
      const wh = await createWebhook(h, t.liveKey, {
        url: `${currentReceiver().url}${path}`,
        secret: SECRET,
      });
      const events = [];
      for (let i = 0; i < count; i++) events.push(await emit(h, t, 'note.created'));
      await fanOutEvents(h.deps.db, h.deps.dialect);
      const ids = (
        await webhooksDb(h.deps.db)
          .selectFrom('deliveries')
          .select('id')
          .where('webhook_id', '=', wh.id)
          .execute()
      ).map((r) => r.id);
      return { t, wh, path, events, ids };
    }

    it('concurrent batch claims never hand one delivery to two workers', async () => {
      const { wh, ids } = await pendingDeliveries(120);
      const claimedBy = new Map<string, string[]>();
      const workers = ['w1', 'w2', 'w3', 'w4'];
      for (let round = 0; round < 20; round++) {
        const now = Date.now();
        // At once: on PostgreSQL each claim runs on its own connection (FOR UPDATE SKIP LOCKED).
        const claims = await Promise.all(
          workers.map((workerId) =>
            deliveriesRepo.claim(h.deps.db, h.deps.dialect, {
              workerId,
              now: iso(now),
              lockedUntil: iso(now + 60_000),
              limit: 25,
            }),
          ),
        );
        let any = false;
        claims.forEach((rows, i) => {
          for (const row of rows.filter((r) => r.webhook_id === wh.id)) {
            any = true;
            claimedBy.set(row.id, [...(claimedBy.get(row.id) ?? []), workers[i]!]);
            expect(row.locked_by).toBe(workers[i]);
            expect(Number(row.attempts)).toBe(1);
          }
        });
        if (!any) break;
      }
      expect([...claimedBy.keys()].sort()).toEqual([...ids].sort());
      for (const [, by] of claimedBy) expect(by).toHaveLength(1);
    });

    it('two worker passes at once send every event exactly once, signed, and record one attempt each', async () => {
      const path = pathOf('two-passes');
      currentReceiver().respond(() => ({ status: 200, body: 'ok' }));
      const { t, wh, events } = await pendingDeliveries(150, path);
      const [a, b] = await Promise.all([
        runDueDeliveries(h.deps, { workerId: 'pass-a' }),
        runDueDeliveries(h.deps, { workerId: 'pass-b' }),
      ]);
      expect(a + b).toBeGreaterThanOrEqual(150);
      const received = requestsTo(path);
      expect(received.map((r) => r.headers['webhook-id']).sort()).toEqual(events.map((e) => e.id).sort());
      for (const request of received) verifySignatures(request, SECRET);
      const deliveries = await listDeliveries(h, t.liveKey, wh.id, 'per_page=100');
      const more = await listDeliveries(h, t.liveKey, wh.id, 'per_page=100&page=2');
      for (const d of [...deliveries, ...more]) {
        expect(d).toMatchObject({ status: 'succeeded', attempt_count: 1 });
        expect(d.attempts).toHaveLength(1);
        expect(d.attempts[0]).toMatchObject({ attempt: 1, status_code: 200 });
      }
    });

    it('an outcome is recorded only while its lease is held; a takeover logs the lost attempt', async () => {
      const { t, wh, ids } = await pendingDeliveries(1);
      const [id] = ids;
      const claim = (workerId: string, leaseMs: number) => {
        const now = Date.now();
        return deliveriesRepo.claim(h.deps.db, h.deps.dialect, {
          workerId,
          now: iso(now),
          lockedUntil: iso(now + leaseMs),
          limit: 100,
        });
      };
      const outcome = (attempt: number): Outcome => {
        const now = iso(Date.now());
        return {
          lease: { id: id!, attempt },
          next: { status: 'succeeded', now },
          attempt: {
            started_at: now,
            completed_at: now,
            duration_ms: 5,
            status_code: 200,
            error: null,
            response_body: 'ok',
          },
        };
      };
      expect((await claim('slow', 50)).map((r) => r.id)).toContain(id);
      await sleep(80);
      const takeover = (await claim('fresh', 60_000)).find((r) => r.id === id);
      expect(takeover).toMatchObject({ locked_by: 'fresh', attempts: 2, lease_lost: 1 });
      // The first worker reports late: fenced out (another worker holds the delivery now).
      expect(await deliveriesRepo.recordOutcomes(h.deps.db, h.deps.dialect, 'slow', [outcome(1)])).toEqual(
        new Set(),
      );
      // Right worker, stale attempt number: fenced out as well.
      expect(await deliveriesRepo.recordOutcomes(h.deps.db, h.deps.dialect, 'fresh', [outcome(1)])).toEqual(
        new Set(),
      );
      expect(await deliveriesRepo.recordOutcomes(h.deps.db, h.deps.dialect, 'fresh', [outcome(2)])).toEqual(
        new Set([id]),
      );
      const [delivery] = await listDeliveries(h, t.liveKey, wh.id);
      expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 2 });
      expect(delivery!.attempts).toHaveLength(2);
      expect(delivery!.attempts[0]!.error).toMatch(/worker stopped/);
      expect(delivery!.attempts[1]).toMatchObject({ attempt: 2, status_code: 200 });
    });

    it('a cycle records outcomes of several states in one go (retry, failure, success)', async () => {
      const { t, wh, ids } = await pendingDeliveries(3);
      const now = Date.now();
      const rows = await deliveriesRepo.claim(h.deps.db, h.deps.dialect, {
        workerId: 'mixed',
        now: iso(now),
        lockedUntil: iso(now + 60_000),
        limit: 100,
      });
      const mine = rows.filter((r) => ids.includes(r.id)).sort((a, b) => a.event_seq - b.event_seq);
      expect(mine).toHaveLength(3);
      const attempt = (status: number) => ({
        started_at: iso(now),
        completed_at: iso(now + 3),
        duration_ms: 3,
        status_code: status,
        error: status === 200 ? null : `The receiver answered ${status}, not a 2xx status.`,
        response_body: status === 200 ? 'ok' : 'nope',
      });
      const later = iso(now + 30_000);
      const result = await deliveriesRepo.cycle(h.deps.db, h.deps.dialect, {
        workerId: 'mixed',
        outcomes: [
          {
            lease: { id: mine[0]!.id, attempt: 1 },
            next: { status: 'succeeded', now: iso(now) },
            attempt: attempt(200),
          },
          {
            lease: { id: mine[1]!.id, attempt: 1 },
            next: { status: 'pending', now: iso(now), nextAttemptAt: later },
            attempt: attempt(500),
          },
          {
            lease: { id: mine[2]!.id, attempt: 1 },
            next: { status: 'failed', now: iso(now) },
            attempt: attempt(400),
          },
        ],
        claim: null,
      });
      expect(result.held).toEqual(new Set(mine.map((r) => r.id)));
      const byId = new Map((await listDeliveries(h, t.liveKey, wh.id)).map((d) => [d.id, d]));
      expect(byId.get(mine[0]!.id)).toMatchObject({ status: 'succeeded', attempt_count: 1 });
      expect(byId.get(mine[1]!.id)).toMatchObject({ status: 'pending', next_attempt_at: later });
      expect(byId.get(mine[1]!.id)!.attempts[0]).toMatchObject({ status_code: 500, duration_ms: 3 });
      expect(byId.get(mine[2]!.id)).toMatchObject({ status: 'failed' });
      expect(byId.get(mine[2]!.id)!.attempts[0]!.error).toMatch(/400/);
      // The retry is not due yet: nobody claims it.
      const again = await deliveriesRepo.claim(h.deps.db, h.deps.dialect, {
        workerId: 'other',
        now: iso(Date.now()),
        lockedUntil: iso(Date.now() + 60_000),
        limit: 100,
      });
      expect(again.map((r) => r.id)).not.toContain(mine[1]!.id);
    });

    it('fans a burst out one batch at a time when asked to, losing and repeating nothing', async () => {
      const t = await h.tenant();
      const path = pathOf('burst');
      const wh = await createWebhook(h, t.liveKey, {
        url: `${currentReceiver().url}${path}`,
        events: ['note.created'],
      });
      await h.deps.db.transaction().execute(async (trx) => {
        for (let i = 0; i < 520; i++)
          await recordEvent(
            trx,
            { accountId: t.accountId, mode: 'live' },
            'note.created',
            sampleData('note.created'),
          );
      });
      const first = await fanOutSome(h.deps.db, h.deps.dialect, { maxBatches: 1 });
      expect(first).toEqual({ created: 500, more: true });
      const rest = await fanOutSome(h.deps.db, h.deps.dialect, { maxBatches: 1 });
      expect(rest).toEqual({ created: 20, more: false });
      expect(await fanOutSome(h.deps.db, h.deps.dialect, { maxBatches: 1 })).toEqual({
        created: 0,
        more: false,
      });
      const count = await webhooksDb(h.deps.db)
        .selectFrom('deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('webhook_id', '=', wh.id)
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(520);
    });
  });
}

describe('cached DNS answers (createCachingLookup)', () => {
  const strict = createOutboundPolicy({ allowPrivateTargets: false, allowHosts: [] });
  const counting = (answer: () => { address: string; family: number }[] | Error) => {
    const calls: string[] = [];
    const lookup = async (host: string) => {
      calls.push(host);
      const a = answer();
      if (a instanceof Error) throw a;
      return a;
    };
    return { calls, lookup };
  };

  it('still refuses a private answer on every attempt (the answer is cached, not the verdict)', async () => {
    const { calls, lookup } = counting(() => [{ address: '169.254.169.254', family: 4 }]);
    const cached = createCachingLookup({ lookup });
    for (let i = 0; i < 3; i++) {
      await expect(resolveTarget(new URL('https://metadata.example/x'), strict, cached)).rejects.toThrow(
        TargetRefusedError,
      );
    }
    expect(calls).toEqual(['metadata.example']);
    const mixed = createCachingLookup({
      lookup: async () => [
        { address: '93.184.215.14', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ],
    });
    await expect(resolveTarget(new URL('https://mixed.example/x'), strict, mixed)).rejects.toMatchObject({
      detail: expect.stringMatching(/10\.0\.0\.7/),
    });
    await expect(resolveTarget(new URL('https://mixed.example/x'), strict, mixed)).rejects.toMatchObject({
      detail: expect.stringMatching(/10\.0\.0\.7/),
    });
  });

  it('reuses a public answer within the TTL (pinned to the vetted address), then resolves again', async () => {
    let address = '93.184.215.14';
    let clock = 1_000;
    const { calls, lookup } = counting(() => [{ address, family: 4 }]);
    const cached = createCachingLookup({ lookup, ttlMs: 10_000, now: () => clock });
    const url = new URL('https://hooks.example/x');
    expect(await resolveTarget(url, strict, cached)).toEqual({ address: '93.184.215.14', family: 4 });
    // The name now points elsewhere (a rebinding resolver): within the TTL the vetted address is dialed.
    address = '10.1.2.3';
    clock += 9_000;
    expect(await resolveTarget(new URL('https://HOOKS.example/y'), strict, cached)).toEqual({
      address: '93.184.215.14',
      family: 4,
    });
    expect(calls).toHaveLength(1);
    // After the TTL the new answer is looked up and judged: private, refused.
    clock += 2_000;
    await expect(resolveTarget(url, strict, cached)).rejects.toMatchObject({
      detail: expect.stringMatching(/10\.1\.2\.3 \(private\)/),
    });
    expect(calls).toHaveLength(2);
  });

  it('does not cache failures, and shares one lookup between concurrent attempts', async () => {
    let fail = true;
    const { calls, lookup } = counting(() =>
      fail
        ? Object.assign(new Error('nope'), { code: 'ENOTFOUND' })
        : [{ address: '93.184.215.14', family: 4 }],
    );
    const cached = createCachingLookup({ lookup });
    const url = new URL('https://flaky.example/x');
    await expect(resolveTarget(url, strict, cached)).rejects.toMatchObject({
      detail: expect.stringMatching(/DNS lookup of flaky\.example failed \(ENOTFOUND\)/),
    });
    fail = false;
    const results = await Promise.all([1, 2, 3].map(() => resolveTarget(url, strict, cached)));
    expect(results.map((r) => r.address)).toEqual(['93.184.215.14', '93.184.215.14', '93.184.215.14']);
    expect(calls).toHaveLength(2);
  });
});
