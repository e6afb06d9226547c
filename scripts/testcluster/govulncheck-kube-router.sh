#!/usr/bin/env bash
# What govulncheck reports for the kube-router binary of the network-policy suite (test-only enforcer, never
# shipped; issue 40). Not part of CI. Everything comes from the Go module proxy at pinned versions, into the
# cache (docs/dev/govulncheck.md):
#   1. govulncheck (golang.org/x/vuln) and the vulnerability database's own index generator
#      (golang.org/x/vulndb's cmd/indexdb);
#   2. the database, built locally from the OSV reports in the golang.org/x/vulndb module (data/osv) into the
#      v1 layout govulncheck's -db flag reads (index/db.json, index/modules.json, ID/<id>.json);
#   3. kube-router: the test cluster's binary if build.sh made it, else the same build here, and the same
#      build with its symbol table (see below); then the scans.
# Idempotent: a tool, database or binary that exists is kept; the scan runs each time (under a second).
#
#   scripts/testcluster/govulncheck-kube-router.sh            # binary mode
#   SOURCE=1 scripts/testcluster/govulncheck-kube-router.sh   # and source mode (call graph, run for text and
#                                                             # JSON: ~2.5 min and ~6.5 GB each)
#
# Exit status: 0 when the scan ran (whatever it found), non-zero when a step failed.
set -euo pipefail

CACHE="${CDK8S_KUEUE_RAY_CACHE:-$HOME/.cache/cdk8s-kueue-ray}"
GOVULNCHECK_VERSION=v1.9.0
VULNDB_VERSION=v0.0.0-20261105234957-e22db6528018
KUBE_ROUTER_VERSION="${KUBE_ROUTER_VERSION:-v2.1.0}"
KR=github.com/cloudnativelabs/kube-router/v2
DIR="$CACHE/govulncheck"
TOOLS="$DIR/bin"
DB="$DIR/vulndb-$VULNDB_VERSION"
OUT="$DIR/kube-router-$KUBE_ROUTER_VERSION"
export GOTOOLCHAIN=local CGO_ENABLED=0
# The same flags as build.sh, so a binary built here is the one the test cluster runs.
export GOFLAGS="-trimpath -gcflags=all=-dwarf=false"
mkdir -p "$TOOLS"

say() { echo "govulncheck-kube-router: $*" >&2; }

install_tool() { # package@version, target
  local target="$2" tmp
  [ -x "$target" ] && return 0
  tmp=$(mktemp -d "$DIR/install.XXXXXX")
  say "building $1"
  GOBIN="$tmp" nice -n 10 go install -trimpath "$1"
  mv "$tmp/$(basename "${1%@*}")" "$target"
  rmdir "$tmp"
}

# 1. The tools.
GOVULNCHECK="$TOOLS/govulncheck-$GOVULNCHECK_VERSION"
INDEXDB="$TOOLS/indexdb-$VULNDB_VERSION"
install_tool "golang.org/x/vuln/cmd/govulncheck@$GOVULNCHECK_VERSION" "$GOVULNCHECK"
install_tool "golang.org/x/vulndb/cmd/indexdb@$VULNDB_VERSION" "$INDEXDB"

# 2. The database. The module's OSV files carry no dates ("modified" is the zero time): the upstream
# generator takes each report's date from the repository's git history, which a module zip does not have.
# So every zero "modified" becomes the time of the vulndb commit the pseudo-version names; the database's
# date (index/db.json, govulncheck's "DB updated") is then that commit's time.
if [ ! -s "$DB/index/db.json" ]; then
  info=$(go mod download -json "golang.org/x/vulndb@$VULNDB_VERSION")
  src=$(sed -n 's/.*"Dir": "\(.*\)".*/\1/p' <<<"$info")/data/osv
  when=$(sed -n 's/.*"Time":"\([^"]*\)".*/\1/p' "$(sed -n 's/.*"Info": "\(.*\)".*/\1/p' <<<"$info")")
  [ -d "$src" ] && [ -n "$when" ] || { say "no data/osv or no commit time in golang.org/x/vulndb@$VULNDB_VERSION"; exit 1; }
  stage=$(mktemp -d "$DIR/osv.XXXXXX")
  for f in "$src"/GO-*.json; do
    sed "s/\"modified\": \"0001-01-01T00:00:00Z\"/\"modified\": \"$when\"/" "$f" > "$stage/${f##*/}"
  done
  rm -rf "$DB.tmp"
  "$INDEXDB" -vulns "$stage" -out "$DB.tmp"
  n_src=$(find "$src" -name 'GO-*.json' | wc -l); n_db=$(find "$DB.tmp/ID" -name 'GO-*.json' | wc -l)
  [ "$n_src" = "$n_db" ] || { say "database has $n_db entries, the module $n_src"; exit 1; }
  rm -rf "$stage" "$DB"; mv "$DB.tmp" "$DB"
  say "database: $n_db reports, $(cat "$DB/index/db.json")"
fi

