/**
 * A small pool of admission worker threads. The server thread keeps TLS and HTTP; the workers parse
 * and decide. Requests go to the worker with the fewest in flight; the current cluster view is sent to
 * a worker before the first request that needs it, so a review never sees an older view than the
 * server thread had when the request arrived.
 *
 * Failure handling: a worker that dies fails its in-flight requests (HTTP 500, so the API server
 * applies the webhook's failurePolicy) and is replaced; a request not answered within the deadline
 * does the same to its worker, so one pathological object cannot wedge the webhook.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Worker } from 'worker_threads';
import { Inventory } from '../policy';
import { AdmissionConfig, ClusterView } from './admission';
import { errorOutcome, ReviewOutcome, Webhook } from './admission-review';

export interface AdmissionPoolOptions {
  /** Worker threads (at least 1). */
  readonly size: number;
  readonly config: AdmissionConfig;
  readonly view: () => ClusterView;
  /**
   * A review not answered within this time fails with HTTP 500 and its worker is replaced. Below the
   * webhook configurations' timeoutSeconds (5), so the worker is replaced before the API server gives up.
   * @default 4000
   */
  readonly deadlineMs?: number;
  readonly log?: (entry: Record<string, unknown>) => void;
}

interface Pending {
  readonly resolve: (o: ReviewOutcome) => void;
  readonly started: number;
}

interface Slot {
  worker: Worker;
  readonly pending: Map<number, Pending>;
  sentView?: Inventory;
}

/** The compiled worker next to this file, or (tests, ts-node) the TypeScript source through ts-node. */
function spawn(workerData: unknown): Worker {
  const js = path.join(__dirname, 'admission-worker.js');
  if (fs.existsSync(js)) return new Worker(js, { workerData });
  const ts = path.join(__dirname, 'admission-worker.ts');
  const code = `require('ts-node').register({ transpileOnly: true, compilerOptions: { module: 'commonjs' } }); require(${JSON.stringify(ts)});`;
  return new Worker(code, { eval: true, workerData });
}

export class AdmissionPool {
  private readonly slots: Slot[] = [];
  private readonly sweep: NodeJS.Timeout;
  private nextId = 0;
  private closing = false;

  constructor(private readonly opts: AdmissionPoolOptions) {
    if (!(opts.size >= 1)) throw new Error(`AdmissionPool: size must be at least 1 (got ${opts.size})`);
    for (let i = 0; i < opts.size; i++) this.slots.push(this.start({ pending: new Map() } as Slot));
    const deadline = opts.deadlineMs ?? 4000;
    this.sweep = setInterval(() => {
      const now = Date.now();
      for (const slot of this.slots) {
        for (const p of slot.pending.values()) {
          if (now - p.started > deadline) {
            this.opts.log?.({ level: 'error', msg: 'admission worker missed its deadline; replacing it', deadlineMs: deadline, inFlight: slot.pending.size });
            this.restart(slot, `cdk8s-kueue-ray webhook: review not decided within ${deadline} ms`);
            break;
          }
        }
      }
    }, Math.min(1000, deadline)).unref();
  }

  /** Decides one review body. The body's ArrayBuffer is transferred to the worker (unusable after). */
  review(webhook: Webhook, body: ArrayBuffer): Promise<ReviewOutcome> {
    if (this.closing) return Promise.resolve(errorOutcome(500, 'cdk8s-kueue-ray webhook is shutting down'));
    let slot = this.slots[0];
    for (const s of this.slots) if (s.pending.size < slot.pending.size) slot = s;
    const inventory = this.opts.view().inventory;
    if (slot.sentView !== inventory) {
      slot.worker.postMessage({ view: { inventory } });
      slot.sentView = inventory;
    }
    const id = ++this.nextId;
    return new Promise((resolve) => {
      slot.pending.set(id, { resolve, started: Date.now() });
      slot.worker.postMessage({ id, webhook, body }, [body]);
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

  private start(slot: Slot): Slot {
    const inventory = this.opts.view().inventory;
    const worker = spawn({ config: this.opts.config, view: { inventory } });
    slot.worker = worker;
    slot.sentView = inventory;
    worker.on('message', (m: { id: number; outcome: ReviewOutcome }) => {
      const p = slot.pending.get(m.id);
      if (!p) return;
      slot.pending.delete(m.id);
      p.resolve(m.outcome);
    });
    worker.on('error', (e) => this.opts.log?.({ level: 'error', msg: 'admission worker crashed', error: e.message }));
    worker.on('exit', () => {
      if (slot.worker === worker && !this.closing) this.restart(slot, 'cdk8s-kueue-ray webhook: admission worker exited');
    });
    worker.unref();
    return slot;
  }

  private restart(slot: Slot, message: string): void {
    const old = slot.worker;
    this.failPending(slot, message);
    this.start(slot);
    void old.terminate();
  }

  private failPending(slot: Slot, message: string): void {
    for (const p of slot.pending.values()) p.resolve(errorOutcome(500, message));
    slot.pending.clear();
  }
}
