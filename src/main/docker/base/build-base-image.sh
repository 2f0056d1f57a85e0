#!/usr/bin/env bash
# Builds Ductor's container base image from Debian packages alone, as a `docker save`-format tarball that Jib
# reads with a tar:// base image reference (quarkus.jib.base-jvm-image). Why not a registry base image: the
# build machines reach Maven Central and Debian's package mirror, but no container registry, and no Docker
# daemon runs there. The image is Debian 12 "bookworm" (minbase) with openjdk-17-jre-headless, CA
# certificates, and the non-root user ductor (uid/gid 185, the uid the Kubernetes manifests run as).
#
#   src/main/docker/base/build-base-image.sh <out.tar>
#
# Needs root (debootstrap chroots) and debootstrap (apt-get install debootstrap). Takes ~1 minute and ~90 MB of
# downloads; does nothing when <out.tar> already exists (delete it to rebuild, e.g. for security updates).
# DEBIAN_MIRROR overrides the mirror (default http://deb.debian.org/debian).
set -euo pipefail

out=${1:?usage: build-base-image.sh <out.tar>}
if [[ -s "$out" ]]; then
    echo "base image: $out exists, kept (delete it to rebuild)"
    exit 0
fi
command -v debootstrap >/dev/null || { echo "base image: debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
[[ $(id -u) == 0 ]] || { echo "base image: debootstrap needs root" >&2; exit 1; }

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"

echo "base image: debootstrap bookworm + openjdk-17-jre-headless from $mirror"
debootstrap --variant=minbase --include=openjdk-17-jre-headless,ca-certificates \
    bookworm "$root" "$mirror" > "$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }

# The non-root user the app runs as. Written directly: the image never runs useradd again.
echo 'ductor:x:185:185:Ductor:/home/ductor:/usr/sbin/nologin' >> "$root/etc/passwd"
echo 'ductor:x:185:' >> "$root/etc/group"
echo 'ductor:!:20000::::::' >> "$root/etc/shadow"
install -d -o 185 -g 185 -m 0755 "$root/home/ductor" "$root/deployments"

# Only what the JVM needs at run time: package caches, docs and locales go.
rm -rf "$root"/var/cache/apt/* "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* "$root"/usr/share/man/* \
       "$root"/usr/share/info/* "$root"/var/log/* "$root"/tmp/* "$root"/root/.bash_history
find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name 'locale.alias' -exec rm -rf {} +

# One layer, reproducible byte for byte for the same packages: sorted names, fixed times, numeric owners;
# /dev, /proc and /sys are provided by the container runtime.
tar --numeric-owner --sort=name --mtime=@0 --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' \
    -C "$root" -cf "$work/layer.tar" .
diff_id=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
java_home=$(cd "$root" && dirname "$(dirname "$(readlink -f "$root/etc/alternatives/java" | sed "s|^$root||")")")

cat > "$work/config.json" <<JSON
{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z",
 "config":{"User":"185","WorkingDir":"/deployments",
  "Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin","JAVA_HOME=$java_home","LANG=C.UTF-8"]},
 "rootfs":{"type":"layers","diff_ids":["sha256:$diff_id"]},
 "history":[{"created":"1970-01-01T00:00:00Z","created_by":"src/main/docker/base/build-base-image.sh (debian bookworm minbase + openjdk-17-jre-headless)"}]}
JSON
config_id=$(sha256sum "$work/config.json" | cut -d' ' -f1)
mv "$work/config.json" "$work/$config_id.json"
mv "$work/layer.tar" "$work/$diff_id.tar"
printf '[{"Config":"%s.json","RepoTags":["ductor-base:bookworm-jre17"],"Layers":["%s.tar"]}]\n' \
    "$config_id" "$diff_id" > "$work/manifest.json"

mkdir -p "$(dirname "$out")"
tar --sort=name --mtime=@0 --numeric-owner -C "$work" -cf "$out.part" manifest.json "$config_id.json" "$diff_id.tar"
mv "$out.part" "$out"
echo "base image: $out ($(du -h "$out" | cut -f1), layer sha256:$diff_id, JAVA_HOME=$java_home)"
