#!/usr/bin/env bash
# Builds the test control plane from the Go module proxy into a cache outside the repo:
# etcd, kube-apiserver, kube-controller-manager, the node's binaries (kubelet, kube-scheduler, kube-proxy,
# CoreDNS, the pause binary, the registry), promtool, Prometheus, prometheus-operator and its config-reloader
# (QueueObservability's tests), and each Kueue and KubeRay version of the support
# matrix. Idempotent: a binary that exists is kept. Module downloads are verified by the Go checksum
# database (`go env GOSUMDB`); the report lists what was built, what was cached and what failed.
#
#   scripts/testcluster/build.sh                 # everything
#   KUEUE_VERSIONS=v0.19.2 KUBERAY_VERSIONS=v1.6.2 scripts/testcluster/build.sh
#   ONLY=kuberay-validate KUBERAY_VERSIONS="v1.6.2" scripts/testcluster/build.sh   # just the KubeRay oracle
#   ONLY=promtool scripts/testcluster/build.sh   # just promtool and prometheus (QueueObservability's tests)
#   STAGE=first scripts/testcluster/build.sh     # what the first suites need: the control plane, the node,
#                                                # the first (default) Kueue and KubeRay, Prometheus' binaries
#   STAGE=rest scripts/testcluster/build.sh      # the other versions, the KubeRay oracles, the rendered releases
#   ONLY=kube-router scripts/testcluster/build.sh  # just kube-router (the network-policy suite's enforcer; npm
#                                                # test builds it after the rest stage; a whole build includes it)
# npm test builds the first stage, then the rest in the background while the suites that need only the
# first stage run (scripts/test-lanes.js). CI_TIMINGS=FILE appends each built piece's seconds to FILE.
set -uo pipefail

REPO="$(cd "$(dirname "$0")/../.." && pwd)"
CACHE="${CDK8S_KUEUE_RAY_CACHE:-$HOME/.cache/cdk8s-kueue-ray}"
BIN="$CACHE/bin"
WORK="$CACHE/build"
K8S_VERSION="${K8S_VERSION:-v1.34.1}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.4}"
# The supported versions, newest (the default pair) first, from their one list (src/policy/supported-versions.json).
# The proxy serves no Kueue v0.13.4 / v0.17.8 (403): reported as REFUSED.
SUPPORTED_JSON="$REPO/src/policy/supported-versions.json"
KUEUE_VERSIONS="${KUEUE_VERSIONS:-$(node -p "require(process.argv[1]).kueue.slice().reverse().join(' ')" "$SUPPORTED_JSON")}"
# KubeRay versions modelled but not run (kubeRayNotRun: v1.7.0, which the proxy does not serve) are never built here.
KUBERAY_VERSIONS="${KUBERAY_VERSIONS:-$(node -p "const s = require(process.argv[1]); s.kubeRay.filter((v) => !s.kubeRayNotRun[v]).reverse().join(' ')" "$SUPPORTED_JSON")}"
export GOTOOLCHAIN=local CGO_ENABLED=0
# No DWARF at all: -ldflags -s -w only drops it at link, after every package was compiled with it.
export GOFLAGS="-trimpath -gcflags=all=-dwarf=false"
# The compiler and linker spend about a tenth of their CPU collecting garbage at Go's default GOGC=100 (etcd's
# build: 87 CPU s, 77 with GOGC=off, 83 with 400; the binaries are identical). The first stage runs alone, so its
# processes collect only past 3 GiB each; the rest stage runs beside the suites, so it keeps GOGC=400 under 2 GiB.
if [ -z "${GOGC:-}" ]; then
  if [ "${STAGE:-all}" = first ]; then export GOGC=off GOMEMLIMIT=3GiB; else export GOGC=400 GOMEMLIMIT=2GiB; fi
fi
mkdir -p "$BIN" "$WORK"
REPORT="$CACHE/build-report.txt"
: > "$REPORT.tmp"

