#!/usr/bin/env node
// A static file server on 127.0.0.1 standing in for the release hosts in tests: `node serve-releases.js
// ROOT [LOG]` serves ROOT read-only, prints "listening PORT" once ready, and appends each request path to
// LOG. Its own process, because the installs download synchronously: a server in the test's process
// could not answer while synth waits.
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');

const [root, log] = process.argv.slice(2);
if (!root) throw new Error('usage: serve-releases.js ROOT [LOG]');
const base = path.resolve(root);

const server = http.createServer((req, res) => {
  const urlPath = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  if (log) fs.appendFileSync(log, `${req.method} ${urlPath}\n`);
  const file = path.resolve(base, `.${urlPath}`);
  if (req.method !== 'GET' || !file.startsWith(base + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404).end('not found\n');
    return;
  }
  res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(fs.readFileSync(file));
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
