#!/usr/bin/env bash
# Builds, without a daemon (Debian's buildah) and reproducibly, the images a one-node local cluster
# pulls, from the binaries scripts/testcluster/build.sh put in the cache's bin/ (each built from the
# upstream tag's source; these are NOT upstream's image bytes, only the same programs laid out the same way):
#   registry.k8s.io/pause:3.10.1                /pause    user 65535:65535
#   registry.k8s.io/coredns/coredns:<COREDNS>   /coredns  user 65532:65532, CA certificates
#   registry.k8s.io/kueue/kueue:<v>             /manager  user 65532:65532, CA certificates (each of KUEUE_VERSIONS)
#   quay.io/kuberay/operator:<v>                /manager  user 65532:65532, CA certificates (each of KUBERAY_VERSIONS)
#   quay.io/prometheus/prometheus:<v>           /bin/prometheus user 65532:65532, CA certificates (only with
#                                               PROMETHEUS_MODULE_VERSION set, e.g. v0.316.0 = Prometheus v3.16.0)
#   quay.io/prometheus-operator/prometheus-operator:<v>          /bin/operator, and
#   quay.io/prometheus-operator/prometheus-config-reloader:<v>   /bin/prometheus-config-reloader, user 65532:65532,
#                                               CA certificates (only with PROMETHEUS_OPERATOR_VERSION set)
# Each image: the binary, /etc/passwd and /etc/group (root, nonroot 65532, and for pause 65535), /tmp,
# /home/nonroot and, where noted, /etc/ssl/certs/ca-certificates.crt from Debian's ca-certificates
# (pinned by version and sha256) with its copyright file.
#
#   scripts/cluster/images.sh
#   KUEUE_VERSIONS="v0.19.2 v0.17.0" KUBERAY_VERSIONS="v1.6.2 v1.5.2" COREDNS_VERSION=v1.14.7 scripts/cluster/images.sh
#
# Writes <cache>/node-images/<name>-<tag>.oci.tar (the OCI ref name is the full image reference) with
# .digest (manifest digest) and .inputs (hash of the binary, this script and the pins) beside it, and
# <cache>/node-images/images.tsv: "<reference>\t<archive>\t<digest>" for each image of this run. An
# archive whose inputs are unchanged is kept ("cached"). Same inputs and SOURCE_DATE_EPOCH (default 0:
# the binaries are the input) give byte-identical archives.
# Needs buildah and apt-get (Debian bookworm package lists: apt-get update). The cache dir is
# CDK8S_KUEUE_RAY_CACHE or ~/.cache/cdk8s-kueue-ray; the deb is cached under its image/ like the controller's.
set -euo pipefail
cd "$(dirname "$0")/../.."
SCRIPT_SHA=$(sha256sum scripts/cluster/images.sh | cut -d' ' -f1)

# --- Pins. To update: `apt-cache policy ca-certificates` and
# `apt-cache show ca-certificates=<version> | grep SHA256` (bookworm).
CA_VERSION=20250419~deb12u2
CA_SHA256=b9f76b5271a7ac373fd5e7e1b5b826a71ddd702b42a0d104955ecb1acfffc94b
PAUSE_VERSION=3.10.1
COREDNS_VERSION=${COREDNS_VERSION:-v1.14.7}
KUEUE_VERSIONS=${KUEUE_VERSIONS:-v0.19.2}
KUBERAY_VERSIONS=${KUBERAY_VERSIONS:-v1.6.2}
PROMETHEUS_MODULE_VERSION=${PROMETHEUS_MODULE_VERSION:-}
PROMETHEUS_OPERATOR_VERSION=${PROMETHEUS_OPERATOR_VERSION:-}

die() { echo "node-images: $*" >&2; exit 1; }
command -v buildah >/dev/null || die "buildah is missing: apt-get update && apt-get install -y buildah"
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-0}
CACHE_ROOT="${CDK8S_KUEUE_RAY_CACHE:-$HOME/.cache/cdk8s-kueue-ray}"
BIN=$CACHE_ROOT/bin
OUT_DIR=${NODE_IMAGES_DIR:-$CACHE_ROOT/node-images} # NODE_IMAGES_DIR: elsewhere (bench:node builds cold there)
mkdir -p "$CACHE_ROOT/image" "$OUT_DIR"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cdk8s-kueue-ray-node-images.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
B=(buildah --root "$WORK/storage" --runroot "$WORK/run" --storage-driver vfs)
PINS="ca-certificates=$CA_VERSION@$CA_SHA256 SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH $(buildah --version)"
now() { date +%s.%N; }

