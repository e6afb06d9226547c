#!/usr/bin/env bash
# Starts Ray from the built image's bytes as a KubeRay head pod would, and checks what KubeRay checks:
# the archive's layers unpacked to a scratch dir, then, as user ray (1000:100) in a chroot in new mount,
# PID and network namespaces (loopback only), `ulimit -n 65536; ray start --head ... --block`, the
# readiness probe's wgets of the raylet and GCS health URLs, `ray health-check` (the wait-gcs-ready init
# container), `ray status`, and one `ray job submit` (the K8sJobMode submitter) running a task. When it
# ends, the namespaces go: every Ray process is killed and every mount is gone, pass or fail.
#
#   scripts/ray-image/smoke.sh                 # RAY_VERSIONS="2.46.0", after scripts/ray-image/build.sh
#
# Needs root (chroot, namespaces), unshare and ip; about 30 s on 2 cores.
# shellcheck disable=SC2016 # the scripts given to ns_run expand inside the namespace
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/ray-image/lib.sh
RAY_VERSIONS=${RAY_VERSIONS:-2.46.0}
TIMEOUT=${RAY_SMOKE_TIMEOUT:-90} # seconds for the whole run of one version

die() { echo "ray-smoke: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root: the check chroots into the image's root filesystem"
for c in unshare ip chroot python3; do command -v "$c" >/dev/null || die "$c is missing: apt-get install -y util-linux iproute2 coreutils python3"; done
CACHE_ROOT="${CDK8S_KUEUE_RAY_CACHE:-$HOME/.cache/cdk8s-kueue-ray}"
OUT_DIR=${NODE_IMAGES_DIR:-$CACHE_ROOT/node-images}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cdk8s-kueue-ray-ray-smoke.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }

# Run in the image as user ray. The probe commands are KubeRay's (v1.4 to v1.6), with its timeouts.
# shellcheck disable=SC2016 # run in the image
HEAD='
set -u
fail() { echo "FAIL  $1"; [ -z "${2:-}" ] || echo "$2" | tail -30; echo "ray start said:"; tail -30 /tmp/ray-start.log; exit 1; }
ulimit -n 65536 2>/dev/null # as KubeRay: may fail where the hard limit is lower, and Ray starts anyway
ray start --head --num-cpus=1 --object-store-memory=100000000 --node-ip-address=127.0.0.1 --dashboard-host=0.0.0.0 \
  --disable-usage-stats --block >/tmp/ray-start.log 2>&1 &
pid=$! ready=
for _ in $(seq 1 60); do
  kill -0 "$pid" 2>/dev/null || break
  if wget --tries 1 -T 2 -q -O- http://localhost:52365/api/local_raylet_healthz | grep success >/dev/null \
    && wget --tries 1 -T 2 -q -O- http://localhost:8265/api/gcs_healthz | grep success >/dev/null; then ready=1; break; fi
  sleep 1
done
[ -n "$ready" ] || fail "the readiness probe never passed after ${SECONDS} s" "$(tail -30 /tmp/ray/session_latest/logs/dashboard*.log 2>/dev/null)"
echo "ok    readiness probe (raylet and GCS health) after ${SECONDS} s"
out=$(python -c "import urllib.request as u; assert b\"success\" in u.urlopen(\"http://localhost:52365/api/local_raylet_healthz\", timeout=2).read()" 2>&1) \
  || fail "the python variant of the probe (urllib.request)" "$out"
echo "ok    the python variant of the probe (urllib.request)"
out=$(ray health-check --address 127.0.0.1:6379 2>&1) || fail "ray health-check --address 127.0.0.1:6379" "$out"
echo "ok    ray health-check --address 127.0.0.1:6379"
# The head reports its resources a little after the probes pass: ray status may not show them yet.
for _ in $(seq 1 15); do out=$(ray status --address 127.0.0.1:6379 2>&1) && echo "$out" | grep -q "/1.0 CPU" && break; sleep 1; done
echo "$out" | grep -q "/1.0 CPU" || fail "ray status shows no 1.0 CPU" "$out"
echo "ok    ray status: 1.0 CPU"
out=$(ray job submit --address http://127.0.0.1:8265 -- python -c "import ray; ray.init(); print(\"answer\", ray.get(ray.remote(lambda: 6 * 7).remote()))" 2>&1) \
  && echo "$out" | grep -q "answer 42" || fail "ray job submit: the job failed or printed no answer" "$out"
echo "ok    ray job submit: a task ran, after ${SECONDS} s"
'

for v in $RAY_VERSIONS; do
  archive=$OUT_DIR/rayproject_ray-$v.oci.tar
  [ -s "$archive" ] || die "$archive is missing: run RAY_VERSIONS=$v scripts/ray-image/build.sh"
  t0=$(now)
  R=$WORK/rootfs-$v
  rm -rf "$WORK/oci" && mkdir -p "$WORK/oci" "$R"
  tar -xf "$archive" -C "$WORK/oci"
  # The layers the archive's only manifest names, in order, as a runtime would lay them out.
  python3 - "$WORK/oci" >"$WORK/layers" <<'EOF'
import json, sys
d = sys.argv[1]
blob = lambda digest: f"{d}/blobs/{digest.replace(':', '/')}"
index = json.load(open(f"{d}/index.json"))
manifest = json.load(open(blob(index["manifests"][0]["digest"])))
for layer in manifest["layers"]:
    print(blob(layer["digest"]))
EOF
  while read -r layer; do tar -xzf "$layer" -C "$R" --numeric-owner --same-owner --same-permissions; done <"$WORK/layers"
  rm -rf "$WORK/oci"
  # What the kubelet mounts into every pod.
  printf '%s\n' "127.0.0.1 localhost" "::1 localhost ip6-localhost" "127.0.1.1 $(hostname)" >"$R/etc/hosts"
  echo "ray-smoke: $v: unpacked ($(since "$t0") s)"
  ns_run 'chroot_fs "$1"; in_chroot "$1" 1000:100 /home/ray timeout "$3" bash -c "$2"' "$R" "$HEAD" "$TIMEOUT" \
    | sed "s/^/ray-smoke: $v: /" || die "$v: Ray did not start and serve in the image (above); the image is $archive"
  rm -rf "$R"
  echo "ray-smoke: $v: passed in $(since "$t0") s; every process and mount of the check is gone with its namespaces"
done
