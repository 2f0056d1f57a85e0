#!/usr/bin/env bash
# Builds Ductor's container base image from Debian packages alone, as a `docker save`-format tarball that Jib
# reads with a tar:// base image reference (quarkus.jib.base-jvm-image). Why not a registry base image: the
# build machines reach Maven Central and Debian's package mirror, but no container registry, and no Docker
# daemon runs there. The image is Debian 13 "trixie" (minbase) with openjdk-25-jre-headless (JDK 25 for its
# Leyden AOT cache, see src/main/docker/aot/), CA certificates, and the non-root user ductor (uid/gid 185, the
# uid the Kubernetes manifests run as).
#
#   src/main/docker/base/build-base-image.sh <out.tar>
#
# Needs root (debootstrap chroots) and debootstrap (apt-get install debootstrap). Takes ~1 minute and ~90 MB of
# downloads; does nothing when <out.tar> already exists (delete it to rebuild, e.g. for security updates).
# DEBIAN_MIRROR overrides the mirror (default http://deb.debian.org/debian); DEBIAN_SUITE (trixie) and
# JRE_PACKAGE (openjdk-25-jre-headless) choose another release or JRE, e.g. bookworm + openjdk-17-jre-headless.
set -euo pipefail

out=${1:?usage: build-base-image.sh <out.tar>}
if [[ -s "$out" ]]; then
    echo "base image: $out exists, kept (delete it to rebuild)"
    exit 0
fi
command -v debootstrap >/dev/null || { echo "base image: debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
[[ $(id -u) == 0 ]] || { echo "base image: debootstrap needs root" >&2; exit 1; }

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=${DEBIAN_SUITE:-trixie}
jre=${JRE_PACKAGE:-openjdk-25-jre-headless}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"

echo "base image: debootstrap $suite + $jre from $mirror"
debootstrap --variant=minbase --include="$jre",ca-certificates \
    "$suite" "$root" "$mirror" > "$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }

# The non-root user the app runs as. Written directly: the image never runs useradd again.
echo 'ductor:x:185:185:Ductor:/home/ductor:/usr/sbin/nologin' >> "$root/etc/passwd"
echo 'ductor:x:185:' >> "$root/etc/group"
echo 'ductor:!:20000::::::' >> "$root/etc/shadow"
install -d -o 185 -g 185 -m 0755 "$root/home/ductor" "$root/deployments"

# localhost must resolve (the embedded PostgreSQL of the AOT training run listens there); container runtimes
# mount their own /etc/hosts over this one.
[[ -s "$root/etc/hosts" ]] || printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$root/etc/hosts"

# Only what the JVM needs at run time: package caches, docs and locales go.
rm -rf "$root"/var/cache/apt/* "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* "$root"/usr/share/man/* \
       "$root"/usr/share/info/* "$root"/var/log/* "$root"/tmp/* "$root"/root/.bash_history
find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name 'locale.alias' -exec rm -rf {} +

# One layer, reproducible byte for byte for the same packages: sorted names, fixed times, numeric owners;
# /dev, /proc and /sys are provided by the container runtime.
tar --numeric-owner --sort=name --mtime=@0 --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' \
    -C "$root" -cf "$work/layer.tar" .
diff_id=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
# /etc/alternatives/java -> /usr/lib/jvm/<jdk>/bin/java, read as a link: resolving it would look on this host
java_home=$(dirname "$(dirname "$(readlink "$root/etc/alternatives/java")")")

cat > "$work/config.json" <<JSON
{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z",
 "config":{"User":"185","WorkingDir":"/deployments",
  "Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin","JAVA_HOME=$java_home","LANG=C.UTF-8"]},
 "rootfs":{"type":"layers","diff_ids":["sha256:$diff_id"]},
 "history":[{"created":"1970-01-01T00:00:00Z","created_by":"src/main/docker/base/build-base-image.sh (debian $suite minbase + $jre)"}]}
JSON
config_id=$(sha256sum "$work/config.json" | cut -d' ' -f1)
mv "$work/config.json" "$work/$config_id.json"
mv "$work/layer.tar" "$work/$diff_id.tar"
printf '[{"Config":"%s.json","RepoTags":["ductor-base:%s"],"Layers":["%s.tar"]}]\n' \
    "$config_id" "$suite" "$diff_id" > "$work/manifest.json"

mkdir -p "$(dirname "$out")"
tar --sort=name --mtime=@0 --numeric-owner -C "$work" -cf "$out.part" manifest.json "$config_id.json" "$diff_id.tar"
mv "$out.part" "$out"
echo "base image: $out ($(du -h "$out" | cut -f1), layer sha256:$diff_id, JAVA_HOME=$java_home)"
