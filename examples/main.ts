// Entry of `npx cdk8s synth`: the examples for KUEUE_VERSION / KUBERAY_VERSION (default v0.19.2 + v1.6.2).
import { buildExamples, Scenario, SCENARIOS } from './app';

const kueue = process.env.KUEUE_VERSION;
const kubeRay = process.env.KUBERAY_VERSION;
const scenarios = process.env.EXAMPLES ? (process.env.EXAMPLES.split(',') as Scenario[]) : [...SCENARIOS];
buildExamples({ outdir: process.env.CDK8S_OUTDIR ?? 'dist', kueue, kubeRay, scenarios }).synth();
