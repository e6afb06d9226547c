/**
 * A Kueue object (ClusterQueue, LocalQueue, ResourceFlavor, ...) of an API version the Kueue it is for does not
 * serve: the API server refuses it at apply. Kueue 0.20 stops serving kueue.x-k8s.io/v1beta1 (kueue#13957), and
 * before 0.15 nothing serves v1beta2. `check` reads it at the version the flag or the install asks for, also past
 * the newest modelled version (modelled-version.ts), since that is where it bites.
 */
import { Finding, kubeObjectRef } from '../findings';
import { isRecord } from '../json';
import { kueueServedApiVersions } from '../versions';
import type { RuleRecord } from './rule';

const KUEUE_GROUP = 'kueue.x-k8s.io/';

/** An object of Kueue's API group (kueue.x-k8s.io/*), at any version. */
export function isKueueObject(obj: unknown): obj is Record<string, unknown> & { apiVersion: string } {
  return isRecord(obj) && typeof obj.apiVersion === 'string' && obj.apiVersion.startsWith(KUEUE_GROUP);
}

function kueueApiVersionFindings(obj: unknown, kueueVersion: string): Finding[] {
  if (!isKueueObject(obj)) return [];
  const served = kueueServedApiVersions(kueueVersion);
  if (served.includes(obj.apiVersion)) return [];
  const newest = served[served.length - 1];
  return [{
    rule: KUEUE_API_VERSION_RULE.name, severity: 'error', object: kubeObjectRef(obj), field: 'apiVersion',
    source: KUEUE_API_VERSION_RULE.source,
    message: `Kueue ${kueueVersion} does not serve ${obj.apiVersion} (it serves ${served.join(', ')}): the API server refuses the object at apply`,
    fix: `write it as ${newest}${obj.apiVersion.endsWith('/v1beta1') && newest.endsWith('/v1beta2')
      ? ' (renamed fields: cohort → cohortName, admissionChecks → admissionChecksStrategy; the constructs write it for you)' : ''}, `
      + 'or target the Kueue version the file was written for',
  }];
}

export const KUEUE_API_VERSION_RULE: RuleRecord<typeof kueueApiVersionFindings> = {
  name: 'kueueApiVersionServed', source: 'kubernetes', kinds: [],
  description: 'A Kueue object\'s apiVersion is one its Kueue version serves (v1beta2 from 0.15; v1beta1 no longer from 0.20).',
  check: kueueApiVersionFindings,
};
