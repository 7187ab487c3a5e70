import { startLeaseRenewal } from '../../../lib/lease-renewal.ts';
import { StateMachine } from '../../../lib/state-machine.ts';
import { toIso } from '../../../lib/time.ts';
import { attemptDelivery, type Finished } from './attempt-delivery.ts';
import { type DeliveryRow, type DeliveryTarget, deliveriesRepo, spaceKey } from './deliveries.repo.ts';
import type { Runtime } from './delivery-runtime.ts';
import { fanOutSome } from './fan-out-events.ts';
import type { Signals } from './pass-signals.ts';

/**
 * What a delivery pass is doing (attempts run alongside, counted in `inflight`):
 *
 *   polling ──start a cycle and wait for it──▶ claiming ──▶ polling
 *      │ ▲
 *      │ └── an attempt finished / a cycle ended / new events ── waiting ◀── nothing to do until then
 *      └── nothing due (or stop, or a failed cycle) ──▶ draining ──outcomes in flight recorded──▶ done
 *
 * `polling`: fans out queued events, starts bookkeeping cycles (record finished attempts, claim deliveries into
 * free slots), decides whether anything is left; `claiming`: waits for the cycle it started; `waiting`: for a
 * signal; `draining`: claims nothing more and records what the attempts in flight come to.
 */
export type PassState = 'polling' | 'claiming' | 'waiting' | 'draining' | 'done';

const MOVES = {
  polling: ['claiming', 'waiting', 'draining'],
  claiming: ['polling'],
  waiting: ['polling'],
  draining: ['done'],
  done: [],
} as const satisfies { [K in PassState]: readonly PassState[] };

/**
 * How long a finished attempt's outcome may wait for the next claim, to be recorded in the same transaction
 * (well within any lease: the lease covers the timeout plus at least one second).
 */
const RECORD_DELAY_MS = 50;

type CycleResult = Awaited<ReturnType<typeof deliveriesRepo.cycle>>;

/**
 * One delivery pass: fans out queued events, then claims and sends due deliveries with up to
 * WEBHOOKS_CONCURRENCY attempts in flight, until nothing is due; `run()` returns the number of attempts made.
 *
 * Bookkeeping runs in cycles (deliveriesRepo.cycle): the outcomes of the attempts that finished since the
 * last cycle are recorded, and deliveries are claimed for the free slots. A slot is free as soon as its HTTP
 * attempt ends (its outcome goes with the next cycle), so the receiver never waits for the database, and
 * under load one cycle records and claims a whole batch. On PostgreSQL two cycles may be in flight at once
 * (the next claim does not wait for the previous round trip); SQLite runs them one after another.
 */
export class DeliveryPass {
  private readonly machine: StateMachine<PassState>;
  private readonly concurrency: number;
  /** Claim in batches rather than one row per freed slot: fewer cycles when busy. */
  private readonly lowWater: number;
  private readonly maxCycles: number;
  /** Attempts finished, waiting to be recorded by the next cycle. */
  private readonly finished: (Finished & { at: number })[] = [];
  private readonly cycles = new Set<Promise<unknown>>();
  private inflight = 0;
  /** Attempts in flight per account and mode (spaceKey): a claim gives each space at most its cap. */
  private readonly busy = new Map<string, number>();
  private readonly perSpace: { cap: number; busy: Map<string, number> };
  /** Leases this pass holds (claimed, outcome not recorded yet): renewed every third of the lease. */
  private readonly held = new Set<string>();
  /** Slots promised to the claims of cycles in flight. */
  private reserved = 0;
  private attempts = 0;
  private fanOutNeeded = true;
  private cycleError: { error: unknown } | undefined;
  /** The last cycle recorded outcomes: they may have unblocked the next event of a note. */
  private recordedLast = false;
  /** The last cycle claimed as many as it asked for: more may be due. */
  private lastFull = false;
  private reminder: NodeJS.Timeout | undefined;

  constructor(
    private readonly rt: Runtime,
    private readonly signals: Signals,
    private readonly signal?: AbortSignal,
    /** Told of every state change (tests). */
    observe?: (from: PassState, to: PassState) => void,
  ) {
    this.machine = new StateMachine<PassState>('webhook delivery pass', 'polling', MOVES, observe);
    const settings = rt.deps.config.webhookDelivery;
    this.concurrency = settings.concurrency;
    this.lowWater = Math.max(1, Math.floor(this.concurrency / 4));
    this.maxCycles = rt.deps.dialect === 'postgres' ? 2 : 1;
    this.perSpace = { cap: settings.concurrencyPerAccount, busy: this.busy };
  }

