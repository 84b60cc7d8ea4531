/**
 * Callers waiting for runs to close (the engine's wait for a run, issue 34): each is told the moment the
 * run's close is committed, or when its wait runs out, or when the engine stops. One request that
 * answers once the run has closed costs the engine one Describe, where polling costs one per poll.
 */
export class CloseWaiters {
  private readonly waiting = new Map<string, Set<() => void>>();

  /**
   * Resolves once {@link closed} is called for `executionArn`, after `waitMillis` (wall clock: a virtual
   * clock does not hold a caller), or at {@link stopAll}, whichever is first. `cancel` stops waiting.
   */
  wait(executionArn: string, waitMillis: number): { readonly done: Promise<void>; cancel(): void } {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const timer = setTimeout(() => cancel(), waitMillis);
    const cancel = () => {
      clearTimeout(timer);
      const set = this.waiting.get(executionArn);
      set?.delete(cancel);
      if (set?.size === 0) this.waiting.delete(executionArn);
      finish();
    };
    const set = this.waiting.get(executionArn) ?? new Set();
    set.add(cancel);
    this.waiting.set(executionArn, set);
    return { done, cancel };
  }

  /** The run's close is committed: every caller waiting for it is told. */
  closed(executionArn: string): void {
    const set = this.waiting.get(executionArn);
    if (set) for (const cancel of [...set]) cancel();
  }

  /** The engine stops: every caller is told now (each then describes the run as it is). */
  stopAll(): void {
    for (const set of [...this.waiting.values()]) for (const cancel of [...set]) cancel();
  }
}
