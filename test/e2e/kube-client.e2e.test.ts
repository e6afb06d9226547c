/**
 * KubeClient against a TLS server that drops connections the way an idle-closing API server can: a kept-alive socket
 * the server closes just as the client reuses it fails with ECONNRESET ("socket hang up") before the server answered.
 * The client sends such a request again on a fresh socket, once; a reset on a fresh socket is an error. No cluster.
 */
import * as fs from 'fs';
import * as https from 'https';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { KubeClient } from './support/kube';
import { makePki } from './support/pki';

describe('KubeClient on a dropped kept-alive socket', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-client-'));
  const pki = makePki(dir);
  let server: https.Server;
  let client: KubeClient;
  let url = '';
  const connect = () => new KubeClient({ server: url, ca: fs.readFileSync(pki.caCrt), cert: fs.readFileSync(pki.adminCrt),
    key: fs.readFileSync(pki.adminKey) });
  /** Per request: the socket's number and how many requests that socket had carried before it. */
  const seen: Array<[number, number]> = [];
  /** Drop the request when the socket carried this many before it (-1: never). */
  let dropAfter = -1;

  beforeAll(async () => {
    const sockets = new Map<unknown, { id: number; served: number }>();
    server = https.createServer({ cert: fs.readFileSync(pki.servingCrt), key: fs.readFileSync(pki.servingKey) }, (req, res) => {
      let s = sockets.get(req.socket);
      if (!s) sockets.set(req.socket, s = { id: sockets.size, served: 0 });
      seen.push([s.id, s.served]);
      if (s.served === dropAfter) {
        // As if the server had closed the idle connection: no answer, the connection reset.
        req.socket.destroy();
        return;
      }
      s.served++;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ socket: s.id }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = connect();
  });
  afterAll(async () => {
    client.close();
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a request on a reused socket that the server drops is sent again on a fresh one, and answered', async () => {
    seen.length = 0;
    dropAfter = 1;
    const first = await client.get('/one');
    const second = await client.get('/two');
    // The second went out on the first's socket, was dropped, and went again on a new socket.
    expect(seen).toEqual([[first.socket, 0], [first.socket, 1], [second.socket, 0]]);
    expect(second.socket).not.toBe(first.socket);
  });

  test('a reset on a fresh socket is an error, not sent again', async () => {
    // A new client: no socket to reuse.
    client.close();
    client = connect();
    seen.length = 0;
    dropAfter = 0;
    await expect(client.get('/three')).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(seen).toHaveLength(1);
  });
});
