#!/usr/bin/env node
// `npm run package`: the packages users install. jsii builds lib/ and the assembly, then jsii-pacmak
// writes dist/js/<name>-<version>.tgz (the npm package, as `npm pack` makes it) and dist/python/ (a wheel
// and an sdist). pacmak installs Python's setuptools, build and twine from PyPI itself, through pip's
// own settings.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const run = (cmd, args) => execFileSync(cmd, args, { cwd: ROOT, stdio: 'inherit' });
run('npm', ['run', '--silent', 'build']);
for (const d of ['js', 'python']) fs.rmSync(path.join(ROOT, 'dist', d), { recursive: true, force: true });
run(path.join(ROOT, 'node_modules', '.bin', 'jsii-pacmak'), ['--targets', 'js', 'python']);
for (const d of ['js', 'python']) {
  for (const f of fs.readdirSync(path.join(ROOT, 'dist', d))) console.log(`dist/${d}/${f}`);
}
