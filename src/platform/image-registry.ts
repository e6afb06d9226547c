import { IConstruct } from 'constructs';

/** The public registries the installs pull from; their images are the ones a mirror replaces. */
export const PUBLIC_REGISTRIES: readonly string[] = ['registry.k8s.io', 'quay.io', 'docker.io', 'ghcr.io'];

const MIRROR_KEY = 'cdk8s-kueue-ray:imageMirror';
// host[:port] then optional path segments; no scheme, no tag.
const MIRROR = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?(:[0-9]{1,5})?(\/[a-z0-9]([-a-z0-9._]*[a-z0-9])?)*$/;

/** Settings of ImageRegistry.use: the registry mirror that every install's and the controller's images are pulled from. */
export interface ImageRegistryProps {
  /**
   * Registry (and optional path) that mirrors the public registries, e.g. "registry.corp.example/mirror".
   * Every image the installs (KueueInstall, KubeRayInstall, AdmissionController) take from
   * registry.k8s.io, quay.io, docker.io or ghcr.io is pulled from here instead, with the same path:
   * "registry.k8s.io/kueue/kueue:v0.19.2" becomes "registry.corp.example/mirror/kueue/kueue:v0.19.2".
   * An install's own `image` prop wins over it.
   * @default - the public registries
   */
  readonly mirror?: string;
}

/**
 * Chooses, once for an app (or a subtree), the registry the installs pull their images from: for
 * clusters that cannot reach the public registries. The same choice can come from the context key
 * `cdk8s-kueue-ray:imageMirror`.
 */
export class ImageRegistry {
  /** Sets the mirror on `scope` (usually the App). Call before adding the installs. */
  public static use(scope: IConstruct, props: ImageRegistryProps = {}): void {
    if (props.mirror === undefined) return;
    scope.node.setContext(MIRROR_KEY, checkMirror(props.mirror, `ImageRegistry.use('${scope.node.path || '<app>'}')`));
  }

  /**
   * The mirror in effect at `scope`.
   * @returns the mirror, or undefined for the public registries
   */
  public static mirrorOf(scope: IConstruct): string | undefined {
    const m: unknown = scope.node.tryGetContext(MIRROR_KEY);
    if (m === undefined || m === null || m === '') return undefined;
    // A value that is no string (a context object) is named as JSON, not as "[object Object]".
    return checkMirror(typeof m === 'string' ? m : JSON.stringify(m), `context ${MIRROR_KEY} at '${scope.node.path || '<app>'}'`);
  }

  private constructor() {}
}

function checkMirror(value: string, where: string): string {
  const m = value.replace(/\/+$/, '');
  if (!MIRROR.test(m)) {
    throw new Error(`${where}: mirror '${value}' is not a registry host with an optional path (no scheme, no tag). Fix: e.g. `
      + '"registry.corp.example/mirror".');
  }
  return m;
}

/** `image` pulled from `mirror` when it comes from a public registry (same path); otherwise unchanged. @internal */
export function mirroredImage(image: string, mirror: string | undefined): string {
  if (!mirror) return image;
  const slash = image.indexOf('/');
  if (slash < 0 || !PUBLIC_REGISTRIES.includes(image.slice(0, slash))) return image;
  return `${mirror}/${image.slice(slash + 1)}`;
}
