#!/usr/bin/env bash
# Builds, without a daemon (Debian's buildah) and reproducibly, the Ray image KubeRay's pods run on the
# one-node local cluster, under the reference the constructs write:
#   docker.io/rayproject/ray:<v>   (each of RAY_VERSIONS; the pods' rayproject/ray:<v> normalises to it)
# from Debian bookworm's python3, bash, coreutils, grep, wget, ... (.debs pinned in debs.lock, unpacked with
# dpkg-deb -x: no maintainer scripts) and ray[default,serve]==<v> with its dependencies (PyPI wheels pinned
# in requirements-<v>.txt, installed by pip --require-hashes with the image's own /usr/bin/python3, so the
# console scripts in /usr/local/bin start with #!/usr/bin/python3). These are NOT upstream's image bytes
# (theirs is Ubuntu + conda); the same commands KubeRay runs work the same (a smoke check here runs them).
# User ray 1000:100, home /home/ray, cmd bash, as upstream; RAY_USAGE_STATS_ENABLED=0 (the test cluster
# has no way out). Every .py is byte-compiled (unchecked-hash pycs: reproducible, and Ray starts without
# compiling or hashing its sources on a 2-core node); each package's copyright file is kept.
#
#   scripts/ray-image/build.sh                 # RAY_VERSIONS="2.46.0"
#   RAY_VERSIONS="2.46.0" SOURCE_DATE_EPOCH=0 scripts/ray-image/build.sh
#
# Writes <cache>/node-images/rayproject_ray-<v>.oci.tar (the OCI ref name is the full reference) with .digest
# and .inputs (hash of these scripts and locks) beside it, and <cache>/node-images/ray-images.tsv:
# "<reference>\t<archive>\t<digest>" for each image of this run. Unchanged inputs keep the archive
# ("cached"). Same inputs and SOURCE_DATE_EPOCH (default 0) give byte-identical archives.
# To update the pins: scripts/ray-image/lock.sh (a new Ray version: RAY_VERSIONS=<v> scripts/ray-image/lock.sh).
# Needs root (chroot), buildah, apt-get (bookworm lists: apt-get update), pip3, unshare and ip. Downloads
# are cached under <cache>/ray-image/ (debs/, wheels/); the cache dir is CDK8S_KUEUE_RAY_CACHE or
# ~/.cache/cdk8s-kueue-ray.
# shellcheck disable=SC2016 # the scripts given to ns_run expand inside the namespace
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/ray-image/lib.sh
START=$(date +%s.%N)
RAY_VERSIONS=${RAY_VERSIONS:-2.46.0}
DEBS_LOCK=scripts/ray-image/debs.lock

die() { echo "ray-image: $*" >&2; exit 1; }
for c in buildah dpkg-deb apt-get pip3 unshare ip chroot; do
  command -v "$c" >/dev/null || die "$c is missing: apt-get update && apt-get install -y buildah dpkg util-linux iproute2 coreutils (pip3: CPython 3.11 with pip)"
done
[ "$(id -u)" = 0 ] || die "run as root: pip installs, and the smoke check runs, inside the image's root filesystem (chroot)"
[ -s "$DEBS_LOCK" ] || die "$DEBS_LOCK is missing: run scripts/ray-image/lock.sh"
for v in $RAY_VERSIONS; do
  [ -s "scripts/ray-image/requirements-$v.txt" ] || die "scripts/ray-image/requirements-$v.txt is missing: run RAY_VERSIONS=$v scripts/ray-image/lock.sh"
done
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-0}
CACHE_ROOT="${CDK8S_KUEUE_RAY_CACHE:-$HOME/.cache/cdk8s-kueue-ray}"
CACHE=$CACHE_ROOT/ray-image
OUT_DIR=${NODE_IMAGES_DIR:-$CACHE_ROOT/node-images}
mkdir -p "$CACHE/debs" "$CACHE/wheels" "$OUT_DIR"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cdk8s-kueue-ray-ray-image.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
B=(buildah --root "$WORK/storage" --runroot "$WORK/run" --storage-driver vfs)
SCRIPTS_SHA=$(cat scripts/ray-image/build.sh scripts/ray-image/lib.sh "$DEBS_LOCK" | sha256sum | cut -d' ' -f1)
PINS="SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH $(buildah --version)"
PATH_ENV=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }
mapfile -t DEBS < <(grep -v '^#' "$DEBS_LOCK")
deb_file() { echo "$CACHE/debs/${1}_${2//:/%3a}.deb"; }

