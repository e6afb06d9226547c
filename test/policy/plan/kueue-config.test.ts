// The manager's Configuration as the plan reads it (src/policy/plan/kueue-config.ts): the switches per apiVersion,
// Kueue's defaults, the gates at each modelled version, and what Kueue refuses at start-up, refused here naming the field.
import { kueueConfigNote, kueueConfigOf } from '../../../src/policy/plan';
import { kueueCapabilities, SUPPORTED_KUEUE_VERSIONS } from '../../../src/policy/versions';

const V1 = 'config.kueue.x-k8s.io/v1beta1';
const V2 = 'config.kueue.x-k8s.io/v1beta2';
const where = 'dist/kueue.yaml (ConfigMap kueue-system/kueue-manager-config)';
const read = (version: string, config?: unknown, args?: unknown[]) => kueueConfigOf({ config, args, where }, kueueCapabilities(version));

test('without a Configuration: fair sharing and admission fair sharing off, each decision gate at its default for the version', () => {
  const expected: Record<string, Record<string, string>> = {
    'v0.13.4': { AdmissionFairSharing: 'off', TopologyAwareScheduling: 'off', FairSharingPreemptWithinNominal: 'absent',
      FairSharingPrioritizeNonBorrowing: 'absent' },
    'v0.14.8': { AdmissionFairSharing: 'off', TopologyAwareScheduling: 'on', FairSharingPreemptWithinNominal: 'absent',
      FairSharingPrioritizeNonBorrowing: 'absent' },
    'v0.17.0': { AdmissionFairSharing: 'on', TopologyAwareScheduling: 'on', FairSharingPreemptWithinNominal: 'on',
      FairSharingPrioritizeNonBorrowing: 'on' },
  };
  expected['v0.17.8'] = expected['v0.17.0'];
  expected['v0.19.2'] = expected['v0.17.0'];
  expect(Object.keys(expected).sort()).toEqual([...SUPPORTED_KUEUE_VERSIONS].sort());
  for (const v of SUPPORTED_KUEUE_VERSIONS) {
    const c = read(v);
    expect([v, c.fairSharing, c.admissionFairSharing, c.gates]).toEqual([v, undefined, undefined, expected[v]]);
    expect(kueueConfigNote(c, { version: v }, where)).toBeUndefined();
  }
});

