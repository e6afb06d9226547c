/**
 * A keyed work queue, as controllers use: at most `concurrency` items in flight, one at a time per
 * key, the latest item for a key replaces a waiting one (a Workload's newest version is all that
 * matters), and each item starts from a fresh macrotask, so a burst of thousands of items never holds
 * the event loop: the webhook's TLS and the Lease renewal run between them.
 */
export interface WorkQueueOptions<T> {
  /** @default 4 */
  readonly concurrency?: number;
  /** Retries a failed item after this many ms unless a newer item for its key came. @default 5000 */
  readonly retryMs?: number;
  readonly handle: (key: string, item: T) => Promise<unknown>;
  readonly onError?: (key: string, error: unknown) => void;
}

export class WorkQueue<T> {
  private readonly waiting = new Map<string, T>();
  private readonly order: string[] = [];
  private readonly inFlight = new Set<string>();
  /** The last item added per key, so a retry never replays a superseded one. */
  private readonly latest = new Map<string, T>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private scheduled = 0;
  private idleWaiters: Array<() => void> = [];
  private stopped = false;

  constructor(private readonly opts: WorkQueueOptions<T>) {}

  get size(): number {
    return this.waiting.size + this.inFlight.size;
  }

  add(key: string, item: T): void {
    if (this.stopped) return;
    this.latest.set(key, item);
    const queued = this.waiting.has(key);
    this.waiting.set(key, item);
    // A key in flight is queued again when it finishes (see run), so it never runs twice at once.
    if (!queued && !this.inFlight.has(key)) this.order.push(key);
    this.pump();
  }

  /** Drops what waits for `key` and its retry (the object is gone). */
  forget(key: string): void {
    this.latest.delete(key);
    if (this.waiting.delete(key)) {
      const i = this.order.indexOf(key);
      if (i >= 0) this.order.splice(i, 1);
    }
    this.settle();
  }

  /** Drops everything that waits (e.g. after losing the Lease); what is in flight finishes. */
  clear(): void {
    this.waiting.clear();
    this.order.length = 0;
    this.latest.clear();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.settle();
  }

  stop(): void {
    this.stopped = true;
    this.clear();
  }

  /** Resolves when nothing waits or runs (retries pending on a timer do not count). */
  idle(): Promise<void> {
    if (this.size === 0 && this.scheduled === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    const limit = this.opts.concurrency ?? 4;
    while (this.inFlight.size + this.scheduled < limit && this.order.length > this.scheduled) {
      this.scheduled++;
      setImmediate(() => {
        this.scheduled--;
        this.next();
      });
    }
  }

  private next(): void {
    const key = this.order.shift();
    if (key === undefined || this.stopped) return this.settle();
    const item = this.waiting.get(key)!;
    this.waiting.delete(key);
    this.inFlight.add(key);
    this.opts.handle(key, item).catch((e) => {
      this.opts.onError?.(key, e);
      const t = setTimeout(() => {
        this.timers.delete(t);
        if (this.latest.get(key) === item && !this.waiting.has(key)) this.add(key, item);
      }, this.opts.retryMs ?? 5000);
      t.unref?.();
      this.timers.add(t);
    }).finally(() => {
      this.inFlight.delete(key);
      if (this.waiting.has(key)) this.order.push(key);
      this.pump();
      this.settle();
    });
  }

  private settle(): void {
    if (this.size === 0 && this.scheduled === 0 && this.order.length === 0) {
      const w = this.idleWaiters;
      this.idleWaiters = [];
      for (const r of w) r();
    }
  }
}
