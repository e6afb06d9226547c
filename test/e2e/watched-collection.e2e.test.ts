/**
 * The watched copy of a collection the agreement harnesses read instead of listing (WatchedCollection in
 * support/kube.ts), against a real kube-apiserver: it holds what a list holds after creates, updates and deletes;
 * after the server ends a watch it watches on without listing; after kube-apiserver crashes (every watch dropped) it
 * lists again and catches up with what changed meanwhile.
 */
import { TestCluster } from './support/cluster';
import { KubeClient, waitFor, WatchedCollection } from './support/kube';
import { describeOnPair } from './support/pairs';

const PAIR: [string, string] = ['v0.19.2', 'v1.6.2'];
const NS = 'watched';
const PATH = `/api/v1/namespaces/${NS}/configmaps`;

const cm = (name: string, value: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { value } });

/** name=value of each ConfigMap, sorted. */
const state = (objects: readonly any[]) => objects.map((o) => `${o.metadata.name}=${o.data?.value}`).sort().join(',');

async function listed(client: KubeClient): Promise<string> {
  return state((await client.get(PATH)).items.filter((o: any) => o.metadata.name.startsWith('cm-')));
}

async function agrees(client: KubeClient, watched: WatchedCollection, what: string): Promise<string> {
  const want = await listed(client);
  return waitFor(`the watched copy to hold ${what} (${want})`, async () => {
    const got = state(watched.objects().filter((o) => o.metadata.name.startsWith('cm-')));
    return got === want && got;
  }, 20000, 50);
}

describeOnPair('watched collection', PAIR)('a watched collection against kube-apiserver', () => {
  let cluster: TestCluster;
  let watched: WatchedCollection | undefined;
  beforeAll(async () => {
    cluster = await TestCluster.start({ kueue: PAIR[0], kubeRay: PAIR[1], controllers: false });
    await cluster.client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  }, 180000);
  afterAll(async () => {
    watched?.stop();
    await cluster?.stop();
  });

  test('list, then creates, updates and deletes; a watch the server ends; a crash of kube-apiserver', async () => {
    const client = cluster.client;
    await client.create(cm('cm-a', '1'));
    watched = await WatchedCollection.start(client, PATH, 2);
    expect(await agrees(client, watched, 'the list')).toBe('cm-a=1');
    expect([watched.lists, watched.watches]).toEqual([1, 1]);

    await client.create(cm('cm-b', '1'));
    await client.apply(cm('cm-a', '2'));
    expect(await agrees(client, watched, 'a create and an update')).toBe('cm-a=2,cm-b=1');
    await client.delete(`${PATH}/cm-b`);
    expect(await agrees(client, watched, 'a delete')).toBe('cm-a=2');

    // The server ends each watch after 2 s: the copy watches on from its last version, with no list.
    await waitFor('a second watch', async () => watched!.watches >= 2, 20000, 100);
    await client.create(cm('cm-c', '1'));
    expect(await agrees(client, watched, 'a create after the server ended a watch')).toBe('cm-a=2,cm-c=1');
    expect(watched.lists).toBe(1);

    // A crash drops the watch, and the copy's next watch fails on the closed port: it lists again once
    // kube-apiserver is back (one list: the failed ones do not count), and holds what was written after the crash.
    await cluster.restartApiServer();
    await client.apply(cm('cm-c', '2'));
    await client.create(cm('cm-d', '1'));
    expect(await agrees(client, watched, 'the changes made after a crash of kube-apiserver')).toBe('cm-a=2,cm-c=2,cm-d=1');
    expect(watched.lists).toBe(2);
  }, 120000);
});