  get state(): PassState {
    return this.machine.state;
  }

  /** Delivers until nothing is due (or the signal aborts), then records the attempts in flight. */
  async run(): Promise<number> {
    const renewals = renewHeldLeases(this.rt, this.held);
    let failure: { error: unknown } | undefined;
    try {
      await this.deliverUntilIdle();
    } catch (error) {
      failure = { error };
    }
    // Stopping (or a failed cycle): claim nothing more, record what the attempts in flight come to.
    this.machine.transition('draining');
    clearTimeout(this.reminder);
    await this.drain();
    await renewals.stop();
    this.machine.transition('done');
    if (failure) throw failure.error;
    return this.attempts;
  }

  private async deliverUntilIdle(): Promise<void> {
    const { signals } = this;
    while (!this.signal?.aborted) {
      if (this.cycleError) throw this.cycleError.error;
      signals.takeProgress();
      if (signals.takeEvents() || this.fanOutNeeded) {
        // One batch at a time, alternating with deliveries: a burst starts going out while it is fanned out.
        this.fanOutNeeded = (await this.fanOutBatch()).more;
      }
      // Let the responses that arrived in this turn of the event loop join the cycle.
      if (this.inflight > 0) await new Promise((resolve) => setImmediate(resolve));
      const free = this.concurrency - this.inflight - this.reserved;
      const claim = free >= this.lowWater || (this.inflight === 0 && this.cycles.size === 0);
      // Outcomes wait for the next claim (recorded in the same cycle), but not longer than RECORD_DELAY_MS.
      const waited = this.finished.length ? Date.now() - this.finished[0]!.at : 0;
      const record = claim || waited >= RECORD_DELAY_MS;
      if (this.cycles.size < this.maxCycles && record) {
        const run = this.startCycle(claim);
        // Nothing else going on (or no cycle left to start): wait for this one here.
        if (this.cycles.size >= this.maxCycles || this.inflight === 0) {
          this.machine.transition('claiming');
          const error = await run;
          this.machine.transition('polling');
          if (error) throw error;
          // A full batch: more may be due.
          if (this.lastFull) continue;
        }
      }
      if (this.finished.length && !record) this.remindIn(RECORD_DELAY_MS - waited);
      if (this.inflight === 0 && this.finished.length === 0 && this.cycles.size === 0) {
        if (await this.moreToDo()) continue;
        break;
      }
      this.machine.transition('waiting');
      await signals.wait();
      this.machine.transition('polling');
    }
  }

  /**
   * Idle: done unless outcomes were recorded by the last cycle or an attempt finished while claiming (either
   * may unblock the next event of its note), or events arrived since the last fan-out, or a last fan-out
   * creates deliveries.
   */
  private async moreToDo(): Promise<boolean> {
    const { signals } = this;
    if (this.recordedLast || this.fanOutNeeded || signals.takeProgress() || signals.takeEvents()) {
      this.recordedLast = false;
      return true;
    }
    const more = await this.fanOutBatch();
    this.fanOutNeeded = more.more;
    return more.created > 0 || more.more;
  }

  private fanOutBatch() {
    return fanOutSome(this.rt.deps.db, this.rt.deps.dialect, { maxBatches: 1, burst: this.rt.deps.fanOut });
  }

  /** Records outcomes that waited RECORD_DELAY_MS even if no claim comes. */
  private remindIn(ms: number): void {
    if (this.reminder) return;
    this.reminder = setTimeout(() => {
      this.reminder = undefined;
      this.signals.attemptDone();
    }, ms);
  }

