import { ApiObject } from 'cdk8s';
import { Construct, IConstruct } from 'constructs';
import { AppInventory, InventoryEntry } from '../platform/inventory';
import { tolerationProblem } from '../platform/toleration';
import { resolveVersions } from '../platform/versions';
import { checkedName, createKueueObject } from './kueue-api-object';

/** Taint effects Kueue evaluates on flavors. */
export enum TaintEffect {
  NO_SCHEDULE = 'NoSchedule',
  PREFER_NO_SCHEDULE = 'PreferNoSchedule',
  NO_EXECUTE = 'NoExecute',
}

/** Toleration operators. */
export enum TolerationOperator {
  EQUAL = 'Equal',
  EXISTS = 'Exists',
}

/** A node taint that a ResourceFlavor's nodes carry. */
export interface FlavorTaint {
  readonly key: string;
  /** @default - no value */
  readonly value?: string;
  readonly effect: TaintEffect;
}

/** A toleration Kueue injects into admitted pods of this flavor. */
export interface FlavorToleration {
  /** @default - matches every key (operator must be EXISTS) */
  readonly key?: string;
  /** @default TolerationOperator.EQUAL */
  readonly operator?: TolerationOperator;
  /** @default - no value */
  readonly value?: string;
  /** @default - every effect */
  readonly effect?: TaintEffect;
}

/** A reference to a ResourceFlavor. */
export interface IResourceFlavor extends IConstruct {
  /** metadata.name of the flavor. */
  readonly resourceFlavorName: string;
}

export interface ResourceFlavorProps {
  /**
   * metadata.name.
   * @default - the construct id
   */
  readonly name?: string;
  /**
   * Node labels of the flavor's nodes; Kueue injects them as nodeSelector into admitted pods (max 8).
   * @default - none (an "empty" flavor matching every node)
   */
  readonly nodeLabels?: Record<string, string>;
  /**
   * Taints of the flavor's nodes (max 8).
   * @default - none
   */
  readonly nodeTaints?: FlavorTaint[];
  /**
   * Tolerations Kueue adds to admitted pods (max 8).
   * @default - none
   */
  readonly tolerations?: FlavorToleration[];
}

/** A Kueue ResourceFlavor (cluster-scoped): a kind of node that quota is counted against. */
export class ResourceFlavor extends Construct implements IResourceFlavor {
  /** A flavor defined outside this app. */
  public static fromResourceFlavorName(scope: Construct, id: string, name: string): IResourceFlavor {
    return new ImportedResourceFlavor(scope, id, name);
  }

  public readonly resourceFlavorName: string;
  public readonly apiObject: ApiObject;

  public constructor(scope: Construct, id: string, props: ResourceFlavorProps = {}) {
    super(scope, id);
    const caps = resolveVersions(this).kueue;
    this.resourceFlavorName = checkedName(this, 'ResourceFlavor', props.name ?? id);
    for (const [field, list] of [['nodeLabels', Object.keys(props.nodeLabels ?? {})], ['nodeTaints', props.nodeTaints ?? []],
      ['tolerations', props.tolerations ?? []]] as const) {
      if (list.length > 8) throw new Error(`ResourceFlavor '${this.node.path}': spec.${field} has ${list.length} entries; Kueue allows at most 8. `
        + 'Fix: keep the 8 that select the nodes.');
    }
    for (const t of props.tolerations ?? []) {
      const problem = tolerationProblem(t);
      if (problem) throw new Error(`ResourceFlavor '${this.node.path}': spec.tolerations: ${problem}`);
    }
    const spec: Record<string, any> = {};
    if (props.nodeLabels && Object.keys(props.nodeLabels).length) spec.nodeLabels = { ...props.nodeLabels };
    if (props.nodeTaints?.length) spec.nodeTaints = props.nodeTaints.map((t) => ({ key: t.key, value: t.value, effect: t.effect }));
    if (props.tolerations?.length) {
      spec.tolerations = props.tolerations.map((t) => ({ key: t.key, operator: t.operator, value: t.value, effect: t.effect }));
    }
    this.apiObject = createKueueObject(this, { kind: 'ResourceFlavor', caps, name: this.resourceFlavorName, body: () => ({ spec }) });
    const inv = AppInventory.of(this);
    inv.register(this);
    this.node.addValidation({ validate: () => inv.duplicatesOf(this)
      .map((p) => `ResourceFlavor "${this.resourceFlavorName}" is also defined at '${p}'. Fix: give each ResourceFlavor a unique name, `
        + 'or reuse one object.') });
  }

  /** @internal */
  public _inventoryEntry(): InventoryEntry {
    return { kind: 'ResourceFlavor', entry: { name: this.resourceFlavorName } };
  }
}

class ImportedResourceFlavor extends Construct implements IResourceFlavor {
  public constructor(scope: Construct, id: string, public readonly resourceFlavorName: string) {
    super(scope, id);
  }
}
