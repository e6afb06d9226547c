import * as fs from 'fs';
import * as path from 'path';
import { App, AppProps, Chart, Yaml } from 'cdk8s';
import { isRecord } from '../policy/json';

/** Settings of a KueueRayApp: cdk8s's AppProps, and where the charts of generateName objects are written. */
export interface KueueRayAppProps extends AppProps {
  /**
   * Folder under `outdir` that receives the charts whose objects all have `metadata.generateName`
   * (for `kubectl create -f`). It is emptied at each synth.
   * @default "create"
   */
  readonly createDir?: string;
}

/** The object's metadata, when it has one. */
function metadataOf(o: unknown): Record<string, unknown> | undefined {
  return isRecord(o) && isRecord(o.metadata) ? o.metadata : undefined;
}

/** "Kind name" of an object, generateName shown as "prefix*". */
function label(o: unknown): string {
  const m = metadataOf(o);
  const name = m?.name ?? `${String(m?.generateName)}*`;
  return `${String(isRecord(o) ? o.kind : undefined)} ${typeof name === 'string' ? name : JSON.stringify(name)}`;
}

const generated = (o: unknown) => !metadataOf(o)?.name && typeof metadataOf(o)?.generateName === 'string';

/**
 * An App for apps that submit jobs with `metadata.generateName` (e.g. a QueuedRayJob's `generateName`,
 * to run the same job again and again). Server-side apply needs a name, so such objects make an
 * ordered apply of the whole output refuse. This App writes each chart whose objects all have a
 * generateName to `<outdir>/<createDir>/<chart id>.k8s.yaml`, for `kubectl create -f`, and every
 * other chart to `<outdir>/` as App does. A chart that mixes named and generateName objects fails
 * synth: put the generateName objects in a chart of their own.
 */
export class KueueRayApp extends App {
  /** The folder the generateName charts are written to. */
  public readonly createOutdir: string;
  /** During synth: the charts written to createOutdir. */
  private createOnly?: Set<Chart>;
  private synthesizing = false;

  public constructor(props: KueueRayAppProps = {}) {
    super(props);
    const dir = props.createDir ?? 'create';
    if (!dir || path.isAbsolute(dir) || dir.split(/[\\/]/).some((p) => p === '..' || p === '') || dir === '.') {
      throw new Error(`KueueRayApp: createDir '${dir}' must be a folder name under outdir (e.g. "create"), not absolute, empty or with "..".`);
    }
    this.createOutdir = path.join(this.outdir, dir);
  }

  /** The charts App.synth writes to outdir: during synth, all but the generateName charts. */
  public override get charts(): Chart[] {
    const all = super.charts;
    if (!this.synthesizing) return all;
    // App.synth asks for the charts after validation, when every patch of the objects is in place.
    this.createOnly ??= this.generateNameCharts(all);
    return all.filter((c) => !this.createOnly!.has(c));
  }

  /** Writes outdir as App does, then the generateName charts to createOutdir. */
  public override synth(): void {
    this.synthesizing = true;
    this.createOnly = undefined;
    try {
      super.synth();
      fs.rmSync(this.createOutdir, { recursive: true, force: true });
      const charts = [...(this.createOnly ?? this.generateNameCharts(super.charts))];
      if (charts.length) fs.mkdirSync(this.createOutdir, { recursive: true });
      for (const chart of charts) Yaml.save(path.join(this.createOutdir, `${chart.node.id}${this.outputFileExtension}`), chart.toJson());
    } finally {
      this.synthesizing = false;
      this.createOnly = undefined;
    }
  }

  private generateNameCharts(charts: Chart[]): Set<Chart> {
    const out = new Set<Chart>();
    for (const chart of charts) {
      const objs: readonly unknown[] = chart.toJson();
      const gen = objs.filter(generated);
      if (!gen.length) continue;
      const named = objs.filter((o) => !generated(o));
      if (named.length) {
        throw new Error(`KueueRayApp: chart '${chart.node.path}' mixes objects with metadata.generateName (${gen.slice(0, 3).map(label).join(', ')}) `
          + `and named objects (${named.slice(0, 3).map(label).join(', ')}): the first cannot be applied and the second cannot be created twice. `
          + `Fix: put the generateName objects in a chart of their own; it is written to ${this.createOutdir} for \`kubectl create -f\`.`);
      }
      out.add(chart);
    }
    return out;
  }
}