  /** Starts a cycle; resolves with its error (the outcomes are then put back), if any. Never rejects. */
  private startCycle(claim: boolean): Promise<unknown> {
    const { rt } = this;
    const batch = this.finished.splice(0);
    const now = Date.now();
    const free = claim ? this.concurrency - this.inflight - this.reserved : 0;
    this.reserved += free;
    // Whether the loop has something to do once the cycle ends (an empty claim while attempts are in flight
    // does not: their completion wakes it).
    let wake = true;
    const run = deliveriesRepo
      .cycle(rt.deps.db, rt.deps.dialect, {
        workerId: rt.workerId,
        outcomes: batch.map((f) => f.outcome),
        claim:
          free > 0
            ? { now: toIso(now), lockedUntil: toIso(now + rt.leaseMs), limit: free, perSpace: this.perSpace }
            : null,
      })
      .then(
        (result) => {
          wake = this.cycleDone(batch, free, result);
          return undefined;
        },
        (error: unknown) => {
          // Rolled back: nothing was recorded. The outcomes are tried again (the pass ends, see run()).
          this.finished.unshift(...batch);
          this.cycleError ??= { error };
          return error ?? new Error('webhook bookkeeping failed');
        },
      )
      .finally(() => {
        this.reserved -= free;
        this.cycles.delete(run);
        if (wake) this.signals.nudge();
      });
    this.cycles.add(run);
    return run;
  }

  /** A cycle committed: logs its recorded outcomes, sends its claims; returns whether the loop has work. */
  private cycleDone(batch: readonly Finished[], free: number, result: CycleResult): boolean {
    for (const f of batch) {
      this.held.delete(f.outcome.lease.id);
      f.recorded(result.held.has(f.outcome.lease.id));
    }
    for (const row of result.claimed.rows) this.send(row, result.claimed.targets.get(row.id));
    // A claim that ran alongside the recording did not see what the outcomes unblocked (the next event of a
    // note): the next cycle claims it.
    this.recordedLast = batch.length > 0;
    this.lastFull = free > 0 && result.claimed.rows.length === free;
    return (
      result.claimed.rows.length > 0 || batch.length > 0 || this.finished.length > 0 || this.inflight === 0
    );
  }

  /** Starts one claimed delivery's attempt in a slot; its outcome joins `finished` for the next cycle. */
  private send(row: DeliveryRow, target: DeliveryTarget | undefined): void {
    this.inflight++;
    this.attempts++;
    this.held.add(row.id);
    const space = spaceKey(row.account_id, row.mode);
    this.occupy(space, 1);
    void attemptDelivery(this.rt, row, target).then((f) => {
      if (f) this.finished.push({ ...f, at: Date.now() });
      else this.held.delete(row.id);
      this.inflight--;
      this.occupy(space, -1);
      this.signals.attemptDone();
    });
  }

  private occupy(space: string, delta: number): void {
    const n = (this.busy.get(space) ?? 0) + delta;
    if (n > 0) this.busy.set(space, n);
    else this.busy.delete(space);
  }

  /** Waits for the attempts and cycles in flight and records every outcome (three tries per failed cycle). */
  private async drain(): Promise<void> {
    let retries = 0;
    while (this.inflight > 0 || this.finished.length > 0 || this.cycles.size > 0) {
      if (this.cycles.size > 0) {
        await Promise.all(this.cycles);
        continue;
      }
      if (this.finished.length) {
        const error = await this.startCycle(false);
        if (!error) retries = 0;
        else if (++retries >= 3) {
          // Unrecorded outcomes: their leases run out and the deliveries are sent again (at-least-once).
          this.rt.logger.error(
            { err: error, outcomes: this.finished.length },
            'could not record webhook attempts',
          );
          for (const f of this.finished.splice(0)) this.held.delete(f.outcome.lease.id);
        } else await new Promise((resolve) => setTimeout(resolve, 100 * retries));
        continue;
      }
      if (this.inflight > 0) await this.signals.waitProgress();
    }
  }
}

/**
 * Keeps the leases of a pass's claimed deliveries alive (lib/lease-renewal.ts): every third of the lease, one
 * UPDATE moves their `locked_until` forward (only rows this worker still holds). So leases can be short
 * (WEBHOOKS_LEASE_SECONDS, default 15 s) and a killed worker's deliveries are taken over within about one lease,
 * while a slow attempt (up to WEBHOOKS_TIMEOUT_MS) keeps its lease. A failed renewal is logged; the lease may
 * then run out and the delivery be sent again by another worker (at-least-once).
 */
function renewHeldLeases(rt: Runtime, held: ReadonlySet<string>): { stop(): Promise<void> } {
  return startLeaseRenewal({
    leaseMs: rt.leaseMs,
    renew: () =>
      held.size === 0
        ? undefined
        : deliveriesRepo.renewLeases(rt.deps.db, {
            workerId: rt.workerId,
            ids: [...held],
            lockedUntil: toIso(Date.now() + rt.leaseMs),
          }),
    onError: (error) => rt.logger.warn({ err: error }, 'could not renew webhook delivery leases'),
  });
}
