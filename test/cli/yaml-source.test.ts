// `check` reads YAML with positions: a finding's field maps back to the line and column where it is
// written, or to its nearest written parent when it is absent.
import * as fs from 'fs';
import * as path from 'path';
import { MissingFileError, parseSource, readSources, SourceObject, UsageError } from '../../src/cli/yaml-source';
import { tmpdir } from '../support/synth';

/** A source object whose JSON the tests read field by field. */
type Parsed = SourceObject & { readonly object: any };

const JOB = `# a comment first
apiVersion: ray.io/v1
kind: RayJob
metadata:
  generateName: rayjob-sample-
  labels:
    kueue.x-k8s.io/queue-name: user-queue
    app: demo
spec:
  entrypoint: python -c "print(1)"
  rayClusterSpec:
    headGroupSpec:
      template:
        spec:
          containers:
          - name: ray-head
            image: rayproject/ray:2.46.0
            resources:
              requests:
                cpu: "1"
                nvidia.com/gpu: 1
    workerGroupSpecs:
    - groupName: small-group
      replicas: 1
    - groupName: big-group
      replicas: 3
      template: {}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
`;

describe('parseSource and locate', () => {
  const { objects, errors } = parseSource('job.yaml', JOB);
  const job = objects[0];

  test('every document becomes an object with its index and start', () => {
    expect(errors).toEqual([]);
    expect(objects.map((o: Parsed) => [o.object.kind, o.document, o.region.line])).toEqual([['RayJob', 1, 2], ['Namespace', 2, 29]]);
  });

  test('a scalar field spans its key and value', () => {
    expect(job.locate('spec.rayClusterSpec.workerGroupSpecs[1].replicas')).toEqual({
      line: 26, column: 7, endLine: 26, endColumn: 18, exact: true, resolved: 'spec.rayClusterSpec.workerGroupSpecs[1].replicas',
    });
  });

  test('a label key with dots and slashes in brackets', () => {
    const l = job.locate('metadata.labels[kueue.x-k8s.io/queue-name]');
    expect([l.line, l.column, l.endColumn, l.exact]).toEqual([7, 5, 42, true]);
    expect(l.resolved).toBe('metadata.labels[kueue.x-k8s.io/queue-name]');
  });

  test('a resource name with dots written as plain path segments', () => {
    const l = job.locate('spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].resources.requests.nvidia.com/gpu');
    expect([l.line, l.column, l.exact]).toEqual([21, 17, true]);
  });

  test('a collection field points at its key only', () => {
    expect(job.locate('spec.rayClusterSpec')).toMatchObject({ line: 11, column: 3, endLine: 11, endColumn: 17, exact: true });
  });

  test('a sequence item points at its first key', () => {
    expect(job.locate('spec.rayClusterSpec.workerGroupSpecs[0]')).toMatchObject({ line: 23, column: 7, exact: true });
    expect(job.locate('spec.rayClusterSpec.headGroupSpec.template.spec.containers[0]')).toMatchObject({ line: 16, column: 13, exact: true });
  });

  test('an absent field points at its nearest written parent', () => {
    expect(job.locate('spec.shutdownAfterJobFinishes')).toMatchObject({ line: 9, column: 1, endColumn: 5, exact: false, resolved: 'spec' });
    expect(job.locate('spec.rayClusterSpec.workerGroupSpecs[1].template.spec.containers'))
      .toMatchObject({ line: 27, column: 7, exact: false, resolved: 'spec.rayClusterSpec.workerGroupSpecs[1].template' });
    expect(job.locate('spec.rayClusterSpec.workerGroupSpecs[5].replicas'))
      .toMatchObject({ line: 22, exact: false, resolved: 'spec.rayClusterSpec.workerGroupSpecs' });
    expect(job.locate('metadata.annotations[kueue.x-k8s.io/elastic-job]')).toMatchObject({ line: 4, exact: false, resolved: 'metadata' });
  });

  test('a field under a missing top-level key points at the document start', () => {
    const ns = objects[1];
    expect(ns.locate('spec.finalizers')).toMatchObject({ line: 29, column: 1, exact: false, resolved: '' });
  });

  test('flow mappings are located too', () => {
    expect(objects[1].locate('metadata.name')).toMatchObject({ line: 31, column: 12, endColumn: 24, exact: true });
  });

  test('kind: List items are objects of their own, located inside the list', () => {
    const list = parseSource('list.yaml',
      'apiVersion: v1\nkind: List\nitems:\n- apiVersion: ray.io/v1\n  kind: RayCluster\n  metadata:\n    name: a\n- apiVersion: ray.io/v1\n  kind: '
        + 'RayCluster\n  metadata:\n    name: b\n  spec: {}\n');
    expect(list.objects.map((o: Parsed) => o.object.metadata.name)).toEqual(['a', 'b']);
    expect(list.objects[1].region.line).toBe(8);
    expect(list.objects[1].locate('metadata.name')).toMatchObject({ line: 11, column: 5, exact: true });
    expect(list.objects[1].locate('spec.headGroupSpec')).toMatchObject({ line: 12, exact: false });
  });

  test('aliases are followed', () => {
    const r: { objects: Parsed[] } = parseSource('a.yaml', 'kind: RayCluster\nx: &res\n  cpu: "1"\nspec:\n  res: *res\n');
    expect(r.objects[0].object.spec.res.cpu).toBe('1');
    expect(r.objects[0].locate('spec.res.cpu')).toMatchObject({ line: 3, exact: true });
  });

  test('a syntax error is reported with its position, other documents still read', () => {
    const r = parseSource('bad.yaml', 'kind: RayJob\nmetadata:\n  name: a\n  name: b\n---\nkind: RayCluster\n');
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ file: 'bad.yaml', document: 1, region: { line: 4 } });
    expect(r.errors[0].message).toMatch(/unique/i);
    expect(r.objects.map((o: Parsed) => o.object.kind)).toEqual(['RayCluster']);
  });

  test('an alias bomb is refused as an error of its document, not expanded', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...'bcdefghij'.split('').map((k, i) => `${k}: &${k} [${Array(10).fill(`*${'abcdefghij'[i]}`).join(', ')}]`)].join('\n');
    const r = parseSource('bomb.yaml', `kind: ConfigMap\n${bomb}\n---\nkind: RayCluster\n`);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].message).toMatch(/alias/i);
    expect(r.objects.map((o: Parsed) => o.object.kind)).toEqual(['RayCluster']);
  });

  test('empty documents and files give no objects', () => {
    expect(parseSource('e.yaml', '').objects).toEqual([]);
    expect(parseSource('e.yaml', '---\n---\n# only a comment\n').objects).toEqual([]);
  });
});

describe('readSources', () => {
  test('directories are walked for .yaml/.yml in name order; other files skipped; "-" reads standard input', () => {
    const dir = tmpdir();
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, 'b.yaml'), 'kind: B\n');
    fs.writeFileSync(path.join(dir, 'a.yml'), 'kind: A\n');
    fs.writeFileSync(path.join(dir, 'sub', 'c.yaml'), 'kind: C\n');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'kind: X\n');
    const r = readSources([dir, '-'], () => 'kind: D\n');
    expect(r.objects.map((o: Parsed) => o.object.kind)).toEqual(['A', 'B', 'C', 'D']);
    expect(r.files).toEqual([path.join(dir, 'a.yml'), path.join(dir, 'b.yaml'), path.join(dir, 'sub', 'c.yaml'), '-']);
  });

  test('a missing path is a missing-file error naming it (exit 1, as kubectl -f), not a usage error', () => {
    expect(() => readSources(['/nonexistent/x.yaml'])).toThrow(MissingFileError);
    expect(() => readSources(['/nonexistent/x.yaml'])).not.toThrow(UsageError);
    expect(() => readSources(['/nonexistent/x.yaml'])).toThrow(/\/nonexistent\/x.yaml: no such file/);
  });
});
