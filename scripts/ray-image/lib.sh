# shellcheck shell=bash
# Sourced by scripts/ray-image/{lock,build,smoke}.sh.

# pip's target for the image's interpreter (Debian bookworm's CPython 3.11, x86_64), whatever the host's
# Python is. pip expands no manylinux tag to older ones for --platform, so every glibc from bookworm's
# 2.36 down is named.
PIP_TARGET=(--only-binary=:all: --python-version 3.11 --implementation cp --abi cp311)
for _i in $(seq 36 -1 5); do PIP_TARGET+=(--platform "manylinux_2_${_i}_x86_64"); done
PIP_TARGET+=(--platform manylinux2014_x86_64 --platform manylinux2010_x86_64 --platform manylinux1_x86_64)
unset _i

# ns_run <script> [args...]: runs the bash script as root in new mount, PID and network namespaces. Its
# mounts vanish and every process it started is killed when it ends, whatever happens; the network is
# loopback only. The script can call chroot_fs and in_chroot.
ns_run() {
  unshare --mount --pid --fork --kill-child --net -- bash -euo pipefail -c "$_NS_PRELUDE
$1" ns_run "${@:2}"
}
# shellcheck disable=SC2016 # expanded inside the namespace
_NS_PRELUDE='
ip link set lo up
# chroot_fs <root>: /proc of this PID namespace, a /dev holding only a few host devices, a tmpfs /dev/shm.
chroot_fs() {
  mount -t proc proc "$1/proc"
  mount -t tmpfs -o mode=0755,size=1m tmpfs "$1/dev"
  local d
  for d in null zero full random urandom; do touch "$1/dev/$d"; mount --bind "/dev/$d" "$1/dev/$d"; done
  mkdir -m 1777 "$1/dev/shm" && mount -t tmpfs -o mode=1777,size=2g tmpfs "$1/dev/shm"
  ln -s /proc/self/fd "$1/dev/fd"
  for d in 0:stdin 1:stdout 2:stderr; do ln -s "/proc/self/fd/${d%%:*}" "$1/dev/${d#*:}"; done
}
# in_chroot <root> <uid:gid> <home> <command...>: the command with only the image environment.
in_chroot() {
  local r=$1 u=$2 h=$3; shift 3
  chroot --userspec="$u" "$r" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 HOME="$h" RAY_USAGE_STATS_ENABLED=0 "$@"
}
'
