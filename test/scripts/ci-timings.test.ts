// The CI timing table: scripts/ci/timed records a phase (its name, wall and CPU seconds, peak RSS) and
// keeps the command's exit status; scripts/ci/timing-table prints the rows with inner pieces indented.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');
const TIMED = path.join(ROOT, 'scripts', 'ci', 'timed');

test('timed appends one row per phase, marks a failed one and returns its exit status', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ckr-timings-')), 'rows.tsv');
  const env = { ...process.env, CI_TIMINGS: file };
  // About 0.3 s of CPU in a child, then an exit status the wrapper must pass on.
  const burn = 'const t = Date.now(); while (Date.now() - t < 300) {} process.exit(3)';
  const r = spawnSync(TIMED, ['burn phase', process.execPath, '-e', burn], { env, encoding: 'utf8' });
  expect(r.status).toBe(3);
  expect(spawnSync(TIMED, ['ok phase', 'true'], { env }).status).toBe(0);
  fs.appendFileSync(file, 'go: etcd v3.6.4\t39\t67\t298\n');
  const rows = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => l.split('\t'));
  expect(rows.map((row) => row[0])).toEqual(['burn phase (failed)', 'ok phase', 'go: etcd v3.6.4']);
  const [, wall, cpu, rss] = rows[0].map(Number);
  expect(wall).toBeGreaterThanOrEqual(0);
  expect(cpu).toBeGreaterThanOrEqual(0);
  expect(rss).toBeGreaterThan(10); // node itself takes tens of MiB
  const table = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'ci', 'timing-table'), file], { encoding: 'utf8' }).stdout.split('\n');
  expect(table[0]).toMatch(/^phase\s+wall s\s+cpu s\s+peak MiB$/);
  expect(table[3]).toMatch(/^ {2}go: etcd v3\.6\.4\s+39\s+67\s+298$/);
});

test('without CI_TIMINGS, timed only runs the command', () => {
  const env = { ...process.env };
  delete env.CI_TIMINGS;
  const r = spawnSync(TIMED, ['x', 'sh', '-c', 'echo out; exit 4'], { env, encoding: 'utf8' });
  expect([r.status, r.stdout]).toEqual([4, 'out\n']);
});