note() { printf '%-28s %-9s %s\n' "$1" "$2" "$3" | tee -a "$REPORT.tmp"; }
now() { date +%s; }

build_one() { # name, target binary, command...
  local name="$1" out="$2"; shift 2
  if [ -s "$out" ]; then note "$name" cached "$out"; return 0; fi
  local t0; t0=$(now)
  local log="$WORK/${name// /-}.log"
  # set -e inside the subshell: a failed step (e.g. a version the proxy refuses) must not fall through
  # to a build that resolves some other version.
  # Each go command runs under /usr/bin/time: the step's CPU seconds and the peak RSS of its largest
  # process (the compiler or linker), for the timing table.
  : > "$log.time"
  if ( set -e; if [ -x /usr/bin/time ]; then go() { /usr/bin/time -a -o "$log.time" -f '%U %S %M' go "$@"; }; fi; "$@" ) >"$log" 2>&1 && [ -s "$out" ]; then
    local usage; usage=$(awk '{c+=$1+$2; if ($3>m) m=$3} END {printf "cpu %ds, peak %d MiB", c, m/1024}' "$log.time")
    note "$name" built "$out ($(( $(now) - t0 ))s, $usage, sha256 $(sha256sum "$out" | cut -c1-16))"
    if [ -n "${CI_TIMINGS:-}" ]; then
      awk -v n="go: $name" -v w="$(( $(now) - t0 ))" '{c+=$1+$2; if ($3>m) m=$3} END {printf "%s\t%d\t%d\t%d\n", n, w, c, m/1024}' "$log.time" >> "$CI_TIMINGS"
    fi
  else
    if grep -qE '403 Forbidden|not available' "$log"; then
      note "$name" REFUSED "the module proxy does not serve it: $(grep -m1 -E '403|not available' "$log" | cut -c1-140)"
    else
      note "$name" FAILED "see $log: $(grep -m1 -iE 'error|refused|not available|forbidden' "$log" | cut -c1-160)"
    fi
    return 1
  fi
}

# etcd: server/v3 has replace directives, so build it from a wrapper module (research/testcluster.md §2.3).
etcd_build() {
  local d="$WORK/etcd-$ETCD_VERSION"; mkdir -p "$d"; cd "$d"
  [ -f go.mod ] || go mod init local/etcdbin
  go get -tool "go.etcd.io/etcd/server/v3@$ETCD_VERSION"
  go build -ldflags "-s -w" -o "$BIN/etcd-$ETCD_VERSION" go.etcd.io/etcd/server/v3
}

# kube-apiserver + kube-controller-manager: k8s.io/kubernetes requires its staging modules at v0.0.0
# through replace lines, so a wrapper module pins each to the matching v0.N.P (research §2.2), and the
# version is stamped (Kueue parses the server version).
k8s_build() {
  local d="$WORK/k8s-$K8S_VERSION"; mkdir -p "$d"; cd "$d"
  [ -f go.mod ] || go mod init local/k8sbin
  local staging="v0.${K8S_VERSION#v1.}"
  local gomod; gomod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  for m in $(sed -n 's|^[[:space:]]*\(k8s.io/[^ ]*\) => ./staging/.*|\1|p' "$gomod"); do
    go mod edit "-replace=$m=$m@$staging"
  done
  go get -tool "k8s.io/kubernetes/cmd/kube-apiserver@$K8S_VERSION" "k8s.io/kubernetes/cmd/kube-controller-manager@$K8S_VERSION"
  local minor; minor=$(echo "$K8S_VERSION" | cut -d. -f2)
  local V=k8s.io/component-base/version C=k8s.io/client-go/pkg/version
  local LD="-s -w -X $V.gitVersion=$K8S_VERSION -X $V.gitMajor=1 -X $V.gitMinor=$minor -X $V.gitTreeState=clean -X $V.buildDate=1970-01-01T00:00:00Z -X $C.gitVersion=$K8S_VERSION -X $C.gitMajor=1 -X $C.gitMinor=$minor"
  go build -ldflags "$LD" -o "$d/out/" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager
  cp "$d/out/kube-apiserver" "$BIN/kube-apiserver-$K8S_VERSION"
  cp "$d/out/kube-controller-manager" "$BIN/kube-controller-manager-$K8S_VERSION"
}

