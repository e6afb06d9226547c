/**
 * A ServiceAccount named across charts: the installs say which account their operator runs as, and the
 * AdmissionController trusts those accounts. Here, below both, so neither imports the other for it.
 */

/** A ServiceAccount by namespace and name. */
export interface ServiceAccountReference {
  /** Namespace of the ServiceAccount. */
  readonly namespace: string;
  /** Name of the ServiceAccount, e.g. "kueue-controller-manager". */
  readonly name: string;
}
