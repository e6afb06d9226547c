/**
 * Plan.of(app): the preview inside a cdk8s app. Synthesizes the app's Kueue and Ray objects (in the
 * order of the charts and of their objects), runs the pure plan simulator for the app's Kueue version
 * and exposes the result with jsii-friendly types, so a test can assert "this job is admitted" at synth.
 */
import { Chart } from 'cdk8s';
import { IConstruct } from 'constructs';
import { resolveVersions } from '../platform/versions';
import { isRecord } from '../policy/json';
import { isRayKindName, RayObject } from '../policy/kinds';
import { kueueConfigNote, kueueConfigOf, kueueManagerOf, simulatePlan } from '../policy/plan';
import { kueueCapabilities } from '../policy/versions';
import { planToText } from './text';

/** Options of Plan.of. */
export interface PlanOptions {
  /**
   * Kueue version to plan for.
   * @default - the version chosen with KueueRayVersions.use, else the library default
   */
  readonly kueueVersion?: string;
}

/** The flavor chosen for the resources of one PodSet. */
export interface PlannedPodSet {
  /** PodSet name: "head" or a worker group's name. */
  readonly podSet: string;
  /** Pods of the PodSet. */
  readonly count: number;
  /** resource → flavor. */
  readonly flavors: { [resource: string]: string };
}

/** A workload evicted to make room. */
export interface PlannedVictim {
  /** "Kind namespace/name". */
  readonly workload: string;
  /** The victim's ClusterQueue. */
  readonly clusterQueue: string;
  /** InClusterQueue, InCohortReclamation or InCohortReclaimWhileBorrowing. */
  readonly reason: string;
  /** Why it is preempted, in words: which quota the preemptor needs and what the victim holds. */
  readonly why: string;
}

/** What Kueue will do with one Ray object. */
export interface PlannedWorkload {
  /** "Kind namespace/name" (generateName objects: "prefix-(n)", n counting from 1 in app order). */
  readonly workload: string;
  /** metadata.name (for a generateName object, the "prefix-(n)" of `workload`). */
  readonly name: string;
  /** The object's namespace. */
  readonly namespace: string;
  /** RayJob, RayCluster or RayService. */
  readonly kind: string;
  /** Arrival position, from 0: the order Kueue would see the objects in. */
  readonly arrival: number;
  /** admitted, admitted-by-preempting, pending, never-admissible or not-queued. */
  readonly outcome: string;
  /** True when the outcome is admitted or admitted-by-preempting. */
  readonly admitted: boolean;
  /**
   * The ClusterQueue its LocalQueue points to.
   * @default - not in a ClusterQueue
   */
  readonly clusterQueue?: string;
  /** Its priority: the value of its WorkloadPriorityClass, else 0. */
  readonly priority: number;
  /** The flavor picked for each PodSet, when admitted. */
  readonly podSets: PlannedPodSet[];
  /** The workloads it preempts to be admitted. */
  readonly preempted: PlannedVictim[];
  /**
   * Why it waits, as a category (e.g. quota, borrowing, flavor).
   * @default - not pending
   */
  readonly pendingCategory?: string;
  /**
   * Why it waits, in Kueue's words.
   * @default - not pending
   */
  readonly pendingMessage?: string;
  /**
   * Why it can never be admitted as written (e.g. it asks more than the ClusterQueue could ever lend it).
   * @default - can be admitted
   */
  readonly neverAdmissible?: string;
  /**
   * When its (last) admission happens on the plan's timeline, in seconds from the start (its expected duration
   * and those of the workloads ahead of it decide; see the plan docs).
   * @default - never within the plan
   */
  readonly admittedAt?: number;
  /**
   * When it finishes: admission plus its expected duration.
   * @default - not within the plan, or its duration is unknown
   */
  readonly finishedAt?: number;
  /**
   * The workloads ("Kind namespace/name") whose finish or preemption freed the quota it was admitted on; for one
   * still pending, the admitted workloads it waits behind.
   */
  readonly waitsFor: string[];
}

const KUEUE_KINDS = new Set(['ClusterQueue', 'Cohort', 'ResourceFlavor', 'LocalQueue', 'WorkloadPriorityClass', 'Namespace', 'Topology']);
const isKueueKind = (kind: unknown) => typeof kind === 'string' && KUEUE_KINDS.has(kind);