# Controllers are built from a wrapper module that requires the module by its own path: `go install
# pkg@version` first asks the proxy for longer module paths (sigs.k8s.io/kueue/cmd/kueue), and a partial
# mirror answers 403 to those, which stops the lookup.
# Modules the checksum database does not know (it answers 404 for them): built only if the module zip
# the proxy serves matches the sha256 pinned in no-sumdb-pins.txt (recorded from the proxy on
# 2026-11-30; one place, also read by test/agreement/sites/enumerate.ts).
declare -A NO_SUMDB_PINS=()
while read -r mv sum; do
  case "$mv" in ''|'#'*) continue ;; esac
  NO_SUMDB_PINS["$mv"]="$sum"
done < "$REPO/scripts/testcluster/no-sumdb-pins.txt"

wrapper_build() { # dir module version package output [ldflags]
  local d="$1" mod="$2" v="$3" pkg="$4" out="$5" ld="${6:-}"
  mkdir -p "$d"; cd "$d"
  [ -f go.mod ] || go mod init local/wrapper
  local pin="${NO_SUMDB_PINS[$mod@$v]:-}"
  if [ -n "$pin" ]; then
    export GONOSUMDB="$mod"
    local zip; zip=$(go mod download -json "$mod@$v" | sed -n 's/.*"Zip": "\(.*\)".*/\1/p')
    local got; got=$(sha256sum "$zip" | cut -d' ' -f1)
    if [ "$got" != "$pin" ]; then echo "checksum mismatch for $mod@$v: got $got, pinned $pin" >&2; return 1; fi
    echo "$mod@$v: not in the checksum database ($(go env GOSUMDB)); module zip matches the pinned sha256 $pin"
  fi
  go get "$mod@$v" || return 1
  # The build list must hold exactly the requested version.
  [ "$(go list -m -f '{{.Version}}' "$mod")" = "$v" ] || { echo "resolved $(go list -m -f '{{.Version}}' "$mod"), not $v" >&2; return 1; }
  go build -mod=mod -ldflags "-s -w $ld" -o "$out" "$pkg"
}

# kubectl from the same wrapper module (the ordered-apply script and its test use it).
kubectl_build() {
  local d="$WORK/k8s-$K8S_VERSION"; cd "$d"
  go get -tool "k8s.io/kubernetes/cmd/kubectl@$K8S_VERSION"
  local minor; minor=$(echo "$K8S_VERSION" | cut -d. -f2)
  local V=k8s.io/component-base/version C=k8s.io/client-go/pkg/version
  go build -ldflags "-s -w -X $V.gitVersion=$K8S_VERSION -X $V.gitMajor=1 -X $V.gitMinor=$minor -X $C.gitVersion=$K8S_VERSION -X $C.gitMajor=1 -X $C.gitMinor=$minor" -o "$BIN/kubectl-$K8S_VERSION" k8s.io/kubernetes/cmd/kubectl
}

