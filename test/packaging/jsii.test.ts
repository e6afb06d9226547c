// The public construct API stays jsii-friendly (Python bindings are on the roadmap).
import { execFileSync } from 'child_process';
import * as path from 'path';
import { REPO_ROOT } from '../support/upstream';

test('jsii compiles the public API without errors or warnings', () => {
  const out = execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'jsii-check.js')], { stdio: 'pipe' }).toString();
  expect(out).toMatch(/jsii assembly: \d+ types/);
});