# --- Debian packages, from the configured apt sources: all missing ones in one apt-get download.
fetch_debs() {
  local missing=() d pkg ver sha f got
  for d in "${DEBS[@]}"; do
    read -r pkg ver sha <<<"$d"
    f=$(deb_file "$pkg" "$ver")
    [ -s "$f" ] && [ "$(sha256sum "$f" | cut -d' ' -f1)" = "$sha" ] || missing+=("$pkg=$ver")
  done
  [ ${#missing[@]} = 0 ] && return 0
  echo "ray-image: downloading ${#missing[@]} Debian packages"
  rm -rf "$WORK/dl" && mkdir -p "$WORK/dl"
  (cd "$WORK/dl" && apt-get download -q "${missing[@]}" >/dev/null 2>"$WORK/apt.err") \
    || die "apt-get download failed ($(tr '\n' ' ' <"$WORK/apt.err")). Run apt-get update; if Debian replaced a version (a point release), run scripts/ray-image/lock.sh"
  for d in "${DEBS[@]}"; do
    read -r pkg ver sha <<<"$d"
    f=$(deb_file "$pkg" "$ver")
    [ -s "$f" ] && [ "$(sha256sum "$f" | cut -d' ' -f1)" = "$sha" ] && continue
    got=$(sha256sum "$WORK/dl/${pkg}_${ver//:/%3a}"_*.deb | cut -d' ' -f1)
    [ "$got" = "$sha" ] || die "$pkg=$ver: sha256 $got, pinned $sha in $DEBS_LOCK; refusing it"
    mv "$WORK/dl/${pkg}_${ver//:/%3a}"_*.deb "$f"
  done
}

# --- Wheels, from the index pip is configured with (not its find-links: the lock names index files).
# wheel_missing <lock>: prints the lock's hashes that no cached wheel has.
wheel_missing() {
  local have
  have=$(find "$CACHE/wheels" -name '*.whl' -exec sha256sum {} + | cut -d' ' -f1 | sort -u)
  grep -o 'sha256:[0-9a-f]*' "$1" | cut -d: -f2 | sort -u | comm -23 - <(echo "$have")
}
fetch_wheels() {
  local lock=$1
  [ -z "$(wheel_missing "$lock")" ] && return 0
  echo "ray-image: downloading the wheels of $lock"
  env -u PIP_FIND_LINKS pip3 download --quiet --no-deps --require-hashes "${PIP_TARGET[@]}" -d "$CACHE/wheels" -r "$lock" \
    >"$WORK/pip.err" 2>&1 || die "pip download of $lock failed: $(tail -5 "$WORK/pip.err"). If the index lost a file, run scripts/ray-image/lock.sh"
  [ -z "$(wheel_missing "$lock")" ] || die "after pip download, no wheel in $CACHE/wheels has sha256 $(wheel_missing "$lock" | head -3 | tr '\n' ' ')"
}

# assemble <root>: the packages unpacked, /usr merged as bookworm's is, the files maintainer scripts would
# have made, and only the copyright files of /usr/share/doc.
assemble() {
  local R=$1 S=$WORK/stage d pkg ver sha f
  rm -rf "$S" && mkdir -p "$S"
  for d in "${DEBS[@]}"; do
    read -r pkg ver sha <<<"$d"
    dpkg-deb -x "$(deb_file "$pkg" "$ver")" "$S"
  done
  # Merged /usr: bookworm's packages still ship /bin, /lib, ...; a file in both halves would be a conflict.
  for d in bin sbin lib lib64; do
    [ -d "$S/$d" ] || continue
    mkdir -p "$S/usr/$d"
    while IFS= read -r -d '' f; do
      if [ -e "$S/usr/$d/$f" ] || [ -L "$S/usr/$d/$f" ]; then
        die "/$d/$f and /usr/$d/$f both exist after unpacking; a package in $DEBS_LOCK conflicts with the merged /usr"
      fi
    done < <(cd "$S/$d" && find . ! -type d -print0)
    cp -a "$S/$d/." "$S/usr/$d/" && rm -rf "${S:?}/$d"
    ln -s "usr/$d" "$S/$d"
  done
  mv "$S" "$R"
  rm -rf "$R/usr/share/man" "$R/usr/share/info" "$R/usr/share/locale" "$R/usr/share/lintian" "$R/usr/share/menu"
  find "$R/usr/share/doc" -mindepth 2 ! -type d ! -name copyright -delete
  find "$R/usr/share/doc" -mindepth 1 -type d -empty -delete
  for d in "${DEBS[@]}"; do
    read -r pkg _ <<<"$d"
    [ -f "$R/usr/share/doc/$pkg/copyright" ] || die "$pkg has no /usr/share/doc/$pkg/copyright in the image"
  done
  # What postinsts would have made: awk (mawk's alternative) and the CA bundle (update-ca-certificates, from
  # the Mozilla set alone in a fixed order; awk 1 ends each file with a newline), which openssl's
  # /usr/lib/ssl/cert.pem (OpenSSL's default CA file) points to.
  ln -s mawk "$R/usr/bin/awk"
  rm "$R/etc/rmt" # tar's link to its rmt alternative, which no postinst made
  mkdir -p "$R/etc/ssl/certs"
  find "$R/usr/share/ca-certificates/mozilla" -name '*.crt' -print0 | LC_ALL=C sort -z | xargs -0 awk 1 >"$R/etc/ssl/certs/ca-certificates.crt"
  [ "$(grep -c 'BEGIN CERTIFICATE' "$R/etc/ssl/certs/ca-certificates.crt")" -gt 100 ] || die "the CA bundle from ca-certificates looks empty"
  # Users as upstream's image: ray 1000, in group users (100).
  printf '%s\n' root:x:0:0:root:/root:/bin/bash ray:x:1000:100::/home/ray:/bin/bash nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin >"$R/etc/passwd"
  printf '%s\n' root:x:0: users:x:100:ray nogroup:x:65534: >"$R/etc/group"
  chmod 0644 "$R/etc/passwd" "$R/etc/group"
  mkdir -p "$R/tmp" "$R/root" "$R/home" "$R/proc" "$R/dev" "$R/sys" "$R/run"
  chmod 1777 "$R/tmp" && chmod 0700 "$R/root"
}

# The commands KubeRay's pod templates (v1.4 to v1.6) run, and their shells' builtins, as the image's user.
# ulimit -n 65536 may fail where the hard limit is lower (here; KubeRay runs it before ';' too).
# shellcheck disable=SC2016 # run in the image
SMOKE='
check() { if out=$(bash -c "$1" 2>&1); then echo "ok    $1"; else echo "FAIL  $1"; echo "$out" | tail -20; exit 1; fi; }
check "bash -lc \"ulimit -n 65536 2>/dev/null; ray --version\" | grep -q \"ray, version $RAY_VERSION\""
check "wget --help >/dev/null && echo success | grep success >/dev/null && sleep 0 && SECONDS=0 && (( SECONDS <= 120 ))"
check "until true; do sleep 2; done; if ! false; then true; fi"
check "python -c \"import ray, ray.dashboard, ray.serve, ray.autoscaler, aiohttp, urllib.request, ssl; assert ray.__version__ == \\\"$RAY_VERSION\\\"; assert ssl.create_default_context().cert_store_stats()[\\\"x509_ca\\\"] > 100\""
check "python3 -c \"import os; bad = [os.path.join(d, n) for top in (\\\"/usr\\\", \\\"/etc\\\") for d, ds, fs in os.walk(top) for n in ds + fs if not os.path.exists(os.path.join(d, n))]; assert not bad, bad\""
check "ray health-check --help && ray start --help && ray status --help"
check "ray job submit --help && ray job status --help && ray job logs --help"
check "ray kuberay-autoscaler --help"
check "serve --help"
# Serve reads every deployment config back from protobuf: a protobuf too new for this Ray fails here
# (constraints-<v>.txt), not as DEPLOY_FAILED in a running RayService.
check "python -c \"from ray.serve._private.config import DeploymentConfig as C; c = C(num_replicas=2); assert C.from_proto_bytes(c.to_proto_bytes()).num_replicas == 2\""
check "head -1 /usr/local/bin/ray | grep -qx \"#!/usr/bin/python3\""
check "[ -w \"\$HOME\" ] && [ -w /tmp ] && [ \"\$(id -u):\$(id -g)\" = 1000:100 ]"
'

build_image() {
  local v=$1 ref=docker.io/rayproject/ray:$1 lock=scripts/ray-image/requirements-$1.txt t0 ctr digest inputs status
  t0=$(now)
  local out=$OUT_DIR/rayproject_ray-$v.oci.tar
  inputs=$(printf '%s\n' "$ref" "$SCRIPTS_SHA" "$(sha256sum "$lock" | cut -d' ' -f1)" "$PINS" | sha256sum | cut -d' ' -f1)
  if [ -s "$out" ] && [ -s "$out.digest" ] && [ "$(cat "$out.inputs" 2>/dev/null)" = "$inputs" ]; then
    status=cached
  else
    status=built
    rm -f "$out" "$out.digest" "$out.inputs"
    fetch_debs
    fetch_wheels "$lock"
    local R=$WORK/rootfs-$v t
    umask 022
    t=$(now); assemble "$R"; echo "ray-image: $v: ${#DEBS[@]} Debian packages unpacked ($(since "$t") s)"

    # pip, from its own wheel, with the image's python, offline, every file pinned by hash; no pycs yet.
    t=$(now)
    mkdir -p "$R/tmp/wheels"
    find "$CACHE/wheels" -name '*.whl' -exec sha256sum {} + >"$WORK/wheels.sha256"
    while read -r h; do
      f=$(awk -v h="$h" '$1 == h {print $2; exit}' "$WORK/wheels.sha256")
      cp -l "$f" "$R/tmp/wheels/" 2>/dev/null || cp "$f" "$R/tmp/wheels/"
    done < <(grep -o 'sha256:[0-9a-f]*' "$lock" | cut -d: -f2)
    cp "$lock" "$R/tmp/wheels/requirements.txt"
    local pipwhl
    pipwhl=$(cd "$R/tmp/wheels" && ls pip-*.whl) || die "$lock has no pip wheel: run scripts/ray-image/lock.sh"
    ns_run 'chroot_fs "$1"; in_chroot "$1" 0:0 /root python3 "/tmp/wheels/$2/pip" install --quiet --no-index --find-links /tmp/wheels \
      --require-hashes --only-binary=:all: --no-compile --no-cache-dir --break-system-packages --root-user-action=ignore \
      --disable-pip-version-check -r /tmp/wheels/requirements.txt' "$R" "$pipwhl" >"$WORK/pip-install.log" 2>&1 \
      || die "pip install in the image failed: $(tail -20 "$WORK/pip-install.log")"
    rm -rf "$R/tmp/wheels"
    [ -x "$R/usr/local/bin/ray" ] || die "pip put no /usr/local/bin/ray in the image (Debian's python3 installs to /usr/local)"
    echo "ray-image: $v: $(grep -vc '^#' "$lock") wheels installed ($(since "$t") s)"

    # pycs for everything: unchecked-hash ones are reproducible (no mtime) and need no source hashing at
    # import; PYTHONHASHSEED fixes the order of set constants.
    t=$(now)
    ns_run 'chroot_fs "$1"; in_chroot "$1" 0:0 /root PYTHONHASHSEED=0 python3 -m compileall -q -f -j 2 --invalidation-mode unchecked-hash \
      /usr/lib/python3.11 /usr/lib/python3/dist-packages /usr/local/lib/python3.11/dist-packages' "$R" >"$WORK/compile.log" 2>&1 \
      || die "byte-compiling in the image failed: $(grep -v '^Listing' "$WORK/compile.log" | tail -20)"
    echo "ray-image: $v: byte-compiled ($(since "$t") s)"
    [ -z "$(find "$R/root" "$R/tmp" -mindepth 1 -print -quit)" ] || die "installing left files in /root or /tmp: $(find "$R/root" "$R/tmp" -mindepth 1 | head -5 | tr '\n' ' ')"

    # Smoke: the commands KubeRay runs, as user ray, on an overlay (the root filesystem stays as built).
    t=$(now)
    mkdir -p "$WORK/ov/upper" "$WORK/ov/work" "$WORK/ov/merged"
    ns_run 'mount -t overlay overlay -o "lowerdir=$1,upperdir=$2/upper,workdir=$2/work" "$2/merged"
      install -d -o 1000 -g 100 "$2/merged/home/ray"; chroot_fs "$2/merged"
      in_chroot "$2/merged" 1000:100 /home/ray RAY_VERSION="$3" bash -c "$4"' "$R" "$WORK/ov" "$v" "$SMOKE" >"$WORK/smoke.log" 2>&1 \
      || die "the smoke check failed in the image: $(tail -25 "$WORK/smoke.log"). Fix the package set (lock.sh DEB_ROOTS) or the Python pins"
    sed 's/^/ray-image: smoke: /' "$WORK/smoke.log"
    rm -rf "$WORK/ov"
    echo "ray-image: $v: smoke check passed ($(since "$t") s)"

    t=$(now)
    mkdir -p "$WORK/home"
    find "$R" "$WORK/home" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
    # A private vfs store in the work dir: nothing shared, nothing left behind.
    ctr=$("${B[@]}" from --quiet scratch)
    "${B[@]}" copy --quiet --chown 0:0 "$ctr" "$R/" / >/dev/null
    "${B[@]}" copy --quiet --chown 1000:100 "$ctr" "$WORK/home/" /home/ray >/dev/null
    "${B[@]}" config --os linux --arch amd64 --user 1000:100 --workingdir /home/ray --cmd '["bash"]' \
      --env "PATH=$PATH_ENV" --env LANG=C.UTF-8 --env HOME=/home/ray --env RAY_USAGE_STATS_ENABLED=0 \
      --label org.opencontainers.image.title=ray \
      --label "org.opencontainers.image.version=$v" \
      --label org.opencontainers.image.licenses=Apache-2.0 \
      --label org.opencontainers.image.source=https://github.com/ray-project/ray \
      --label "org.opencontainers.image.description=Ray $v built from Debian bookworm's python3 (.debs) and the PyPI wheels of ray[default,serve]==$v; not upstream's image bytes" \
      "$ctr"
    "${B[@]}" commit --quiet --format oci --timestamp "$SOURCE_DATE_EPOCH" --identity-label=false --omit-history --rm "$ctr" "localhost/ray-image:$v" >/dev/null
    rm -rf "$WORK/oci" "$WORK/push.tar" "$R"
    "${B[@]}" push --quiet --digestfile "$WORK/digest" "localhost/ray-image:$v" "oci-archive:$WORK/push.tar:$ref"
    "${B[@]}" rmi "localhost/ray-image:$v" >/dev/null
    # The image digest is reproducible already; rewrite the archive's own tar headers (write times) so
    # the file is byte-for-byte reproducible too.
    mkdir "$WORK/oci" && tar -xf "$WORK/push.tar" -C "$WORK/oci" && rm "$WORK/push.tar"
    tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner --format=posix \
      --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime -cf "$out.tmp" -C "$WORK/oci" .
    rm -rf "$WORK/oci"
    mv "$out.tmp" "$out"
    cat "$WORK/digest" >"$out.digest"
    echo "$inputs" >"$out.inputs"
    echo "ray-image: $v: committed and archived ($(since "$t") s)"
  fi
  digest=$(cat "$out.digest")
  printf '%s\t%s\t%s\n' "$ref" "$out" "$digest" >>"$WORK/images.tsv"
  printf '%-40s %s %6.1f MB  %-6s %5.1f s\n' "$ref" "$digest" "$(du -k --apparent-size "$out" | awk '{print $1/1024}')" \
    "$status" "$(since "$t0")"
}

: >"$WORK/images.tsv"
for v in $RAY_VERSIONS; do build_image "$v"; done
mv "$WORK/images.tsv" "$OUT_DIR/ray-images.tsv"
echo "ray-image: $OUT_DIR/ray-images.tsv (SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH, $(since "$START") s)"
