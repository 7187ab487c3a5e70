/**
 * A named state with the moves it may make, asserted: an illegal move throws instead of leaving a worker in a
 * state nobody planned for (after graphile-worker's `localQueue.ts`). Used by the workers' poll loop
 * (`poll-loop.ts`) and the webhook delivery pass.
 */
export class StateMachine<S extends string> {
  private current: S;

  constructor(
    private readonly name: string,
    initial: S,
    private readonly moves: { readonly [K in S]: readonly S[] },
    /** Told of every move (tests, tracing). */
    private readonly observe?: (from: S, to: S) => void,
  ) {
    this.current = initial;
  }

  get state(): S {
    return this.current;
  }

  /** Moves to `next`; throws if the current state may not move there. */
  transition(next: S): void {
    if (!this.moves[this.current].includes(next))
      throw new Error(`${this.name}: illegal transition ${this.current} → ${next}`);
    const from = this.current;
    this.current = next;
    this.observe?.(from, next);
  }
}
