// The vendored upstream files (CRDs, release manifests, samples): $KUEUE_RAY_VENDOR_DIR, else
// ../shared/vendor beside the repo. Nothing else is searched, so a missing set-up step shows as an
// error here rather than as a folder found by chance. Read from there; never copied into the repo.
'use strict';
const fs = require('fs');
const path = require('path');

const REPO_ROOT = path.resolve(__dirname, '..');

/** The vendor folder (it holds README.md), or undefined when neither place has it. */
function findVendorDir() {
  const dir = process.env.KUEUE_RAY_VENDOR_DIR ? path.resolve(process.env.KUEUE_RAY_VENDOR_DIR) : path.resolve(REPO_ROOT, '..', 'shared', 'vendor');
  return fs.existsSync(path.join(dir, 'README.md')) ? dir : undefined;
}

/** The vendor folder; throws naming where it looked and what to set. `what` says who needs it. */
function vendorDir(what) {
  const dir = findVendorDir();
  if (dir) return dir;
  const looked = process.env.KUEUE_RAY_VENDOR_DIR
    ? `KUEUE_RAY_VENDOR_DIR=${process.env.KUEUE_RAY_VENDOR_DIR} has no README.md`
    : `${path.resolve(REPO_ROOT, '..', 'shared', 'vendor')} (../shared/vendor beside the repo) does not exist`;
  throw new Error(`${what} needs the vendored upstream files, but ${looked}. Fix: set KUEUE_RAY_VENDOR_DIR to the shared/vendor folder.`);
}

module.exports = { findVendorDir, vendorDir };