test('v1beta1: fairSharing.enable switches it, the strategies default to both; enable false or absent is off', () => {
  expect(read('v0.14.8', `apiVersion: ${V1}\nkind: Configuration\nfairSharing:\n  enable: true\n`).fairSharing)
    .toEqual({ preemptionStrategies: ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'] });
  expect(read('v0.14.8', { apiVersion: V1, fairSharing: { enable: true, preemptionStrategies: ['LessThanInitialShare'] } }).fairSharing)
    .toEqual({ preemptionStrategies: ['LessThanInitialShare'] });
  expect(read('v0.14.8', { apiVersion: V1, fairSharing: { enable: false, preemptionStrategies: ['LessThanInitialShare'] } }).fairSharing)
    .toBeUndefined();
  expect(read('v0.14.8', { apiVersion: V1, fairSharing: {} }).fairSharing).toBeUndefined();
  // The newer managers read a v1beta1 file the same way (it converts; enable false becomes no section).
  expect(read('v0.19.2', { apiVersion: V1, fairSharing: { enable: true } }).fairSharing)
    .toEqual({ preemptionStrategies: ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'] });
  expect(read('v0.19.2', { apiVersion: V1, fairSharing: { enable: false } }).fairSharing).toBeUndefined();
  // An unsupported set is refused whichever the version (validation.go validStrategySets).
  const reversed = ['LessThanInitialShare', 'LessThanOrEqualToFinalShare'];
  expect(() => read('v0.14.8', { apiVersion: V1, fairSharing: { enable: true, preemptionStrategies: reversed } }))
    .toThrow(/fairSharing\.preemptionStrategies: Unsupported value: \["LessThanInitialShare","LessThanOrEqualToFinalShare"\]; Kueue v0\.14\.8 refuses the Configuration.*Fix: use one of \[LessThanOrEqualToFinalShare\]/);
});

test('v1beta2: the section\'s presence switches it, the strategies required; a manager before 0.15 does not read v1beta2', () => {
  expect(read('v0.19.2', { apiVersion: V2, fairSharing: { preemptionStrategies: ['LessThanOrEqualToFinalShare'] } }).fairSharing)
    .toEqual({ preemptionStrategies: ['LessThanOrEqualToFinalShare'] });
  expect(read('v0.19.2', { apiVersion: V2 }).fairSharing).toBeUndefined();
  expect(() => read('v0.17.0', { apiVersion: V2, fairSharing: {} }))
    .toThrow(`${where}: fairSharing.preemptionStrategies: Required value: must be specified; Kueue v0.17.0 refuses the Configuration`);
  expect(() => read('v0.14.8', { apiVersion: V2 }))
    .toThrow(/apiVersion: Kueue v0\.14\.8 reads a Configuration of config\.kueue\.x-k8s\.io\/v1beta1, not "config\.kueue\.x-k8s\.io\/v1beta2".*Fix: write apiVersion: config\.kueue\.x-k8s\.io\/v1beta1/);
  expect(() => read('v0.19.2', 'fairSharing: [unclosed')).toThrow(/controller_manager_config\.yaml: not YAML/);
  expect(() => read('v0.19.2', { apiVersion: V2, fairSharing: 'on' })).toThrow(/fairSharing: "on" is not a map/);
});

test('admission fair sharing: the section with the gate on; the sampling interval defaults to 5m; negative values refused', () => {
  const afs = { usageHalfLifeTime: '168h', resourceWeights: { cpu: 2, 'nvidia.com/gpu': 0.5 } };
  expect(read('v0.19.2', { apiVersion: V2, admissionFairSharing: afs }).admissionFairSharing)
    .toEqual({ usageHalfLifeTime: 604800, usageSamplingInterval: 300, resourceWeights: { 'cpu': 2, 'nvidia.com/gpu': 0.5 } });
  // Alpha and off at 0.14: the section alone does nothing; the gate turns it on.
  const off = read('v0.14.8', { apiVersion: V1, admissionFairSharing: afs });
  expect([off.admissionFairSharing, off.admissionFairSharingGatedOff]).toEqual([undefined, true]);
  const on = read('v0.14.8', { apiVersion: V1, admissionFairSharing: { ...afs, usageSamplingInterval: '1m' } },
    ['--feature-gates=AdmissionFairSharing=true']);
  expect(on.admissionFairSharing).toEqual({ usageHalfLifeTime: 604800, usageSamplingInterval: 60, resourceWeights: afs.resourceWeights });
  expect(on.gatesSetBy).toBe('--feature-gates');
  // Turned off on a version where it is on by default.
  expect(read('v0.19.2', { apiVersion: V2, admissionFairSharing: afs, featureGates: { AdmissionFairSharing: false } }).admissionFairSharing)
    .toBeUndefined();
  // A half-life of 0 is accepted (and does nothing: check warns, issue 44); absent is 0 too.
  expect(read('v0.19.2', { apiVersion: V2, admissionFairSharing: {} }).admissionFairSharing)
    .toEqual({ usageHalfLifeTime: 0, usageSamplingInterval: 300, resourceWeights: {} });
  expect(() => read('v0.19.2', { apiVersion: V2, admissionFairSharing: { usageHalfLifeTime: '-1h' } }))
    .toThrow(/admissionFairSharing\.usageHalfLifeTime: must be greater than or equal to 0/);
  expect(() => read('v0.19.2', { apiVersion: V2, admissionFairSharing: { usageSamplingInterval: '-5m' } }))
    .toThrow(/admissionFairSharing\.usageSamplingInterval: must be greater than 0/);
  expect(() => read('v0.19.2', { apiVersion: V2, admissionFairSharing: { resourceWeights: { cpu: -1 } } }))
    .toThrow(/admissionFairSharing\.resourceWeights\[cpu\]: must be greater than or equal to 0/);
  expect(() => read('v0.19.2', { apiVersion: V2, admissionFairSharing: { usageHalfLifeTime: 'a week' } }))
    .toThrow(/admissionFairSharing\.usageHalfLifeTime: "a week" is not a duration/);
});

test('the gates: from --feature-gates or featureGates, never both; a gate the version lacks, or a malformed one, is refused', () => {
  const args = ['--zap-log-level=2', '--feature-gates=TopologyAwareScheduling=false,FairSharingPreemptWithinNominal=false'];
  expect(read('v0.19.2', { apiVersion: V2 }, args).gates).toEqual({ AdmissionFairSharing: 'on', TopologyAwareScheduling: 'off',
    FairSharingPreemptWithinNominal: 'off', FairSharingPrioritizeNonBorrowing: 'on' });
  expect(read('v0.19.2', { apiVersion: V2, featureGates: { FairSharingPrioritizeNonBorrowing: false, SomeOtherGate: true } }).gates
    .FairSharingPrioritizeNonBorrowing).toBe('off');
  expect(() => read('v0.19.2', { apiVersion: V2, featureGates: { TopologyAwareScheduling: true } }, ['--feature-gates=AdmissionFairSharing=true']))
    .toThrow(/featureGates: feature gates for CLI and configuration cannot both specified; Kueue v0\.19\.2 refuses/);
  expect(() => read('v0.14.8', { apiVersion: V1 }, ['--feature-gates=FairSharingPreemptWithinNominal=true']))
    .toThrow(/--feature-gates\[FairSharingPreemptWithinNominal\]: Kueue v0\.14\.8 has no FairSharingPreemptWithinNominal feature gate/);
  // Go's strconv.ParseBool: "1", "T", "False" are booleans; "yes" and a name of Object.prototype are not.
  expect(read('v0.19.2', { apiVersion: V2 }, ['--feature-gates=AdmissionFairSharing=F,TopologyAwareScheduling=1']).gates)
    .toMatchObject({ AdmissionFairSharing: 'off', TopologyAwareScheduling: 'on' });
  expect(() => read('v0.19.2', { apiVersion: V2 }, ['--feature-gates=AdmissionFairSharing=toString']))
    .toThrow(/--feature-gates: "AdmissionFairSharing=toString" is not NAME=true or NAME=false/);
  expect(() => read('v0.19.2', { apiVersion: V2 }, ['--feature-gates=TopologyAwareScheduling']))
    .toThrow(/--feature-gates: "TopologyAwareScheduling" is not NAME=true or NAME=false/);
  expect(() => read('v0.19.2', { apiVersion: V2, featureGates: { AdmissionFairSharing: 'yes' } }))
    .toThrow(/featureGates\[AdmissionFairSharing\]: "yes" is not true or false/);
});

test('the note: what is on, how the plan models it, and where it was read; none when both are off', () => {
  const caps = kueueCapabilities('v0.19.2');
  const both = kueueConfigOf({ config: { apiVersion: V2, fairSharing: { preemptionStrategies: ['LessThanInitialShare'] },
    admissionFairSharing: { usageHalfLifeTime: '1h' } }, where }, caps);
  expect(kueueConfigNote(both, caps, where)).toBe(`Kueue v0.19.2 configuration read from ${where}: fair sharing on (preemption strategies `
    + 'LessThanInitialShare), admission fair sharing on (usageHalfLifeTime 3600 s, usageSamplingInterval 300 s). The plan orders each cohort\'s '
    + 'heads and picks preemption victims by fair sharing\'s dominant resource shares, as Kueue does. ClusterQueues with admissionScope '
    + 'UsageBasedAdmissionFairSharing order their workloads by LocalQueue usage, as Kueue does.');
  const fs = kueueConfigOf({ config: { apiVersion: V2, fairSharing: { preemptionStrategies: ['LessThanInitialShare'] } }, where }, caps);
  expect(kueueConfigNote(fs, caps, where)).toBe(`Kueue v0.19.2 configuration read from ${where}: fair sharing on (preemption strategies `
    + 'LessThanInitialShare). The plan orders each cohort\'s heads and picks preemption victims by fair sharing\'s dominant resource shares, as '
    + 'Kueue does.');
  const neither = kueueConfigOf({ config: { apiVersion: V2, waitForPodsReady: { timeout: '5m' } }, where }, caps);
  expect(kueueConfigNote(neither, caps, where)).toBeUndefined();
});

test('an Alpha gate the plan does not model, turned on, is named in the note with what the plan does instead; off, it is not', () => {
  const caps = kueueCapabilities('v0.19.2');
  const on = kueueConfigOf({ config: { apiVersion: V2 }, args: ['--feature-gates=TASBalancedPlacement=true,TASRespectNodeAffinityPreferred=true'],
    where }, caps);
  expect(on.unmodelledGatesOn).toEqual(['TASBalancedPlacement', 'TASRespectNodeAffinityPreferred']);
  expect(kueueConfigNote(on, caps, where)).toBe(`Kueue v0.19.2 configuration read from ${where}: TASBalancedPlacement on, which the plan does `
    + 'not model (preferred topology requests are placed by BestFit, not balanced across domains), TASRespectNodeAffinityPreferred on, which '
    + 'the plan does not model (preferred node affinity does not rank the domains).');
  const off = kueueConfigOf({ config: { apiVersion: V2, featureGates: { TASBalancedPlacement: false } }, where }, caps);
  expect(off.unmodelledGatesOn).toBeUndefined();
  expect(kueueConfigNote(off, caps, where)).toBeUndefined();
});
