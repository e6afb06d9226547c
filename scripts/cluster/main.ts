/**
 * npm run cluster -- up | down | kubeconfig | status
 *
 * A one-node cluster on this machine (scripts/cluster/node-cluster.ts) with the images `dist/` uses
 * loaded into its local registries: Kueue, the KubeRay operator, the controller (npm run image), CoreDNS
 * and pause, and with RAY_VERSIONS the Ray images the pods run (scripts/ray-image/build.sh). `up` prints where the kubeconfig is; `kubeconfig` prints it.
 */
import * as fs from 'fs';
import * as path from 'path';
import { defaultImages } from './images';
import { NodeCluster } from './node-cluster';

const NAME = process.env.CLUSTER_NAME ?? 'cluster';
const USAGE = `usage: npm run cluster -- <command>

  up          start the one-node cluster (root; binaries from scripts/testcluster/build.sh) and load the images
  down        stop it and remove everything it made (processes, mounts, namespaces, cgroups, files)
  kubeconfig  print its admin kubeconfig (e.g. npm run -s cluster -- kubeconfig > node.kubeconfig)
  status      say whether it is up, and where its kubeconfig and logs are

environment: KUEUE_VERSION, KUBERAY_VERSION (the images to load; default the examples app's pair), CLUSTER_NAME,
  RAY_VERSIONS (e.g. "2.46.0": also load docker.io/rayproject/ray:<v> for each; default none)
`;

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    process.stdout.write(USAGE);
    return cmd ? 0 : 2;
  }
  if (rest.length) {
    process.stderr.write(`unexpected argument ${rest[0]}\n${USAGE}`);
    return 2;
  }
  switch (cmd) {
    case 'up': {
      const images = defaultImages();
      const s = await NodeCluster.up(NAME, { images });
      process.stdout.write(`node cluster up in ${s.timings.total.toFixed(1)} s `
        + `(${Object.entries(s.timings).filter(([k]) => k !== 'total').map(([k, v]) => `${k} ${v.toFixed(1)}s`).join(', ')})\n`);
      process.stdout.write(`kubeconfig: ${s.kubeconfig}\n  export KUBECONFIG=${s.kubeconfig}\nlogs: ${path.join(s.dir, 'logs')}\n`);
      return 0;
    }
    case 'down':
      NodeCluster.down(NAME);
      process.stdout.write(`node cluster ${NAME} removed\n`);
      return 0;
    case 'kubeconfig': {
      const s = NodeCluster.state(NAME);
      if (!s) { process.stderr.write(`node cluster ${NAME} is not up: npm run cluster -- up\n`); return 1; }
      process.stdout.write(fs.readFileSync(s.kubeconfig, 'utf8'));
      return 0;
    }
    case 'status': {
      const s = NodeCluster.state(NAME);
      process.stdout.write(s ? `up: ${s.server}, kubeconfig ${s.kubeconfig}, logs ${path.join(s.dir, 'logs')}\n`
        : `node cluster ${NAME} is not up\n`);
      return s ? 0 : 1;
    }
    default:
      process.stderr.write(`unknown command ${cmd}\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code), (e) => {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exit(1);
});
