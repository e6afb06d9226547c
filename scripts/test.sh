#!/usr/bin/env bash
# npm test: lint beside the packages, then the jest lanes (scripts/test-lanes.js) beside the build of what the
# suites run. In the background: the controller image and the first stage of the test control plane's Go build
# (what the real-node suites need), then the rest of the Go build (the other Kueue and KubeRay versions, the
# KubeRay oracles, the rendered releases) in a session of its own at the lowest CPU weight (its autogroup's
# nice 19), so it takes only the CPU the suites leave idle, and kube-router (the network-policy suite's
# enforcer) after it. Each suite waits only for what it runs (test-lanes.js): the unit, package and CLI suites
# for nothing, so cold they use the cores the first stage leaves idle (downloads, links) instead of waiting
# for it. Each phase is timed into CI_TIMINGS when set (scripts/ci/timed).
set -euo pipefail
cd "$(dirname "$0")/.."
T=scripts/ci/timed
# lint and the packages side by side: neither reads what the other writes (eslint ignores lib/ and dist/, tsc emits
# nothing), and each leaves much of the other core idle. A failing lint still stops npm test before the build.
$T lint npm run lint &
LINT_PID=$!
$T package npm run package
wait "$LINT_PID"

# The background builds write their exit codes here: first-status (the image and the first stage), status (the
# rest stage), kube-router-status; first-pid and pid are their processes (pid the rest stage's session).
BUILD_DIR=$(mktemp -d -t ckr-build.XXXXXX)
export BUILD_DIR
(
  set +e
  echo "$BASHPID" > "$BUILD_DIR/first-pid"
  { $T image npm run image && $T "go build, first stage" env STAGE=first scripts/testcluster/build.sh; } 2>&1 | sed -u 's/^/[build] /'
  st=${PIPESTATUS[0]}
  echo "$st" > "$BUILD_DIR/first-status"
  if [ "$st" != 0 ]; then
    # What waits for the later stages must not wait for builds that will never start.
    echo "$st" > "$BUILD_DIR/status"; echo "$st" > "$BUILD_DIR/kube-router-status"; exit 0
  fi
  # setsid: a new session is a new autogroup, whose nice value weighs it against the other sessions' work
  # (a task's own nice only counts within its autogroup). If autogroups are off, the task's nice does it.
  setsid bash -c 'echo $$ > "$BUILD_DIR/pid"
    echo 19 > /proc/self/autogroup 2>/dev/null || renice -n 19 $$ >/dev/null
    STAGE=rest scripts/ci/timed "go build, rest stage (background)" scripts/testcluster/build.sh > "$BUILD_DIR/log" 2>&1
    echo $? > "$BUILD_DIR/status"
    ONLY=kube-router scripts/ci/timed "go build, kube-router (background)" scripts/testcluster/build.sh >> "$BUILD_DIR/log" 2>&1
    echo $? > "$BUILD_DIR/kube-router-status"' < /dev/null &
) &
FIRST_PID=$!
# A failed step below must not leave a build running after npm test ends.
trap 'kill "$FIRST_PID" 2>/dev/null || true
  [ -s "$BUILD_DIR/kube-router-status" ] || kill -- -"$(cat "$BUILD_DIR/pid" 2>/dev/null)" 2>/dev/null || true' EXIT

node scripts/test-lanes.js
