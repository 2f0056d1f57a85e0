#!/usr/bin/env bash
# Puts a Leyden AOT cache (JDK 25) into the image that -Pimage built, trained inside that very image: an AOT
# cache is only valid for the JVM build, the class path and the JVM flags it was made with, so it is made by
# the image's own JVM, from its own /deployments, with its own entrypoint flags.
#
#   src/main/docker/aot/add-aot-cache.sh <image.tar>     (root; skopeo, umoci, python3, curl)
#
# 1. skopeo turns the docker-archive tarball into an OCI layout and umoci unpacks it into a runtime bundle
#    (root file system + the runtime config: entrypoint, environment, user, working directory).
# 2. src/main/aot/train-aot-cache.sh trains through a launcher that runs the image's JVM as the image would:
#    chrooted into the unpacked root file system, mounted read-only, as uid 185, with a private /tmp, /proc and
#    PID namespace, the image's environment and entrypoint flags. It trains the way a pod runs (prod profile,
#    external PostgreSQL, embedded server and migrations off) on a real workload; the database is a "host": the
#    image's own JVM in the embedded profile with its loops off, which creates and migrates a throw-away
#    PostgreSQL. The training JVM writes the cache when it stops.
# 3. umoci adds the cache as a layer (/deployments/ductor.aot) and puts -XX:AOTCache into the entrypoint; skopeo
#    writes the image back to the same tarball. A JVM that cannot use the cache runs without it (a warning).
set -euo pipefail

image=${1:?usage: add-aot-cache.sh <image.tar>}
here=$(cd "$(dirname "$0")" && pwd)
train=$here/../../aot/train-aot-cache.sh
for tool in skopeo umoci python3 curl unshare chroot; do
    command -v "$tool" >/dev/null || { echo "aot cache: $tool is missing (apt-get install skopeo umoci)" >&2; exit 1; }
done
[[ $(id -u) == 0 ]] || { echo "aot cache: needs root (namespaces, chroot)" >&2; exit 1; }

work=$(mktemp -d /tmp/ductor-aot.XXXXXX)
cleanup() { umount -R "$work/bundle/rootfs" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
chmod 755 "$work"
mkdir -m 1777 "$work/out"

ref=$(tar -xOf "$image" manifest.json | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["RepoTags"][0])')
skopeo copy --quiet "docker-archive:$image" "oci:$work/oci:app"
umoci unpack --image "$work/oci:app" "$work/bundle" >/dev/null

# The launcher: the image's JVM with the image's entrypoint flags; its arguments are the training's JVM options
# and -jar. SIGTERM is passed on to the JVM so it exits cleanly and writes the cache.
python3 - "$work" > "$work/java-in-image" <<'PY'
import json, shlex, sys
work = sys.argv[1]
process = json.load(open(f"{work}/bundle/config.json"))["process"]
args = process["args"]
assert args[0] == "java" and args[-2:] == ["-jar", "quarkus-run.jar"], f"unexpected entrypoint {args}"
rootfs = f"{work}/bundle/rootfs"
# the command chroot runs, as separate words after the mount script's own two arguments
inside = " ".join(["/usr/bin/env", "-i", *map(shlex.quote, process["env"]), "/bin/sh", "-c",
                   shlex.quote('cd "$0" && exec java ' + " ".join(map(shlex.quote, args[1:-2])) + ' "$@"'),
                   shlex.quote(process.get("cwd", "/"))])
uid, gid = process["user"]["uid"], process["user"]["gid"]
print(f"""#!/usr/bin/env bash
set -u
forward() {{  # to the JVM only (unshare's child, after the execs): unshare itself would SIGKILL it
    [ -n "${{child:-}}" ] && pkill -TERM -P "$child" || true
}}
trap forward TERM INT
unshare --mount --pid --fork --kill-child -- sh -c '
    set -e; R=$1; W=$2; shift 2
    mount --bind "$R" "$R"; mount -t proc proc "$R/proc"; mount --rbind /dev "$R/dev"
    mount -t tmpfs -o mode=1777 tmpfs "$R/tmp"; mkdir -p "$R$W"; mount --bind "$W" "$R$W"
    mount -o remount,bind,ro "$R"
    exec chroot --userspec={uid}:{gid} "$R" "$@"' sh {shlex.quote(rootfs)} {shlex.quote(work)} {inside} "$@" &
child=$!
while kill -0 "$child" 2>/dev/null; do wait "$child" || true; done
wait "$child"
""")
PY
chmod 755 "$work/java-in-image"

echo "aot cache: training inside $ref"
host="$work/out/host"
mkdir -m 1777 "$host"
host_port=${AOT_HOST_PORT:-18469}
"$work/java-in-image" -Dquarkus.profile=embedded -Dductor.embedded.enabled=true -Dductor.embedded.data-dir="$host/pgdata" \
    -Dductor.dev-tokens.dir="$host" -Dductor.coordinator.enabled=false -Dductor.worker.enabled=false \
    -Dductor.watchdog.enabled=false -Dquarkus.http.port="$host_port" -jar quarkus-run.jar > "$work/out/host.log" 2>&1 &
host_pid=$!
stop_host() { kill -TERM "$host_pid" 2>/dev/null || true; wait "$host_pid" 2>/dev/null || true; }
trap 'stop_host; cleanup' EXIT
for _ in $(seq 1 1200); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:$host_port/q/health/ready" || true)" = 200 ] && break
    kill -0 "$host_pid" 2>/dev/null || { echo "aot cache: the database host exited" >&2; tail -20 "$work/out/host.log" >&2; exit 1; }
    sleep 0.1
