// YAML as kubectl reads it (src/cli/kubernetes-yaml.ts). The expected values are sigs.k8s.io/yaml's, as the Go oracle
// (scripts/yaml-oracle) prints them for the same text; bench:plan compares the two on bench/yaml-cases.yaml each run.
import { kubernetesYamlDocuments, readKubernetesYaml } from '../../src/cli/kubernetes-yaml';

const one = (text: string) => kubernetesYamlDocuments(text)[0];

test.each([
  ['YAML 1.1 booleans', 'a: yes\nb: Off\nc: Y\nd: TRUE\ne: n', { a: true, b: false, c: true, d: true, e: false }],
  ['Go integers', 'octal: 0755\no: 0o755\nhex: 0x1F\nbin: 0b101\nus: 1_000\nneg: -12\nzero: -0',
    { octal: 493, o: 493, hex: 31, bin: 5, us: 1000, neg: -12, zero: 0 }],
  ['go-yaml floats', 'f: 1e3\nd: 1.5\nv: 1.10\nx: 08\nh: -.5\ng: +.5e3', { f: 1000, d: 1.5, v: 1.1, x: 8, h: -0.5, g: 500 }],
  ['a YAML 1.1 boolean key', 'n: 1\nyes: 2', { false: 1, true: 2 }],
  ['timestamps and sexagesimals stay strings', 'ts: 2001-12-14t21:59:43.10-05:00\nd: 2024-01-31\ns: 190:20:30',
    { ts: '2001-12-14t21:59:43.10-05:00', d: '2024-01-31', s: '190:20:30' }],
  ['nulls', 'a: ~\nb: null\nc: NULL\nd:', { a: null, b: null, c: null, d: null }],
  ['merge keys', 'base: &b {cpu: "1", memory: 2Gi}\nm:\n  <<: *b\n  cpu: "2"', { base: { cpu: '1', memory: '2Gi' }, m: { cpu: '2', memory: '2Gi' } }],
  ['a repeated key keeps its last value', 'metadata: {name: a}\nmetadata: {name: b}', { metadata: { name: 'b' } }],
  ['non-string keys become strings', '1: a\ntrue: b\n1.5: c', { 1: 'a', true: 'b', 1.5: 'c' }],
  ['!!binary is decoded', 'b: !!binary aGVsbG8=', { b: 'hello' }],
  ['names that are not numbers', 'a: constructor\nb: toString\nc: 1.2.3\nd: "-"\ne: +x\nh: 1e\ni: 0x\nk: 0b2',
    { a: 'constructor', b: 'toString', c: '1.2.3', d: '-', e: '+x', h: '1e', i: '0x', k: '0b2' }],
  ['past int64, uint64', 'j: 9223372036854775808', { j: 9223372036854775808 }],
])('%s', (_name, text, want) => {
  expect(one(text)).toEqual(want);
});

test('.inf and .nan are refused, as the conversion to JSON refuses them', () => {
  expect(() => kubernetesYamlDocuments('a: .inf')).toThrow(/unsupported value: \.inf/);
  expect(() => kubernetesYamlDocuments('a: -.Inf')).toThrow(/unsupported value/);
  expect(() => kubernetesYamlDocuments('a: .NaN')).toThrow(/unsupported value/);
});

test('a file\'s objects leave empty documents out, and an error names the file and the document', () => {
  expect(readKubernetesYaml('f.yaml', '---\na: 1\n---\n---\nb: 2\n')).toEqual([{ a: 1 }, { b: 2 }]);
  expect(() => readKubernetesYaml('f.yaml', 'a: 1\n---\nb: [1\n')).toThrow(/^f\.yaml: document 2 is not valid YAML: /);
  expect(() => readKubernetesYaml('f.yaml', '---\na: 1\n---\nb: .inf\n')).toThrow(/^f\.yaml: document 2 is not valid YAML: json: unsupported value/);
});
