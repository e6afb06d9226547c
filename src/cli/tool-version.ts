/** The package's version, for the CLIs' outputs: read from the package.json above this file (src/, lib/ or the bundle). */
import * as fs from 'fs';
import * as path from 'path';
import { isRecord } from '../policy/json';

let cached: string | undefined;

export function toolVersion(): string {
  if (cached !== undefined) return cached;
  cached = 'unknown';
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      try {
        const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
        if (isRecord(pkg) && pkg.name === 'cdk8s-kueue-ray' && typeof pkg.version === 'string') {
          cached = pkg.version;
          break;
        }
      } catch {
        // not ours: keep looking
      }
    }
    if (path.dirname(dir) === dir) break;
  }
  return cached;
}
