/**
 * A small pool of admission worker threads. The server thread keeps TLS and HTTP; the workers parse
 * and decide. Requests go to the worker with the fewest in flight; the current cluster view is sent to
 * a worker before the first request that needs it, so a review never sees an older view than the
 * server thread had when the request arrived.
 *
 * Failure handling: a worker decides its reviews one after the other, so the oldest request in flight
 * is the one it works on. When that one is not decided within the deadline, or the worker dies, that
 * request fails (HTTP 500, so the API server applies the webhook's failurePolicy), the worker is
 * replaced, and the requests queued behind it go to the new worker: one pathological object cannot
 * wedge the webhook, nor fail the good reviews that arrived after it.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Worker } from 'worker_threads';
import { Inventory } from '../policy';
import { AdmissionConfig, ClusterView } from './admission';
import { errorOutcome, ReviewOutcome, Webhook } from './admission-review';
import { FromWorker, outcomeOf, ToWorker } from './admission-worker-protocol';

export interface AdmissionPoolOptions {
  /** Worker threads (at least 1). */
  readonly size: number;
  readonly config: AdmissionConfig;
  readonly view: () => ClusterView;
  /**
   * A review its worker has worked on for this long fails with HTTP 500 and the worker is replaced.
   * Clearly below the webhook configurations' timeoutSeconds (5), which also covers TLS, HTTP and the
   * wait behind other reviews: a normal review takes well under 50 ms, the largest one the API server
   * can send a few hundred.
   * @default 2000
   */
  readonly deadlineMs?: number;
  /**
   * Heap limit of each worker (V8 old generation). A review that needs more kills only its worker,
   * which is replaced, not the process (and with it the fail-closed mutating webhook).
   * @default 160
   */
  readonly workerHeapMb?: number;
  readonly log?: (entry: Record<string, unknown>) => void;
  /**
   * Called for every stall of the server thread forgiven while reviews waited (its length in ms): the
   * server counts them in a metric. The log says so at most once per STALL_WARNING_EVERY_MS.
   * @default - not reported beyond the log
   */
  readonly onStall?: (ms: number) => void;
}

/**
 * The least time between two "webhook thread stalled" warnings. A CPU-starved pod stalls on most
 * sweeps (every 100 ms); each warning counts the stalls since the one before, and the metric counts them all.
 */
export const STALL_WARNING_EVERY_MS = 10000;

export interface Pending {
  readonly id: number;
  readonly resolve: (o: ReviewOutcome) => void;
  readonly webhook: Webhook;
  /** Kept until answered: the review is sent again if its worker is replaced before deciding it. */
  readonly body: Uint8Array;
}

/**
 * The reviews sent to one worker and not yet answered, in the order sent, which is the order the
 * worker decides them: an answer is nearly always for the oldest.
 *
 * Not a Map. V8 rehashes a Map's table as entries come and go, and a table it outgrows keeps its
 * entries and a link to the table that replaced it (for iterators still on it). Once one such table
 * had reached the old generation, every review in flight after it stayed reachable from it until the
 * next mark-compact: the server thread promoted about 46 MB in 12 s of load and ran 76 mark-compacts
 * (2-4 ms pauses each, the webhook's p99); with this queue, 2 MB and 6 in the same run.
 */
export class InFlight {
  private readonly queue: Pending[] = [];

  get size(): number {
    return this.queue.length;
  }

  push(p: Pending): void {
    this.queue.push(p);
  }

  /** Removes and returns the review answered, or undefined for an id not in flight (an answer of a worker since replaced). */
  take(id: number): Pending | undefined {
    if (this.queue.length && this.queue[0].id === id) return this.queue.shift();
    const i = this.queue.findIndex((p) => p.id === id);
    return i < 0 ? undefined : this.queue.splice(i, 1)[0];
  }

  /** Removes and returns them all, oldest first. */
  drain(): Pending[] {
    return this.queue.splice(0, this.queue.length);
  }
}

interface Slot {
  worker: Worker;
  /** In the order sent: the worker decides them in that order. */
  readonly pending: InFlight;
  /**
   * When the worker started on the oldest pending review; before the worker has loaded, when that
   * review was sent (or the worker replaced), and the deadline is then longer by STARTUP_MS.
   */
  headSince: number;
  online: boolean;
  sentView?: Inventory;
}

/** The compiled worker next to this file, or (tests, ts-node) the TypeScript source through ts-node. */
function spawn(workerData: unknown, heapMb: number): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: heapMb };
  const js = path.join(__dirname, 'admission-worker.js');
  if (fs.existsSync(js)) return new Worker(js, { workerData, resourceLimits });
  const ts = path.join(__dirname, 'admission-worker.ts');
  const code = `require('ts-node').register({ transpileOnly: true, compilerOptions: { module: 'commonjs' } }); require(${JSON.stringify(ts)});`;
  return new Worker(code, { eval: true, workerData, resourceLimits });
}

/**
 * Posts a review to a worker. Its bytes go in a fresh ArrayBuffer that is transferred, not cloned: a clone
 * serializes the bytes into the message and copies them again on the worker's side, and those allocations,
 * per review, were a visible share of both threads' time.
 */
function send(worker: Worker, id: number, webhook: Webhook, body: Uint8Array): void {
  const bytes = new ArrayBuffer(body.byteLength);
  new Uint8Array(bytes).set(body);
  const message: ToWorker = { id, webhook, body: bytes };
  worker.postMessage(message, [bytes]);
}

/**
 * How long a new worker may take to load its modules on top of the deadline: about 0.1 s compiled,
 * seconds through ts-node on a busy machine. Only a worker that hangs while loading ever reaches it.
 */