# The node: kubelet, kube-scheduler and kube-proxy from the same wrapper module and version stamp.
node_build() {
  local d="$WORK/k8s-$K8S_VERSION"; cd "$d"
  go get -tool "k8s.io/kubernetes/cmd/kubelet@$K8S_VERSION" "k8s.io/kubernetes/cmd/kube-scheduler@$K8S_VERSION" "k8s.io/kubernetes/cmd/kube-proxy@$K8S_VERSION"
  local minor; minor=$(echo "$K8S_VERSION" | cut -d. -f2)
  local V=k8s.io/component-base/version C=k8s.io/client-go/pkg/version
  local LD="-s -w -X $V.gitVersion=$K8S_VERSION -X $V.gitMajor=1 -X $V.gitMinor=$minor -X $V.gitTreeState=clean -X $V.buildDate=1970-01-01T00:00:00Z -X $C.gitVersion=$K8S_VERSION -X $C.gitMajor=1 -X $C.gitMinor=$minor"
  go build -ldflags "$LD" -o "$d/out/" k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-proxy
  cp "$d/out/kube-scheduler" "$BIN/kube-scheduler-$K8S_VERSION"
  cp "$d/out/kube-proxy" "$BIN/kube-proxy-$K8S_VERSION"
  cp "$d/out/kubelet" "$BIN/kubelet-$K8S_VERSION" # last: build_one checks this one
}

