import { IConstruct } from 'constructs';
import { ImageRegistry, mirroredImage } from '../platform/image-registry';
import { isDns1123Subdomain } from '../policy/k8s-names';

/** Where an install's image is pulled from, as the upstream Helm charts take it (`image.repository`, `image.tag`). */
export interface ContainerImage {
  /**
   * Repository without the tag, e.g. "registry.corp.example/kueue/kueue".
   * @default - the release's repository (behind the ImageRegistry mirror, when one is set)
   */
  readonly repository?: string;
  /**
   * Tag, e.g. "v0.19.2".
   * @default - the release's tag (the installed version)
   */
  readonly tag?: string;
}

// A repository: optional host[:port], then path segments; no tag, no digest.
const REPOSITORY = /^([a-zA-Z0-9]([-a-zA-Z0-9.]*[a-zA-Z0-9])?(:[0-9]{1,5})?\/)?[a-z0-9]+([._-]+[a-z0-9]+)*(\/[a-z0-9]+([._-]+[a-z0-9]+)*)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** Splits "repo:tag" (a port in the host is not a tag). */
function splitImage(image: string): { repository: string; tag: string } {
  const colon = image.lastIndexOf(':');
  if (colon < 0 || image.indexOf('/', colon) >= 0) return { repository: image, tag: 'latest' };
  return { repository: image.slice(0, colon), tag: image.slice(colon + 1) };
}

/**
 * The image an install's container runs: the release's, pulled from the app's mirror, with the
 * install's `image` repository and tag on top (they win). @internal
 */
export function installImage(scope: IConstruct, releaseImage: string, override: ContainerImage | undefined, where: string): string {
  const base = splitImage(mirroredImage(releaseImage, ImageRegistry.mirrorOf(scope)));
  const repository = override?.repository ?? base.repository;
  const tag = override?.tag ?? base.tag;
  if (!REPOSITORY.test(repository)) {
    throw new Error(`${where}: image.repository '${repository}' is not an image repository (lowercase path, optional registry host; no tag). `
      + 'Fix: e.g. "registry.corp.example/kueue/kueue", and the tag in image.tag.');
  }
  if (!TAG.test(tag)) {
    throw new Error(`${where}: image.tag '${tag}' is not an image tag (letters, digits, "_", "." and "-", at most 128). Fix: e.g. "v0.19.2".`);
  }
  return `${repository}:${tag}`;
}

/** The pod spec's `imagePullSecrets` for Secret names (nothing when none), validated. @internal */
export function pullSecretsField(names: readonly string[] | undefined, where: string): Record<string, Array<{ name: string }>> {
  if (!names?.length) return {};
  for (const n of names) {
    if (!isDns1123Subdomain(n)) {
      throw new Error(`${where}: imagePullSecrets '${n}' is not a Secret name (a DNS-1123 subdomain). Fix: name a docker-registry Secret in the `
        + 'install\'s namespace.');
    }
  }
  return { imagePullSecrets: names.map((name) => ({ name })) };
}