# --- ca-certificates, from the configured apt sources; unpacked once, on the first image that needs it.
ca_certs() {
  [ -d "$WORK/ca" ] && return 0
  local deb=$CACHE_ROOT/image/ca-certificates_${CA_VERSION//:/%3a}_all.deb got
  if [ ! -s "$deb" ] || [ "$(sha256sum "$deb" | cut -d' ' -f1)" != "$CA_SHA256" ]; then
    mkdir -p "$WORK/dl"
    (cd "$WORK/dl" && apt-get download -q "ca-certificates=$CA_VERSION" >/dev/null 2>"$WORK/apt.err") \
      || die "apt-get download ca-certificates=$CA_VERSION failed ($(tr '\n' ' ' <"$WORK/apt.err")). Run apt-get update; if Debian replaced that version, update the pin in $0"
    got=$(sha256sum "$WORK"/dl/ca-certificates_*.deb | cut -d' ' -f1)
    [ "$got" = "$CA_SHA256" ] || die "ca-certificates=$CA_VERSION: sha256 $got, pinned $CA_SHA256; refusing it"
    mv "$WORK"/dl/ca-certificates_*.deb "$deb"
  fi
  dpkg-deb -x "$deb" "$WORK/ca"
  mkdir -p "$WORK/ca-out"
  # The bundle update-ca-certificates would write from the Mozilla set alone, in a fixed (C) order;
  # awk 1 ends each file's last line with a newline, so no two PEM blocks run together.
  find "$WORK/ca/usr/share/ca-certificates/mozilla" -name '*.crt' -print0 | LC_ALL=C sort -z \
    | xargs -0 awk 1 >"$WORK/ca-out/ca-certificates.crt"
  [ "$(grep -c 'BEGIN CERTIFICATE' "$WORK/ca-out/ca-certificates.crt")" -gt 100 ] || die "the CA bundle from ca-certificates=$CA_VERSION looks empty"
}

# build_image <reference> <binary> <path in image> <uid> <with CA certs: yes|no> <upstream repo> <title> <built from>
build_image() {
  local ref=$1 bin=$2 path=$3 uid=$4 certs=$5 source=$6 title=$7 from=$8
  local name=${ref%:*} tag=${ref##*:} t0 ctr digest inputs status
  t0=$(now)
  local out=$OUT_DIR/${name//\//_}-$tag.oci.tar
  inputs=$(printf '%s\n' "$ref" "$path" "$uid" "$certs" "$source" "$title" "$from" "$(sha256sum "$bin" | cut -d' ' -f1)" "$SCRIPT_SHA" "$PINS" | sha256sum | cut -d' ' -f1)
  if [ -s "$out" ] && [ -s "$out.digest" ] && [ "$(cat "$out.inputs" 2>/dev/null)" = "$inputs" ]; then
    status=cached
  else
    status=built
    rm -f "$out" "$out.digest" "$out.inputs"
    local R=$WORK/rootfs-${name//\//_}-$tag
    umask 022
    mkdir -p "$R/etc" "$R/tmp" "$R/home" "$WORK/home"
    chmod 1777 "$R/tmp"
    install -D -m 0755 "$bin" "$R$path"
    { echo "root:x:0:0:root:/root:/sbin/nologin"; echo "nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin"
      [ "$uid" = 65532 ] || echo "pause:x:$uid:$uid:pause:/:/sbin/nologin"; } >"$R/etc/passwd"
    { echo "root:x:0:"; echo "nonroot:x:65532:"; [ "$uid" = 65532 ] || echo "pause:x:$uid:"; } >"$R/etc/group"
    chmod 0644 "$R/etc/passwd" "$R/etc/group"
    if [ "$certs" = yes ]; then
      ca_certs
      install -D -m 0644 "$WORK/ca-out/ca-certificates.crt" "$R/etc/ssl/certs/ca-certificates.crt"
      install -D -m 0644 "$WORK/ca/usr/share/doc/ca-certificates/copyright" "$R/usr/share/doc/ca-certificates/copyright"
    fi
    find "$R" "$WORK/home" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

    # A private vfs store in the work dir: nothing shared, nothing left behind.
    ctr=$("${B[@]}" from --quiet scratch)
    "${B[@]}" copy --quiet --chown 0:0 "$ctr" "$R/" / >/dev/null
    "${B[@]}" copy --quiet --chown 65532:65532 "$ctr" "$WORK/home/" /home/nonroot >/dev/null
    "${B[@]}" config --os linux --arch amd64 --user "$uid:$uid" --workingdir / --entrypoint "[\"$path\"]" \
      --label "org.opencontainers.image.title=$title" \
      --label "org.opencontainers.image.version=$tag" \
      --label org.opencontainers.image.licenses=Apache-2.0 \
      --label "org.opencontainers.image.source=$source" \
      --label "org.opencontainers.image.description=$title $tag built from $from; not upstream's image bytes" \
      "$ctr"
    "${B[@]}" commit --quiet --format oci --timestamp "$SOURCE_DATE_EPOCH" --identity-label=false --omit-history --rm "$ctr" "localhost/node-image:$tag" >/dev/null
    rm -rf "$WORK/oci" "$WORK/push.tar"
    "${B[@]}" push --quiet --digestfile "$WORK/digest" "localhost/node-image:$tag" "oci-archive:$WORK/push.tar:$ref"
    "${B[@]}" rmi "localhost/node-image:$tag" >/dev/null
    # The image digest is reproducible already; rewrite the archive's own tar headers (write times) so
    # the file is byte-for-byte reproducible too.
    mkdir "$WORK/oci" && tar -xf "$WORK/push.tar" -C "$WORK/oci"
    tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner --format=posix \
      --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime -cf "$out.tmp" -C "$WORK/oci" .
    mv "$out.tmp" "$out"
    cat "$WORK/digest" >"$out.digest"
    echo "$inputs" >"$out.inputs"
    rm -rf "$R"
  fi
  digest=$(cat "$out.digest")
  printf '%s\t%s\t%s\n' "$ref" "$out" "$digest" >>"$WORK/images.tsv"
  printf '%-40s %s %6.1f MB  %-6s %5.1f s\n' "$ref" "$digest" "$(du -k --apparent-size "$out" | awk '{print $1/1024}')" \
    "$status" "$(awk -v a="$t0" -v b="$(now)" 'BEGIN{print b-a}')"
}

# Every binary first, so a missing one stops the run before anything is built.
bins=("pause-$PAUSE_VERSION" "coredns-$COREDNS_VERSION")
for v in $KUEUE_VERSIONS; do bins+=("kueue-$v"); done
for v in $KUBERAY_VERSIONS; do bins+=("kuberay-operator-$v"); done
[ -z "$PROMETHEUS_MODULE_VERSION" ] || bins+=("prometheus-$PROMETHEUS_MODULE_VERSION")
[ -z "$PROMETHEUS_OPERATOR_VERSION" ] || bins+=("prometheus-operator-$PROMETHEUS_OPERATOR_VERSION" "prometheus-config-reloader-$PROMETHEUS_OPERATOR_VERSION")
missing=()
for b in "${bins[@]}"; do
  if [ ! -s "$BIN/$b" ]; then missing+=("$BIN/$b")
  elif command -v file >/dev/null && ! file -b "$BIN/$b" | grep -q 'statically linked'; then
    die "$BIN/$b is not statically linked; the images have no libc (build it with CGO_ENABLED=0)"
  fi
done
[ ${#missing[@]} = 0 ] || die "missing binary: ${missing[*]}. Build it with: KUEUE_VERSIONS=\"$KUEUE_VERSIONS\" KUBERAY_VERSIONS=\"$KUBERAY_VERSIONS\" COREDNS_VERSION=$COREDNS_VERSION scripts/testcluster/build.sh"

: >"$WORK/images.tsv"
build_image "registry.k8s.io/pause:$PAUSE_VERSION" "$BIN/pause-$PAUSE_VERSION" /pause 65535 no \
  https://github.com/kubernetes/kubernetes pause "Kubernetes' build/pause/linux/pause.c (k8s.io/kubernetes release source), linked statically"
build_image "registry.k8s.io/coredns/coredns:$COREDNS_VERSION" "$BIN/coredns-$COREDNS_VERSION" /coredns 65532 yes \
  https://github.com/coredns/coredns coredns "the github.com/coredns/coredns $COREDNS_VERSION module source, with the node's plugins (scripts/testcluster/coredns/main.go)"
for v in $KUEUE_VERSIONS; do
  build_image "registry.k8s.io/kueue/kueue:$v" "$BIN/kueue-$v" /manager 65532 yes https://github.com/kubernetes-sigs/kueue kueue \
    "the sigs.k8s.io/kueue $v module source (cmd/kueue)"
done
for v in $KUBERAY_VERSIONS; do
  build_image "quay.io/kuberay/operator:$v" "$BIN/kuberay-operator-$v" /manager 65532 yes https://github.com/ray-project/kuberay kuberay-operator \
    "the github.com/ray-project/kuberay/ray-operator $v module source"
done
if [ -n "$PROMETHEUS_MODULE_VERSION" ]; then
  # The module's v0.3xx.y is Prometheus v3.xx.y, the tag upstream's image carries.
  mp=${PROMETHEUS_MODULE_VERSION#v0.}; m=${mp%%.*}
  build_image "quay.io/prometheus/prometheus:v${m:0:1}.${m:1}.${mp#*.}" "$BIN/prometheus-$PROMETHEUS_MODULE_VERSION" /bin/prometheus 65532 yes \
    https://github.com/prometheus/prometheus prometheus "the github.com/prometheus/prometheus $PROMETHEUS_MODULE_VERSION module source (cmd/prometheus)"
fi
if [ -n "$PROMETHEUS_OPERATOR_VERSION" ]; then
  for c in operator:prometheus-operator prometheus-config-reloader:prometheus-config-reloader; do
    cmd=${c%%:*}; image=${c#*:}
    build_image "quay.io/prometheus-operator/$image:$PROMETHEUS_OPERATOR_VERSION" "$BIN/$image-$PROMETHEUS_OPERATOR_VERSION" "/bin/$cmd" 65532 yes \
      https://github.com/prometheus-operator/prometheus-operator "$image" \
      "the github.com/prometheus-operator/prometheus-operator $PROMETHEUS_OPERATOR_VERSION module source (cmd/$cmd)"
  done
fi
mv "$WORK/images.tsv" "$OUT_DIR/images.tsv"
echo "node-images: $OUT_DIR/images.tsv (SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH)"