# 3. kube-router. The test cluster's binary is stripped (-s -w), and govulncheck cannot read the symbols of a
# stripped binary: it then reports every vulnerability of every module version the binary holds, called or
# not. So the same source is also linked with its symbol table (same module, version and flags, without
# -s -w), and that scan says which vulnerable functions are in the code. The stripped one is build.sh's
# binary when it exists, else the same build here.
WRAP="$DIR/kube-router-src-$KUBE_ROUTER_VERSION"
build_wrapper() {
  mkdir -p "$WRAP"
  if [ ! -f "$WRAP/go.mod" ]; then (cd "$WRAP" && go mod init local/wrapper >/dev/null 2>&1); fi
  (cd "$WRAP" && go get "$KR@$KUBE_ROUTER_VERSION" >/dev/null 2>&1 \
    && [ "$(go list -m -f '{{.Version}}' "$KR")" = "$KUBE_ROUTER_VERSION" ])
}
build_kube_router() { # output, extra ldflags
  [ -s "$1" ] && return 0
  say "building $1"
  build_wrapper
  (cd "$WRAP" && nice -n 10 go build -mod=mod -ldflags "$2 -X $KR/pkg/version.Version=$KUBE_ROUTER_VERSION" \
    -o "$1.tmp" "$KR/cmd/kube-router") && mv "$1.tmp" "$1"
}
STRIPPED="$CACHE/bin/kube-router-$KUBE_ROUTER_VERSION"
if [ ! -s "$STRIPPED" ]; then
  STRIPPED="$DIR/kube-router-$KUBE_ROUTER_VERSION.bin"
  build_kube_router "$STRIPPED" "-s -w"
fi
SYMBOLS="$DIR/kube-router-$KUBE_ROUTER_VERSION.symbols.bin"
build_kube_router "$SYMBOLS" ""
say "test cluster's binary: $STRIPPED (sha256 $(sha256sum "$STRIPPED" | cut -c1-16)); with symbols: sha256 $(sha256sum "$SYMBOLS" | cut -c1-16)"

scan() { # govulncheck exits 3 when it finds something: that is a result, not a failure.
  local rc=0; "$@" || rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 3 ] || { say "govulncheck failed ($rc)"; exit 1; }
}
for kind in stripped symbols; do
  bin=$STRIPPED; [ "$kind" = symbols ] && bin=$SYMBOLS
  scan "$GOVULNCHECK" -mode=binary -db "file://$DB" "$bin" > "$OUT.$kind.txt"
  scan "$GOVULNCHECK" -mode=binary -db "file://$DB" -format json "$bin" > "$OUT.$kind.json"
done
if [ "${SOURCE:-}" = 1 ]; then
  build_wrapper
  say "source mode (call graph of $KR/cmd/kube-router)"
  (cd "$WRAP" && GOFLAGS="-trimpath -mod=mod" scan nice -n 10 "$GOVULNCHECK" -db "file://$DB" "$KR/cmd/kube-router" > "$OUT.source.txt")
  (cd "$WRAP" && GOFLAGS="-trimpath -mod=mod" scan nice -n 10 "$GOVULNCHECK" -db "file://$DB" -format json "$KR/cmd/kube-router" > "$OUT.source.json")
fi

# The summary: one line per report, at the most precise level govulncheck reached for it
# (symbol: a vulnerable function is in the binary, or called in source mode; package: imported, not called;
# module: only required, or a report that names no package).
summarize() {
  node -e '
const fs = require("fs");
const text = fs.readFileSync(process.argv[1], "utf8");
const msgs = JSON.parse("[" + text.trim().replace(/\n}\n{/g, "\n},\n{") + "]");
const rank = { symbol: 0, package: 1, module: 2 };
const osv = new Map(), byId = new Map(); let cfg = {};
for (const m of msgs) {
  if (m.config) cfg = m.config;
  if (m.osv) osv.set(m.osv.id, m.osv);
  if (!m.finding) continue;
  const f = m.finding, t = f.trace[0];
  const level = t.function ? "symbol" : t.package ? "package" : "module";
  const e = byId.get(f.osv) ?? new Map();
  const mod = e.get(t.module) ?? { found: t.version, fixed: f.fixed_version || "none", level };
  if (rank[level] < rank[mod.level]) mod.level = level;
  e.set(t.module, mod); byId.set(f.osv, e);
}
console.log(`${cfg.scan_mode} mode (${cfg.scan_level}), database of ${cfg.db_last_modified}`);
const best = (e) => Math.min(...[...e.values()].map((m) => rank[m.level]));
for (const [lvl, r] of Object.entries(rank)) {
  const ids = [...byId].filter(([, e]) => best(e) === r).sort(([a], [b]) => (a < b ? 1 : -1));
  console.log(`${lvl}: ${ids.length}`);
  for (const [id, e] of ids) {
    const mods = [...e].filter(([, m]) => rank[m.level] === r).map(([p, m]) => `${p} ${m.found} -> ${m.fixed}`).join("; ");
    console.log(`| ${id} | ${mods} | ${(osv.get(id)?.summary ?? "").replace(/\|/g, "\\|")} |`);
  }
}' "$1"
}
kinds="stripped symbols"; [ "${SOURCE:-}" = 1 ] && kinds="$kinds source"
for kind in $kinds; do
  summarize "$OUT.$kind.json" > "$OUT.$kind.summary"
  echo "== $kind: $(grep -m1 'Your code is affected' "$OUT.$kind.txt" || echo 'nothing called')"
done
cat "$OUT.symbols.summary"
say "reports: $OUT.{$(tr ' ' , <<<"$kinds")}.{txt,json,summary}"
