import { withJitter } from './backoff.ts';
import { StateMachine } from './state-machine.ts';

/**
 * The loop both background workers (jobs, webhook deliveries) run on:
 *
 *   idle ──wake / tick──▶ running ──pass ends──▶ idle        (woken during the pass: straight back to running)
 *     └────────┬──────────────┘
 *            stop()──▶ stopping ──pass in hand recorded──▶ stopped
 *
 * A pass does the work that is due and returns; it is handed an AbortSignal that aborts on stop().
 */
export type PollLoopState = 'idle' | 'running' | 'stopping' | 'stopped';

const MOVES = {
  idle: ['running', 'stopping'],
  running: ['idle', 'stopping'],
  stopping: ['stopped'],
  stopped: [],
} as const satisfies { [K in PollLoopState]: readonly PollLoopState[] };

/** The workers' poll intervals are stretched by up to 10%, so processes started together poll apart. */
export const POLL_JITTER = 0.1;

/** Wake-ups that arrive while a pass runs: remembered, and taken once the pass ends (another pass then runs). */
export interface Wakeups {
  set(): void;
  /** Whether a wake-up was set since the last take; clears it. */
  take(): boolean;
}

export interface PollLoopOptions {
  /** Names the loop in errors. */
  name: string;
  intervalMs: number;
  /**
   * `fixed-rate`: a tick every interval, also while a pass runs (the tick is then a wake-up the pass may act
   * on); `after-pass`: the next tick an interval after the last pass ended.
   */
  ticks: 'fixed-rate' | 'after-pass';
  /** Each interval is stretched by a random 0–`jitter` (a fraction), so processes started together poll apart. */
  jitter: number;
  /** Whether the pending tick keeps the process alive. */
  holdProcess: boolean;
  pass(signal: AbortSignal): Promise<unknown>;
  /** A pass that threw (it is retried at the next tick or wake). */
  onError(error: unknown): void;
  /** Where wake-ups during a pass go (default: a flag); stop() sets one too, so a pass waiting for one returns. */
  wakeups?: Wakeups;
  random?: () => number;
}

export interface PollLoop {
  readonly state: PollLoopState;
  /** Runs a pass now (or, during one, another right after it) instead of at the next tick. */
  wake(): void;
  /** Stops ticking and aborts the pass in hand; resolves once it has ended. */
  stop(): Promise<void>;
}

/** A wake-up flag: the default Wakeups. */
export function wakeupFlag(): Wakeups {
  let set = false;
  return {
    set: () => {
      set = true;
    },
    take: () => {
      const was = set;
      set = false;
      return was;
    },
  };
}

/** Starts the loop: its first pass runs now. */
export function startPollLoop(options: PollLoopOptions): PollLoop {
  const machine = new StateMachine<PollLoopState>(`${options.name} poll loop`, 'idle', MOVES);
  const aborter = new AbortController();
  const wakeups = options.wakeups ?? wakeupFlag();
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> | undefined;
  let stopped: Promise<void> | undefined;

  const schedule = () => {
    const delay = withJitter(options.intervalMs, { below: 0, above: options.jitter }, options.random);
    timer = setTimeout(tick, delay);
    if (!options.holdProcess) timer.unref();
  };
  const tick = () => {
    if (options.ticks === 'fixed-rate') schedule();
    wake();
  };

  const wake = (): void => {
    if (machine.state === 'stopping' || machine.state === 'stopped') return;
    if (machine.state === 'running') {
      wakeups.set();
      return;
    }
    if (options.ticks === 'after-pass') clearTimeout(timer);
    wakeups.take();
    machine.transition('running');
    let run: Promise<unknown>;
    try {
      run = options.pass(aborter.signal);
    } catch (error) {
      run = Promise.reject(error);
    }
    pass = run
      .then(() => undefined, options.onError)
      .finally(() => {
        pass = undefined;
        // Stopping: stop() takes it from here.
        if (machine.state !== 'running') return;
        machine.transition('idle');
        if (wakeups.take()) wake();
        else if (options.ticks === 'after-pass') schedule();
      });
  };

  if (options.ticks === 'fixed-rate') schedule();
  wake();

  return {
    get state() {
      return machine.state;
    },
    wake,
    stop() {
      stopped ??= (async () => {
        machine.transition('stopping');
        aborter.abort();
        clearTimeout(timer);
        wakeups.set();
        await pass;
        machine.transition('stopped');
      })();
      return stopped;
    },
  };
}
