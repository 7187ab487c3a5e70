/**
 * The delivery pass moves only along its state table (polling, claiming, waiting, draining, done) and always ends
 * in `done`, also when stopped with attempts in flight (their outcomes are recorded first).
 */
import { describe, expect, it } from 'vitest';
import { DeliveryPass, type PassState } from '../../src/features/webhooks/delivery/delivery-pass.ts';
import { createRuntime } from '../../src/features/webhooks/delivery/delivery-runtime.ts';
import { Signals } from '../../src/features/webhooks/delivery/pass-signals.ts';
import { createWorkerId } from '../../src/lib/worker-id.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { createWebhook, emit, listDeliveries } from './fixtures.ts';
import { useReceiver } from './receiver.ts';

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect, { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOKS_RETRY_SCHEDULE: '60' });
    const { receiver: currentReceiver, pathOf, requestsTo } = useReceiver();

    function pass(signal?: AbortSignal) {
      const rt = createRuntime(h.deps, createWorkerId());
      const moves: string[] = [];
      const p = new DeliveryPass(rt, new Signals(), signal, (from, to) => moves.push(`${from}→${to}`));
      return {
        p,
        moves,
        run: () => p.run().finally(() => rt.agents.destroy()),
      };
    }

    it('with nothing due: polling, then draining, then done; no attempt', async () => {
      const { p, moves, run } = pass();
      expect(p.state).toBe<PassState>('polling');
      expect(await run()).toBe(0);
      expect(p.state).toBe<PassState>('done');
      expect(moves.slice(-2)).toEqual(['polling→draining', 'draining→done']);
      expect(moves.every((m) => !m.startsWith('done'))).toBe(true);
    });

    it('delivers due events through claiming and back, and ends done with each attempt recorded', async () => {
      const t = await h.tenant();
      const path = pathOf('pass');
      const wh = await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}` });
      await emit(h, t, 'note.created');
      await emit(h, t, 'note.processed');
      const { p, moves, run } = pass();
      expect(await run()).toBe(2);
      expect(p.state).toBe<PassState>('done');
      expect(moves).toContain('polling→claiming');
      expect(moves).toContain('claiming→polling');
      expect(moves.at(-1)).toBe('draining→done');
      expect(requestsTo(path)).toHaveLength(2);
      const log = await listDeliveries(h, t.liveKey, wh.id);
      expect(log.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
    });

    it('stopped while an attempt is in flight: drains (records it) before done', async () => {
      const t = await h.tenant();
      const path = pathOf('slow');
      const wh = await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}` });
      // Slow: the pass is (all but always) told to stop while this attempt is in flight.
      currentReceiver().respond((req) =>
        req.path === path ? { status: 500, delayMs: 500 } : { status: 200 },
      );
      await emit(h, t, 'note.created');
      const stop = new AbortController();
      const { p, moves, run } = pass(stop.signal);
      const running = run();
      await currentReceiver().waitFor(requestsTo(path).length + 1);
      stop.abort();
      expect(await running).toBe(1);
      expect(p.state).toBe<PassState>('done');
      // It waited for the attempt in flight.
      expect(moves).toContain('polling→waiting');
      expect(moves.at(-1)).toBe('draining→done');
      const [delivery] = await listDeliveries(h, t.liveKey, wh.id);
      expect(delivery).toMatchObject({ status: 'pending', attempt_count: 1 });
      expect(delivery!.attempts[0]!.status_code).toBe(500);
    });
  });
}