# The pause image's binary: Kubernetes' own build/pause/linux/pause.c from the same module, linked statically.
pause_build() {
  local dir; dir=$(cd "$WORK/k8s-$K8S_VERSION" && go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  local v; v=$(sed -n 's/^TAG ?= *//p' "$dir/build/pause/Makefile")
  gcc -Os -Wall -Werror -static -DVERSION="v$v" -o "$BIN/pause-$v" "$dir/build/pause/linux/pause.c"
  strip "$BIN/pause-$v"
}

# CoreDNS and the local OCI registry (CNCF distribution), each from a wrapper module.
COREDNS_VERSION="${COREDNS_VERSION:-v1.14.7}"
DISTRIBUTION_VERSION="${DISTRIBUTION_VERSION:-v3.1.2}"
# Each is upstream's main with only the plugins / storage drivers the node uses (scripts/testcluster/coredns and
# registry/main.go say which), built in its wrapper module. The binary's .main-sha256 records the main it was built
# from: an edited main rebuilds it.
trimmed_build() { # dir module version main.go output
  local d="$1" main="$4" out="$5"
  mkdir -p "$d"; rm -f "$d"/*.go; cp "$main" "$d/main.go"
  wrapper_build "$d" "$2" "$3" . "$out" && sha256sum "$main" | cut -d' ' -f1 > "$out.main-sha256"
}
stale_if_main_changed() { # output main.go
  [ "$(cat "$1.main-sha256" 2>/dev/null)" = "$(sha256sum "$2" | cut -d' ' -f1)" ] || rm -f "$1"
}
COREDNS_MAIN="$REPO/scripts/testcluster/coredns/main.go" REGISTRY_MAIN="$REPO/scripts/testcluster/registry/main.go"
stale_if_main_changed "$BIN/coredns-$COREDNS_VERSION" "$COREDNS_MAIN"
stale_if_main_changed "$BIN/registry-$DISTRIBUTION_VERSION" "$REGISTRY_MAIN"
coredns_build() {
  trimmed_build "$WORK/coredns-$COREDNS_VERSION" github.com/coredns/coredns "$COREDNS_VERSION" "$COREDNS_MAIN" "$BIN/coredns-$COREDNS_VERSION"
}
registry_build() {
  trimmed_build "$WORK/distribution-$DISTRIBUTION_VERSION" github.com/distribution/distribution/v3 "$DISTRIBUTION_VERSION" "$REGISTRY_MAIN" "$BIN/registry-$DISTRIBUTION_VERSION"
}

# kustomize, to render Kueue releases that are not vendored (v0.17.0) exactly as `make artifacts` does.
KUSTOMIZE_VERSION="${KUSTOMIZE_VERSION:-v5.6.0}"
kustomize_build() {
  wrapper_build "$WORK/kustomize-$KUSTOMIZE_VERSION" sigs.k8s.io/kustomize/kustomize/v5 "$KUSTOMIZE_VERSION" sigs.k8s.io/kustomize/kustomize/v5 "$BIN/kustomize-$KUSTOMIZE_VERSION"
}

# The release manifests.yaml of a Kueue tag: its module's config/ tree, image set to
# registry.k8s.io/kueue/kueue:<tag>, then `kustomize build config/default`.
render_kueue_release() {
  local v="$1" out="$CACHE/releases-rendered/kueue-$v/manifests.yaml"
  local moddir; moddir=$(cd "$WORK" && go mod download -json "sigs.k8s.io/kueue@$v" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  [ -d "$moddir/config/default" ] || { echo "no config/default in $moddir" >&2; return 1; }
  local tmp; tmp=$(mktemp -d)
  cp -r "$moddir/config" "$tmp/config"; chmod -R u+w "$tmp"
  (cd "$tmp/config/components/manager" && "$BIN/kustomize-$KUSTOMIZE_VERSION" edit set image "controller=registry.k8s.io/kueue/kueue:$v")
  mkdir -p "$(dirname "$out")"
  "$BIN/kustomize-$KUSTOMIZE_VERSION" build "$tmp/config/default" > "$out.tmp" && mv "$out.tmp" "$out"
  rm -rf "$tmp"
}

kueue_build() {
  wrapper_build "$WORK/kueue-$1" sigs.k8s.io/kueue "$1" sigs.k8s.io/kueue/cmd/kueue "$BIN/kueue-$1" "-X sigs.k8s.io/kueue/pkg/version.GitVersion=$1"
}

kuberay_build() {
  wrapper_build "$WORK/kuberay-$1" github.com/ray-project/kuberay/ray-operator "$1" github.com/ray-project/kuberay/ray-operator "$BIN/kuberay-operator-$1"
}

# The KubeRay oracle (scripts/kuberay-validate): KubeRay's own validation functions, compiled per KubeRay
# version from the pinned module (same pins as kuberay_build) in a wrapper module. The binary name carries
# a hash of the program's sources (test/agreement/support/kuberay-oracle.ts computes the same), so an edit
# rebuilds it. The checks each version runs differ, so one adapter file per version range is copied in.
KV_SRC="$REPO/scripts/kuberay-validate"
kuberay_validate_hash() { # sha256 over "<relative path>\n<content>" of each .go file, sorted by path
  (cd "$KV_SRC" && find . -type f -name '*.go' | LC_ALL=C sort | while IFS= read -r f; do printf '%s\n' "${f#./}"; cat "$f"; done) | sha256sum | cut -c1-12
}
kuberay_validate_adapter() {
  case "$1" in
    v1.4.*|v1.5.*) echo before-v1.6.go ;;
    v1.6.*) echo v1.6.go ;;
    *) return 1 ;;
  esac
}
kuberay_validate_build() { # version output
  local v="$1" out="$2" adapter d="$WORK/kuberay-validate-$1"
  adapter=$(kuberay_validate_adapter "$v") || { echo "no adapter for KubeRay $v: read the checks its controllers/ray/*_controller.go run and add one in $KV_SRC/adapters" >&2; return 1; }
  mkdir -p "$d"; rm -f "$d"/*.go
  cp "$KV_SRC/main.go" "$d/main.go"; cp "$KV_SRC/adapters/$adapter" "$d/adapter.go"
  wrapper_build "$d" github.com/ray-project/kuberay/ray-operator "$v" . "$out" "-X main.kubeRayVersion=$v"
  # Older builds of this version's oracle are stale once a new one exists.
  find "$BIN" -maxdepth 1 -name "kuberay-validate-$v-*" ! -name "$(basename "$out")" -delete
}
build_kuberay_validate() {
  local h; h=$(kuberay_validate_hash)
  for v in $KUBERAY_VERSIONS; do build_one "kuberay-validate $v" "$BIN/kuberay-validate-$v-$h" kuberay_validate_build "$v" "$BIN/kuberay-validate-$v-$h" || kv_fail=1; done
}

# promtool, which checks and unit-tests the alert rules QueueObservability generates (test/observability).
# The Go module's v0.3xx.y is Prometheus v3.xx.y. Built without the service-discovery plugins
# (remove_all_sd): only `check rules` and `test rules` are used.
PROMETHEUS_MODULE_VERSION="${PROMETHEUS_MODULE_VERSION:-v0.316.0}"
promtool_build() {
  local v="$PROMETHEUS_MODULE_VERSION" mp="${PROMETHEUS_MODULE_VERSION#v0.}" # 316.0
  local m="${mp%%.*}" P=github.com/prometheus/common/version
  export GOFLAGS="$GOFLAGS -tags=remove_all_sd"
  wrapper_build "$WORK/prometheus-$v" github.com/prometheus/prometheus "$v" github.com/prometheus/prometheus/cmd/promtool "$BIN/promtool-$v" \
    "-X $P.Version=${m:0:1}.${m:1}.${mp#*.} -X $P.Branch=module -X $P.Revision=$v"
}
# Prometheus itself, from the same wrapper module (its dependencies are already downloaded for promtool),
# for the real node's scrape test (test/node/guide.e2e.test.ts). Only Kubernetes service discovery is
# compiled in; the web UI's assets are not (no builtinassets tag): the test uses the HTTP API.
prometheus_build() {
  local v="$PROMETHEUS_MODULE_VERSION" mp="${PROMETHEUS_MODULE_VERSION#v0.}"
  local m="${mp%%.*}" P=github.com/prometheus/common/version
  export GOFLAGS="$GOFLAGS -tags=remove_all_sd,enable_kubernetes_sd"
  wrapper_build "$WORK/prometheus-$v" github.com/prometheus/prometheus "$v" github.com/prometheus/prometheus/cmd/prometheus "$BIN/prometheus-$v" \
    "-X $P.Version=${m:0:1}.${m:1}.${mp#*.} -X $P.Branch=module -X $P.Revision=$v"
}
# prometheus-operator and its config-reloader sidecar, from one wrapper module: the real node's guide suite
# runs the operator, which configures Prometheus from QueueObservability's ServiceMonitors and PrometheusRule
# as it would in production. Its CRDs and example Deployment are read from the same module's source
# (test/node/prometheus.ts), so one pin serves the binaries and the manifests.
PROMETHEUS_OPERATOR_VERSION="${PROMETHEUS_OPERATOR_VERSION:-v0.85.0}"
prometheus_operator_build() {
  local v="$PROMETHEUS_OPERATOR_VERSION" M=github.com/prometheus-operator/prometheus-operator P=github.com/prometheus/common/version
  local d="$WORK/prometheus-operator-$v" ld="-X $P.Version=${PROMETHEUS_OPERATOR_VERSION#v} -X $P.Branch=module -X $P.Revision=$v"
  wrapper_build "$d" "$M" "$v" "$M/cmd/prometheus-config-reloader" "$BIN/prometheus-config-reloader-$v" "$ld"
  wrapper_build "$d" "$M" "$v" "$M/cmd/operator" "$BIN/prometheus-operator-$v" "$ld" # last: build_one checks this one
}
# kube-router's network-policy controller: the real node's NetworkPolicy enforcer, for the network-policy suite
# only (test/node/network-policy.e2e.test.ts; NodeCluster.up's networkPolicy option). Test-only, never shipped:
# v2.1.0 has reported security flaws, and it runs only inside the node's own network namespace. Built in the
# rest stage: the first suites never need it.
KUBE_ROUTER_VERSION="${KUBE_ROUTER_VERSION:-v2.1.0}"
kube_router_build() {
  local v="$KUBE_ROUTER_VERSION" M=github.com/cloudnativelabs/kube-router/v2
  wrapper_build "$WORK/kube-router-$v" "$M" "$v" "$M/cmd/kube-router" "$BIN/kube-router-$v" "-X $M/pkg/version.Version=$v"
}
if [ "${ONLY:-}" = kube-router ]; then
  echo "cdk8s-kueue-ray kube-router: building into $BIN (Go $(go env GOVERSION), proxy $(go env GOPROXY))"
  rc=0; build_one "kube-router $KUBE_ROUTER_VERSION" "$BIN/kube-router-$KUBE_ROUTER_VERSION" kube_router_build || rc=1
  mv "$REPORT.tmp" "$REPORT.kube-router"
  echo "report: $REPORT.kube-router"
  exit $rc
fi
if [ "${ONLY:-}" = promtool ]; then
  echo "cdk8s-kueue-ray promtool: building into $BIN (Go $(go env GOVERSION), proxy $(go env GOPROXY))"
  rc=0; build_one "promtool $PROMETHEUS_MODULE_VERSION" "$BIN/promtool-$PROMETHEUS_MODULE_VERSION" promtool_build || rc=1
  build_one "prometheus $PROMETHEUS_MODULE_VERSION" "$BIN/prometheus-$PROMETHEUS_MODULE_VERSION" prometheus_build || rc=1
  mv "$REPORT.tmp" "$REPORT.promtool"
  echo "report: $REPORT.promtool"
  exit $rc
fi

kv_fail=0
if [ "${ONLY:-}" = kuberay-validate ]; then
  echo "cdk8s-kueue-ray KubeRay oracle: building into $BIN (Go $(go env GOVERSION), proxy $(go env GOPROXY))"
  build_kuberay_validate
  mv "$REPORT.tmp" "$REPORT.kuberay-validate"
  echo "report: $REPORT.kuberay-validate"
  exit $kv_fail
fi

STAGE="${STAGE:-all}"
case "$STAGE" in first|rest|all) ;; *) echo "STAGE must be first, rest or all, not '$STAGE'" >&2; exit 2 ;; esac
# The first Kueue and KubeRay listed are the default pair: the real node and the first suites run on it.
FIRST_KUEUE="${KUEUE_VERSIONS%% *}" FIRST_KUBERAY="${KUBERAY_VERSIONS%% *}"
echo "cdk8s-kueue-ray test control plane ($STAGE): building into $BIN (Go $(go env GOVERSION), proxy $(go env GOPROXY))"
# The control plane itself must build; a Kueue or KubeRay version that cannot be built is reported and
# its pairs are left out of the e2e (the README records which pairs run).
base_fail=0 kueue_ok=0 kuberay_ok=0
# Two tracks at once: one go build keeps the 2 cores about 87% busy (downloads, the linker, the tail of each
# package graph), two keep them full. The Kubernetes pieces share one wrapper module, so they stay in one track.
track_control_plane() {
  local f=0
  build_one "etcd $ETCD_VERSION" "$BIN/etcd-$ETCD_VERSION" etcd_build || f=1
  build_one "kubernetes $K8S_VERSION" "$BIN/kube-controller-manager-$K8S_VERSION" k8s_build || f=1
  build_one "kubectl $K8S_VERSION" "$BIN/kubectl-$K8S_VERSION" kubectl_build || f=1
  # The real node (kubelet, scheduler, proxy, CoreDNS, pause, registry): the real-node suite and `npm run cluster`.
  build_one "node $K8S_VERSION" "$BIN/kubelet-$K8S_VERSION" node_build || f=1
  build_one "pause" "$BIN/pause-3.10.1" pause_build || f=1
  build_one "kueue $FIRST_KUEUE" "$BIN/kueue-$FIRST_KUEUE" kueue_build "$FIRST_KUEUE" || f=1
  return $f
}
track_others() {
  local f=0
  build_one "coredns $COREDNS_VERSION" "$BIN/coredns-$COREDNS_VERSION" coredns_build || f=1
  build_one "registry $DISTRIBUTION_VERSION" "$BIN/registry-$DISTRIBUTION_VERSION" registry_build || f=1
  build_one "kuberay $FIRST_KUBERAY" "$BIN/kuberay-operator-$FIRST_KUBERAY" kuberay_build "$FIRST_KUBERAY" || f=1
  build_one "prometheus $PROMETHEUS_MODULE_VERSION" "$BIN/prometheus-$PROMETHEUS_MODULE_VERSION" prometheus_build || f=1
  build_one "prometheus-operator $PROMETHEUS_OPERATOR_VERSION" "$BIN/prometheus-operator-$PROMETHEUS_OPERATOR_VERSION" prometheus_operator_build || f=1
  return $f
}
if [ "$STAGE" != rest ]; then
  ( track_control_plane ) & a=$!
  ( track_others ) & b=$!
  wait $a || base_fail=1
  wait $b || base_fail=1
  kueue_ok=1 kuberay_ok=1
fi
if [ "$STAGE" != first ]; then
  # A version the proxy refuses is reported; at least one of each must build. Kueue and KubeRay in two tracks.
  # promtool: only its own suite (pooled) runs it, and here it reuses the packages Prometheus compiled in the first stage.
  ( pf=0; build_one "promtool $PROMETHEUS_MODULE_VERSION" "$BIN/promtool-$PROMETHEUS_MODULE_VERSION" promtool_build || pf=1
    for v in ${KUEUE_VERSIONS#"$FIRST_KUEUE"}; do build_one "kueue $v" "$BIN/kueue-$v" kueue_build "$v" || true; done
    build_one "kustomize $KUSTOMIZE_VERSION" "$BIN/kustomize-$KUSTOMIZE_VERSION" kustomize_build || true
    exit $pf ) & a=$!
  ( for v in ${KUBERAY_VERSIONS#"$FIRST_KUBERAY"}; do build_one "kuberay $v" "$BIN/kuberay-operator-$v" kuberay_build "$v" || true; done
    kv_fail=0; build_kuberay_validate
    # The network-policy suite's enforcer: here only for a whole build (STAGE=all); npm test builds it after the
    # rest stage (ONLY=kube-router, scripts/test.sh), so the suites that need only the rest stage do not wait for it.
    # A failure is reported, and that suite fails in CI for want of it.
    if [ "$STAGE" = all ]; then build_one "kube-router $KUBE_ROUTER_VERSION" "$BIN/kube-router-$KUBE_ROUTER_VERSION" kube_router_build || true; fi
    exit $kv_fail ) & b=$!
  wait $a || base_fail=1
  wait $b || kv_fail=1
  for v in $KUEUE_VERSIONS; do [ -x "$BIN/kueue-$v" ] && kueue_ok=1; done
  for v in $KUBERAY_VERSIONS; do [ -x "$BIN/kuberay-operator-$v" ] && kuberay_ok=1; done
  for v in ${RENDER_KUEUE_RELEASES:-v0.17.0 v0.19.2}; do
    [ -x "$BIN/kueue-$v" ] && [ -x "$BIN/kustomize-$KUSTOMIZE_VERSION" ] && build_one "kueue $v release render" "$CACHE/releases-rendered/kueue-$v/manifests.yaml" render_kueue_release "$v" || true
  done
fi
# One report per stage; build-report.txt holds the last complete picture (both stages once the rest is built).
mv "$REPORT.tmp" "$REPORT.$STAGE"
case "$STAGE" in
  all) cp "$REPORT.all" "$REPORT" ;;
  rest) cat "$REPORT.first" "$REPORT.rest" > "$REPORT" 2>/dev/null || cp "$REPORT.rest" "$REPORT" ;;
  first) cp "$REPORT.first" "$REPORT" ;;
esac
echo "report: $REPORT"
if [ $base_fail = 1 ] || [ $kueue_ok = 0 ] || [ $kuberay_ok = 0 ] || [ $kv_fail = 1 ]; then
  echo "the test control plane is incomplete: see the FAILED lines above" >&2
  exit 1
fi
