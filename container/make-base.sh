#!/usr/bin/env bash
# Make a local Debian bookworm base image from Debian's own packages, for machines that reach
# Debian's mirrors but no image registry: debootstrap (minbase + python3, python3-venv,
# python3-pip, ca-certificates) into a folder, then `docker import` it.
#   container/make-base.sh [IMAGE]          # default shu-base:bookworm
# Idempotent: an existing image is kept (SHU_BASE_REBUILD=1 makes it again). Needs root and
# debootstrap. The Dockerfiles take it as `--build-arg BASE_IMAGE=shu-base:bookworm`.
set -euo pipefail

IMAGE="${1:-${SHU_BASE_IMAGE:-shu-base:bookworm}}"
SUITE="${SHU_BASE_SUITE:-bookworm}"
MIRROR="${SHU_BASE_MIRROR:-http://deb.debian.org/debian}"
PACKAGES="python3,python3-venv,python3-pip,ca-certificates"

log() { echo "make-base: $*" >&2; }

if [ "${SHU_BASE_REBUILD:-0}" != 1 ] && docker image inspect "$IMAGE" >/dev/null 2>&1; then
    log "$IMAGE exists, kept"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    log "debootstrap needs root"
    exit 1
fi
command -v debootstrap >/dev/null || { log "debootstrap is not installed (apt-get install debootstrap)"; exit 1; }

work="$(mktemp -d /var/tmp/shu-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
log "debootstrap $SUITE (minbase + $PACKAGES) from $MIRROR"
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$root" "$MIRROR" >"$work/debootstrap.log" 2>&1 || {
    tail -30 "$work/debootstrap.log" >&2
    exit 1
}
# Updates and security fixes for what later images install; no caches, no package lists.
cat >"$root/etc/apt/sources.list" <<SOURCES
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb http://deb.debian.org/debian-security $SUITE-security main
SOURCES
# As Docker's official Debian images: keep images small, never start services on install.
cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'APT'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";
APT
printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' \
    >"$root/etc/apt/apt.conf.d/docker-no-recommends"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" && chmod 755 "$root/usr/sbin/policy-rc.d"
find "$root/var/log" -type f -delete
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/tmp/* \
    "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/*
# Debian's python3 is /usr/bin/python3; the official image also has /usr/local/bin/python.
log "docker import → $IMAGE"
tar -C "$root" --numeric-owner -c . | docker import \
    --change 'ENV LANG=C.UTF-8' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' \
    - "$IMAGE" >/dev/null
log "$IMAGE made ($(docker image inspect -f '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}'))"