const STARTUP_MS = 10000;

export class AdmissionPool {
  private readonly slots: Slot[] = [];
  private readonly sweep: NodeJS.Timeout;
  private nextId = 0;
  private closing = false;

  constructor(private readonly opts: AdmissionPoolOptions) {
    if (!(opts.size >= 1)) throw new Error(`AdmissionPool: size must be at least 1 (got ${opts.size})`);
    for (let i = 0; i < opts.size; i++) this.slots.push(this.start({ pending: new InFlight(), headSince: 0 } as Slot));
    const deadline = opts.deadlineMs ?? 2000;
    // Checked often, so a stuck review is failed at most a twentieth of the deadline late.
    const every = Math.max(10, Math.min(100, deadline / 20));
    let lastSweep = Date.now();
    // Stalls forgiven since the last warning (and the longest), and when that warning was.
    let unreported = 0;
    let longest = 0;
    let warnedAt = -Infinity;
    this.sweep = setInterval(() => {
      const now = Date.now();
      const stall = now - lastSweep - every;
      lastSweep = now;
      if (stall > 50) {
        // This thread was busy (it runs TLS and HTTP too): the workers' answers may be waiting in
        // its queue, so the stall is not held against them. Blaming them here replaced idle workers.
        for (const slot of this.slots) slot.headSince += stall;
        // Said only while reviews wait, so that an operator sees why a deadline came later.
        if (this.slots.some((s) => s.pending.size)) {
          this.opts.onStall?.(stall);
          unreported++;
          longest = Math.max(longest, stall);
          if (now - warnedAt >= STALL_WARNING_EVERY_MS) {
            this.opts.log?.({ level: 'warn', msg: 'webhook thread stalled; the reviews in flight get that much longer', stallMs: stall,
              stalls: unreported, longestStallMs: longest });
            warnedAt = now;
            unreported = 0;
            longest = 0;
          }
        }
        return;
      }
      for (const slot of this.slots) {
        if (slot.pending.size && now - slot.headSince > deadline + (slot.online ? 0 : STARTUP_MS)) {
          this.opts.log?.({ level: 'error', msg: 'admission worker missed its deadline; replacing it', deadlineMs: deadline,
            queued: slot.pending.size - 1 });
          this.restart(slot, `cdk8s-kueue-ray webhook: review not decided within ${deadline} ms`);
        }
      }
    }, every).unref();
  }

  /**
   * Decides one review body. The bytes are copied once, into a buffer handed over to the worker; `body`
   * itself is kept until the review is answered.
   */
  review(webhook: Webhook, body: Uint8Array): Promise<ReviewOutcome> {
    if (this.closing) return Promise.resolve(errorOutcome(500, 'cdk8s-kueue-ray webhook is shutting down'));
    let slot = this.slots[0];
    for (const s of this.slots) if (s.pending.size < slot.pending.size) slot = s;
    const inventory = this.opts.view().inventory;
    if (slot.sentView !== inventory) {
      const message: ToWorker = { view: { inventory } };
      slot.worker.postMessage(message);
      slot.sentView = inventory;
    }
    const id = ++this.nextId;
    return new Promise((resolve) => {
      if (!slot.pending.size) slot.headSince = Date.now();
      slot.pending.push({ id, resolve, webhook, body });
      send(slot.worker, id, webhook, body);
    });
  }

  /** Fails what is still in flight and stops the workers (the server drains its requests first). */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweep);
    await Promise.all(this.slots.map((s) => {
      this.failPending(s, 'cdk8s-kueue-ray webhook is shutting down');
      return s.worker.terminate();
    }));
  }

  /** True once every worker has loaded its modules: until then /readyz answers 503. */
  public online(): boolean {
    return this.slots.every((s) => s.online);
  }

  private start(slot: Slot): Slot {
    const inventory = this.opts.view().inventory;
    const worker = spawn({ config: this.opts.config, view: { inventory } }, this.opts.workerHeapMb ?? 160);
    slot.worker = worker;
    slot.sentView = inventory;
    slot.online = false;
    slot.headSince = Date.now();
    worker.on('message', (m: FromWorker) => {
      if ('ready' in m) {
        // Its modules are loaded: the deadline of the review it works on starts now.
        slot.online = true;
        slot.headSince = Date.now();
        return;
      }
      const p = slot.pending.take(m[0]);
      if (!p) return;
      slot.headSince = Date.now();
      p.resolve(outcomeOf(m));
    });
    worker.on('error', (e) => this.opts.log?.({ level: 'error', msg: 'admission worker crashed', error: e.message }));
    worker.on('exit', (code) => {
      if (slot.worker === worker && !this.closing) this.opts.log?.({ level: 'error', msg: 'admission worker exited', code,
        queued: Math.max(0, slot.pending.size - 1) });
      if (slot.worker === worker && !this.closing) this.restart(slot, 'cdk8s-kueue-ray webhook: admission worker exited');
    });
    worker.unref();
    return slot;
  }

  /** Fails the review the worker was on, replaces the worker, and sends it the reviews queued behind. */
  private restart(slot: Slot, message: string): void {
    const old = slot.worker;
    const [head, ...queued] = slot.pending.drain();
    if (head) head.resolve(errorOutcome(500, message));
    this.start(slot);
    void old.terminate();
    for (const p of queued) {
      slot.pending.push(p);
      send(slot.worker, p.id, p.webhook, p.body);
    }
  }

  private failPending(slot: Slot, message: string): void {
    for (const p of slot.pending.drain()) p.resolve(errorOutcome(500, message));
  }
}
