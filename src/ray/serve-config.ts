import { stringify } from 'yaml';

/** The Ray Serve config of a RayService (spec.serveConfigV2), shared by QueuedRayService and ElasticRayService. */
export interface RayServeProps {
  /**
   * Ray Serve config (serveConfigV2) as an object, e.g. { applications: [...] }. Give this or `serveConfigV2Yaml`.
   * @default - none
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any: a public jsii prop (Ray Serve's config, rendered to YAML as given); the type of the published API stays.
  readonly serveConfig?: Record<string, any>;
  /**
   * Ray Serve config as the YAML string KubeRay takes.
   * @default - none
   */
  readonly serveConfigV2Yaml?: string;
}

/** Refuses anything but exactly one of the two forms, at the constructor. */
export function checkServeConfig(props: RayServeProps, where: string): void {
  if (!!props.serveConfig === !!props.serveConfigV2Yaml) {
    throw new Error(`${where}: give exactly one of 'serveConfig' or 'serveConfigV2Yaml' (spec.serveConfigV2).`);
  }
}

/** spec.serveConfigV2 as KubeRay takes it: the YAML string as given, or the object rendered to YAML. */
export function serveConfigV2(props: RayServeProps): string {
  return props.serveConfigV2Yaml ?? stringify(props.serveConfig);
}