done
url=$(grep -o 'url=jdbc:postgresql://[^ ?]*' "$work/out/host.log" | head -n 1 | sed 's/^url=//')
TRAIN_PROFILE=prod TRAIN_JAR=quarkus-run.jar TRAIN_TOKENS="$host" TRAIN_LOG="$work/out/train.log" \
    bash "$train" "$work/java-in-image" /deployments "$work/out/ductor.aot" \
    -Dductor.embedded.enabled=false -Dquarkus.flyway.migrate-at-start=false -Dquarkus.datasource.jdbc.url="$url" \
    -Dquarkus.datasource.username=postgres -Dquarkus.datasource.password=postgres \
    -Dmp.jwt.verify.publickey.location="$host/dev-keys/public.pem" -Dmp.jwt.verify.issuer=ductor-dev \
    || { tail -40 "$work/out/train.log" >&2; exit 1; }
stop_host
warnings=$(grep -c '\[warning\]\[aot' "$work/out/train.log" || true)

# The entrypoint with the cache: java -XX:AOTCache=/deployments/ductor.aot <the image's flags> -jar quarkus-run.jar
entrypoint=()
while IFS= read -r arg; do entrypoint+=(--config.entrypoint "$arg"); done < <(python3 -c '
import json, sys
args = json.load(open(sys.argv[1]))["process"]["args"]
print("\n".join([args[0], "-XX:AOTCache=/deployments/ductor.aot", *args[1:]]))' "$work/bundle/config.json")
umount -R "$work/bundle/rootfs" 2>/dev/null || true
umoci insert --image "$work/oci:app" "$work/out/ductor.aot" /deployments/ductor.aot >/dev/null
umoci config --image "$work/oci:app" "${entrypoint[@]}" \
    --history.created_by "src/main/docker/aot/add-aot-cache.sh: Leyden AOT cache trained in this image" >/dev/null
rm -f "$image.part"
skopeo copy --quiet "oci:$work/oci:app" "docker-archive:$image.part:$ref"
mv "$image.part" "$image"
echo "aot cache: $(du -h "$work/out/ductor.aot" | cut -f1) at /deployments/ductor.aot in $image ($ref), $warnings training warnings"
