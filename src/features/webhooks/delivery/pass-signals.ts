/**
 * What a delivery pass waits for: new events (an outside wake or a poll tick: fan out and claim) or progress (an
 * attempt finished: record it and claim into the freed slot). Flags, so a signal given while the pass was
 * busy is not lost.
 */
export class Signals {
  private events = false;
  private progress = false;
  private waiters: (() => void)[] = [];
  private release(): void {
    for (const resolve of this.waiters.splice(0)) resolve();
  }
  newEvents(): void {
    this.events = true;
    this.release();
  }
  attemptDone(): void {
    this.progress = true;
    this.release();
  }
  /** Wakes a waiting pass without flagging anything (it re-evaluates its state; a running one does anyway). */
  nudge(): void {
    this.release();
  }
  takeEvents(): boolean {
    const was = this.events;
    this.events = false;
    return was;
  }
  takeProgress(): boolean {
    const was = this.progress;
    this.progress = false;
    return was;
  }
  wait(): Promise<void> {
    return this.events || this.progress
      ? Promise.resolve()
      : new Promise((resolve) => this.waiters.push(resolve));
  }
  /** Waits for an attempt to finish (new events are left flagged for the next pass). */
  async waitProgress(): Promise<void> {
    while (!this.takeProgress()) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
}
