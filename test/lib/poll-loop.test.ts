import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLeaseRenewal } from '../../src/lib/lease-renewal.ts';
import { type PollLoop, type PollLoopOptions, startPollLoop } from '../../src/lib/poll-loop.ts';
import { StateMachine } from '../../src/lib/state-machine.ts';

/** Every pass a test started, ended after the test so its loop can stop. */
const allPasses: (() => void)[] = [];

/** A pass the test ends by hand. */
function controlledPasses() {
  const started: { signal: AbortSignal; end: () => void; fail: (error: Error) => void }[] = [];
  const pass = (signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      started.push({ signal, end: resolve, fail: reject });
      allPasses.push(resolve);
    });
  return { started, pass };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

function loopWith(pass: PollLoopOptions['pass'], options: Partial<PollLoopOptions> = {}) {
  const errors: unknown[] = [];
  const loop = startPollLoop({
    name: 'test',
    // Ticks are driven by hand (fake timers) or never come: passes run on wake only.
    intervalMs: 3_600_000,
    ticks: 'after-pass',
    jitter: 0,
    holdProcess: false,
    pass,
    onError: (error) => errors.push(error),
    ...options,
  });
  return { loop, errors };
}

let loops: PollLoop[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const end of allPasses.splice(0)) end();
  await Promise.all(loops.map((l) => l.stop()));
  loops = [];
});

describe('StateMachine', () => {
  it('moves along the allowed moves and throws on any other, naming both states', () => {
    const moves: string[] = [];
    const m = new StateMachine<'a' | 'b' | 'c'>(
      'thing',
      'a',
      { a: ['b'], b: ['a', 'c'], c: [] },
      (from, to) => moves.push(`${from}→${to}`),
    );
    m.transition('b');
    m.transition('a');
    m.transition('b');
    m.transition('c');
    expect(m.state).toBe('c');
    expect(() => m.transition('a')).toThrow('thing: illegal transition c → a');
    expect(m.state).toBe('c');
    expect(moves).toEqual(['a→b', 'b→a', 'a→b', 'b→c']);
    const fresh = new StateMachine<'a' | 'b' | 'c'>('thing', 'a', { a: ['b'], b: ['a', 'c'], c: [] });
    expect(() => fresh.transition('c')).toThrow(/a → c/);
  });
});

describe('poll loop', () => {
  it('runs a pass at start, goes idle after it, and runs one more per wake', async () => {
    const { started, pass } = controlledPasses();
    const { loop } = loopWith(pass);
    loops.push(loop);
    expect(loop.state).toBe('running');
    expect(started).toHaveLength(1);
    started[0]!.end();
    await settle();
    expect(loop.state).toBe('idle');
    loop.wake();
    expect(loop.state).toBe('running');
    expect(started).toHaveLength(2);
  });

  it('folds wakes during a pass into one pass right after it', async () => {
    const { started, pass } = controlledPasses();
    const { loop } = loopWith(pass);
    loops.push(loop);
    loop.wake();
    loop.wake();
    loop.wake();
    expect(started).toHaveLength(1);
    started[0]!.end();
    await settle();
    expect(started).toHaveLength(2);
    expect(loop.state).toBe('running');
    started[1]!.end();
    await settle();
    expect(started).toHaveLength(2);
    expect(loop.state).toBe('idle');
  });

  it('hands a failed pass to onError and keeps going', async () => {
    const { started, pass } = controlledPasses();
    const { loop, errors } = loopWith(pass);
    loops.push(loop);
    started[0]!.fail(new Error('database away'));
    await settle();
    expect(errors.map((e) => (e as Error).message)).toEqual(['database away']);
    expect(loop.state).toBe('idle');
    loop.wake();
    expect(started).toHaveLength(2);
  });

  it('stop() aborts the pass in hand, waits for it, and runs no further pass', async () => {
    const { started, pass } = controlledPasses();
    const { loop } = loopWith(pass);
    loop.wake();
    const stopping = loop.stop();
    expect(loop.state).toBe('stopping');
    expect(started[0]!.signal.aborted).toBe(true);
    let stopped = false;
    void stopping.then(() => {
      stopped = true;
    });
    await settle();
    expect(stopped).toBe(false);
    started[0]!.end();
    await stopping;
    expect(loop.state).toBe('stopped');
    loop.wake();
    expect(started).toHaveLength(1);
    await loop.stop();
  });

  it('stop() sets a wake-up, so a pass waiting for one returns', async () => {
    let woken = false;
    const { started, pass } = controlledPasses();
    const { loop } = loopWith(pass, {
      wakeups: {
        set: () => {
          woken = true;
          started[0]?.end();
        },
        take: () => false,
      },
    });
    await loop.stop();
    expect(woken).toBe(true);
    expect(loop.state).toBe('stopped');
  });

  it('after-pass: the next tick comes an interval after the pass ended, not while it runs', async () => {
    vi.useFakeTimers();
    const { started, pass } = controlledPasses();
    const { loop } = loopWith(pass, { intervalMs: 1_000, ticks: 'after-pass' });
    loops.push(loop);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(started).toHaveLength(1);
    started[0]!.end();
    await vi.advanceTimersByTimeAsync(999);
    expect(started).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toHaveLength(2);
  });

  it('fixed-rate: ticks go on during a pass as wake-ups; the interval is stretched by at most the jitter', async () => {
    vi.useFakeTimers();
    const { started, pass } = controlledPasses();
    let takes = 0;
    let set = false;
    const { loop } = loopWith(pass, {
      intervalMs: 1_000,
      ticks: 'fixed-rate',
      jitter: 0.1,
      random: () => 1,
      wakeups: {
        set: () => {
          set = true;
        },
        take: () => {
          takes++;
          const was = set;
          set = false;
          return was;
        },
      },
    });
    loops.push(loop);
    await vi.advanceTimersByTimeAsync(1_099);
    expect(set).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(set).toBe(true);
    started[0]!.end();
    await vi.advanceTimersByTimeAsync(0);
    // The tick during the first pass runs a second one as soon as the first ends.
    expect(started).toHaveLength(2);
    expect(takes).toBeGreaterThanOrEqual(2);
  });
});

describe('lease renewal', () => {
  it('renews every third of the lease, one renewal at a time, and skips when nothing is held', async () => {
    vi.useFakeTimers();
    let calls = 0;
    let held = true;
    let finish: (() => void) | undefined;
    const renewal = startLeaseRenewal({
      leaseMs: 3_000,
      renew: () => {
        if (!held) return undefined;
        calls++;
        return new Promise<void>((resolve) => {
          finish = resolve;
        });
      },
      onError: () => {},
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(1);
    // Still running: the next tick is skipped.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls).toBe(1);
    finish!();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls).toBe(2);
    finish!();
    held = false;
    await vi.advanceTimersByTimeAsync(3_000);
    expect(calls).toBe(2);
    await renewal.stop();
  });

  it('hands a failed renewal to onError, and stop() waits for the renewal in flight', async () => {
    vi.useFakeTimers();
    const errors: unknown[] = [];
    let fail: ((error: Error) => void) | undefined;
    const renewal = startLeaseRenewal({
      leaseMs: 300,
      renew: () =>
        new Promise<void>((_, reject) => {
          fail = reject;
        }),
      onError: (error) => errors.push(error),
    });
    await vi.advanceTimersByTimeAsync(100);
    let stopped = false;
    const stopping = renewal.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    fail!(new Error('lost the database'));
    await stopping;
    expect(errors.map((e) => (e as Error).message)).toEqual(['lost the database']);
  });
});