/** The kind of a synthesized object. */
const kindOf = (o: unknown): unknown => (isRecord(o) ? o.kind : undefined);
const nameOf = (o: unknown): unknown => (isRecord(o) && isRecord(o.metadata) ? o.metadata.name : undefined);

/** The plan of an app: what Kueue admits, keeps pending or preempts, and why. */
export class Plan {
  /** Plans every Kueue and Ray object of `scope` (an App or a Chart) in synth order. */
  public static of(scope: IConstruct, options: PlanOptions = {}): Plan {
    // Every chart, in tree order (an App's `charts` may leave some out, e.g. ones written for `kubectl create`).
    const charts = scope.node.findAll().filter((c): c is Chart => c instanceof Chart);
    const objects = charts.flatMap((c) => c.toJson() as unknown[]);
    const versions = resolveVersions(scope);
    return new Plan(objects, options.kueueVersion ?? versions.kueue.version, versions.kubeRay.version);
  }

  /** Every planned workload, in arrival order. */
  public readonly workloads: PlannedWorkload[];
  /** The plan as text (what `cdk8s-kueue-ray plan` prints). */
  public readonly text: string;
  /** The plan as JSON (the schema of `plan --output json`). */
  public readonly json: string;

  private constructor(objects: readonly unknown[], kueueVersion: string, kubeRayVersion: string) {
    // The app's KueueInstall, when it has one: its Configuration decides fair sharing, as the CLI reads it from the files.
    const source = kueueManagerOf(objects, (i) => `the app (${String(kindOf(objects[i]))} ${String(nameOf(objects[i]))})`);
    const caps = kueueCapabilities(kueueVersion);
    const kueueConfig = source ? kueueConfigOf(source, caps) : undefined;
    const planned = simulatePlan({
      kueueObjects: objects.filter((o) => isKueueKind(kindOf(o))), arrivals: objects.filter((o): o is RayObject => isRayKindName(kindOf(o))),
      // Topology-aware scheduling places pods on the app's Node objects, if it has any (an ApiObject per node).
      nodes: objects.filter((o) => kindOf(o) === 'Node'),
      kueueVersion, kubeRayVersion, kueueConfig,
    });
    const note = kueueConfig && source ? kueueConfigNote(kueueConfig, caps, source.where) : undefined;
    const result = note ? { ...planned, notes: [note, ...planned.notes] } : planned;
    this.text = planToText(result);
    this.json = JSON.stringify(result);
    this.workloads = result.workloads.map((w) => ({
      workload: w.workload, name: w.name, namespace: w.namespace, kind: w.kind, arrival: w.arrival, outcome: w.outcome,
      admitted: w.outcome === 'admitted' || w.outcome === 'admitted-by-preempting', clusterQueue: w.clusterQueue, priority: w.priority,
      podSets: (w.admission ?? []).map((p) => ({ podSet: p.podSet, count: p.count, flavors: { ...p.flavors } })),
      preempted: (w.preempted ?? []).map((v) => ({ workload: v.workload, clusterQueue: v.clusterQueue, reason: v.reason, why: v.why })),
      pendingCategory: w.pending?.category, pendingMessage: w.pending?.message, neverAdmissible: w.neverAdmissible,
      admittedAt: w.admittedAt ?? undefined, finishedAt: w.finishedAt ?? undefined, waitsFor: [...w.waitsFor],
    }));
  }

  /** The workload named `name` (its name, or "Kind namespace/name"); throws listing the known ones otherwise. */
  public workload(name: string): PlannedWorkload {
    const w = this.workloads.find((x) => x.workload === name || x.name === name);
    if (!w) throw new Error(`Plan: no workload '${name}'; the plan has ${this.workloads.map((x) => x.workload).join(', ') || 'none'}`);
    return w;
  }

  /** Whether the workload named `name` ends up admitted. */
  public isAdmitted(name: string): boolean {
    return this.workload(name).admitted;
  }

  /**
   * When the workload named `name` starts, in seconds from the plan's start (0: at once), or undefined when it
   * does not start within the plan.
   */
  public startsAt(name: string): number | undefined {
    return this.workload(name).admittedAt;
  }
}
