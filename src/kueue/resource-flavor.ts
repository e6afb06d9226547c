import { ApiObject } from 'cdk8s';
import { Construct, IConstruct } from 'constructs';
import { AppInventory, InventoryEntry } from '../platform/inventory';
import { FlavorTaint, FlavorToleration, tolerationProblem } from '../platform/toleration';
import { resolveVersions } from '../platform/versions';
import { checkedName, createKueueObject } from './kueue-api-object';

/** A reference to a ResourceFlavor. */
export interface IResourceFlavor extends IConstruct {
  /** metadata.name of the flavor. */
  readonly resourceFlavorName: string;
}

/** Settings of a ResourceFlavor: the node labels, taints and tolerations that pick the nodes its quota stands for. */
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
  /** The ResourceFlavor object as synthesized: add fields Kueue accepts that no prop covers with `addJsonPatch`. */
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
    const spec: Record<string, unknown> = {};
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
