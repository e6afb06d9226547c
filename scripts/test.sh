#!/usr/bin/env bash
# npm test: lint beside the packages, the first stage of the test control plane's Go build (what the first suites
# need), the controller image, then the jest lanes (scripts/test-lanes.js). The rest of the Go build
# (the other Kueue and KubeRay versions, the KubeRay oracles, the rendered releases) runs in the background
# from the end of the first stage, in a session of its own at the lowest CPU weight (its autogroup's nice
# 19), so it takes only the CPU the packages, the image and the suites leave idle; the suites that need it
# wait for it (test-lanes.js). kube-router (the network-policy suite's enforcer) is built after it, and only
# that suite waits for it; the lanes take other suites meanwhile. Cold, that overlaps about a third of the Go
# build with work that mostly waits on controllers' and Ray's timers. Each phase is timed into CI_TIMINGS when set (scripts/ci/timed).
set -euo pipefail
cd "$(dirname "$0")/.."
T=scripts/ci/timed
# lint and the packages side by side: neither reads what the other writes (eslint ignores lib/ and dist/, tsc emits
# nothing), and each leaves much of the other core idle. A failing lint still stops npm test before the Go build.
$T lint npm run lint &
LINT_PID=$!
$T package npm run package
wait "$LINT_PID"
$T "go build, first stage" env STAGE=first scripts/testcluster/build.sh

REST_BUILD_DIR=$(mktemp -d -t ckr-rest-build.XXXXXX)
export REST_BUILD_DIR
# setsid: a new session is a new autogroup, whose nice value weighs it against the other sessions' work
# (a task's own nice only counts within its autogroup). If autogroups are off, the task's nice does it.
setsid bash -c 'echo $$ > "$REST_BUILD_DIR/pid"
  echo 19 > /proc/self/autogroup 2>/dev/null || renice -n 19 $$ >/dev/null
  STAGE=rest scripts/ci/timed "go build, rest stage (background)" scripts/testcluster/build.sh > "$REST_BUILD_DIR/log" 2>&1
  echo $? > "$REST_BUILD_DIR/status"
  ONLY=kube-router scripts/ci/timed "go build, kube-router (background)" scripts/testcluster/build.sh >> "$REST_BUILD_DIR/log" 2>&1
  echo $? > "$REST_BUILD_DIR/kube-router-status"' < /dev/null &
# A failed step below must not leave the build running after npm test ends.
trap '[ -s "$REST_BUILD_DIR/kube-router-status" ] || kill -- -"$(cat "$REST_BUILD_DIR/pid" 2>/dev/null)" 2>/dev/null || true' EXIT

$T image npm run image
node scripts/test-lanes.js
