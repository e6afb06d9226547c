// What the entrypoint and image tests ask a running controller over TLS: a probe's status, and the
// answer to a RayJob that must be denied (shutdownAfterJobFinishes: false) by the admission worker.
import * as fs from 'fs';
import * as https from 'https';

export function probeStatus(port: number, caFile: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => https.get({ host: '127.0.0.1', port, path, ca: fs.readFileSync(caFile) }, (res) => {
    res.resume();
    resolve(res.statusCode ?? 0);
  }).on('error', reject));
}

/** POSTs a CREATE review of a RayJob Kueue's webhook would refuse to /validate; resolves with the parsed AdmissionReview. */
export function reviewBadRayJob(port: number, caFile: string, uid: string): Promise<any> {
  const review = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
    request: {
      uid, kind: { group: 'ray.io', version: 'v1', kind: 'RayJob' }, operation: 'CREATE', namespace: 'default',
      object: {
        apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name: 'j', namespace: 'default', labels: { 'kueue.x-k8s.io/queue-name': 'q' } },
        spec: { entrypoint: 'x', shutdownAfterJobFinishes: false,
          rayClusterSpec: { headGroupSpec: { template: { spec: { containers: [{ name: 'h', image: 'i' }] } } } } },
      },
    },
  });
  return new Promise((resolve, reject) => {
    const headers = { 'Content-Type': 'application/json' };
    const req = https.request({ host: '127.0.0.1', port, path: '/validate', method: 'POST', ca: fs.readFileSync(caFile), headers }, (res) => {
      let b = '';
      res.on('data', (d) => { b += d; });
      res.on('end', () => resolve(JSON.parse(b)));
    });
    req.on('error', reject);
    req.end(review);
  });
}
