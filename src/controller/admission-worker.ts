/**
 * An admission worker thread: receives review bodies and the current
 * cluster view from the server thread, answers with reviewAdmission's outcome. Parsing a 5-20 KB
 * review costs more than the TLS and HTTP work around it, so it runs here, beside the server thread.
 */
import { parentPort, workerData } from 'worker_threads';
import { AdmissionConfig, ClusterView } from './admission';
import { reviewAdmission } from './admission-review';
import { answerOf, FromWorker, ToWorker } from './admission-worker-protocol';

const data = workerData as { readonly config: AdmissionConfig; readonly view: ClusterView };
const config = data.config;
let view = data.view;
const decoder = new TextDecoder();

parentPort!.on('message', (m: ToWorker) => {
  if ('view' in m) {
    view = m.view;
    return;
  }
  const answer: FromWorker = answerOf(m.id, reviewAdmission(m.webhook, decoder.decode(m.body), config, view));
  parentPort!.postMessage(answer);
});
// The pool counts a review's deadline from here on, not from the thread's start.
const ready: FromWorker = { ready: true };
parentPort!.postMessage(ready);
