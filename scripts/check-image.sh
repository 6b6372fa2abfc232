#!/usr/bin/env bash
# Proves the Dockerfile on a machine with no Docker engine and no pullable base image (as CI
# here): podman builds it (chroot isolation) against a local stand-in for the base image, and
# the image is run from its exported filesystem (podman run cannot set RLIMIT_NOFILE here):
#   1. stand-in base: FROM scratch with this machine's node, npm, /bin/sh, their shared
#      libraries (ldd), a `node` user (uid 1000, as in the official image), tagged with the
#      Dockerfile's base image name, so the real Dockerfile builds unchanged (--pull=never);
#   2. podman build of the real Dockerfile; `podman export` of a container of the image;
#   3. the image's CMD, run as its USER with its ENV and WORKDIR, chrooted into that
#      filesystem, as PID 1 of its own pid namespace and in a private network namespace
#      (only its loopback: the 0.0.0.0 bind reaches nothing outside), with a data volume;
#   4. checks: the image's own HEALTHCHECK command, GET /api/v1/partner/me with the default
#      credentials, non-root, PID 1; then SIGTERM stops it within 5 s with exit code 0 and
#      the data file written;
#   5. cleans up (images, container, files) and prints the image size as its LAST line.
# Needs root, podman, python3, util-linux (unshare, nsenter), iproute2. Usage:
#   scripts/check-image.sh
set -euo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)
say() { printf 'check-image: %s\n' "$*" >&2; }
fail() {
  say "FAILED: $*"
  exit 1
}

command -v podman >/dev/null || fail 'podman is missing (apt-get install -y podman)'
base=$(sed -n 's/^ARG NODE_IMAGE=//p' Dockerfile)
[ -n "$base" ] || fail 'no ARG NODE_IMAGE=... in the Dockerfile'
case "$base" in
*/*) base_ref=$base ;;
*) base_ref=docker.io/library/$base ;;
esac
image=localhost/partner-sandbox-check:$$
work=$(mktemp -d /tmp/partner-sandbox-check-image.XXXXXX)
container=''
runner=''
images_before=$(podman images -aq --no-trunc | sort)

cleanup() {
  if [ -n "$runner" ] && kill -0 "$runner" 2>/dev/null; then
    kill -KILL "$runner" 2>/dev/null || true
    wait "$runner" 2>/dev/null || true
  fi
  [ -n "$container" ] && podman rm -f "$container" >/dev/null 2>&1 || true
  podman rmi -f "$image" >/dev/null 2>&1 || true
  podman rmi -f "$base_ref" >/dev/null 2>&1 || true
  # The build stages' intermediate images: only those this run created.
  comm -13 <(echo "$images_before") <(podman images -aq --no-trunc | sort) \
    | xargs -r podman rmi -f >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# 1. The stand-in base image. ---------------------------------------------------------------
say "stand-in for $base_ref from this machine's node $(node --version)"
stand=$work/base
mkdir -p "$stand"/{usr/local/bin,usr/local/lib/node_modules,bin,etc/ssl/certs,root,home/node}
install -d -m 1777 "$stand/tmp"
copy_with_libs() { # copy_with_libs SOURCE TARGET: a binary and every shared library it loads
  install -D -m 755 "$(readlink -f "$1")" "$stand$2"
  for lib in $(ldd "$1" | grep -o '/[^ ]*'); do
    install -D -m 755 "$(readlink -f "$lib")" "$stand$lib"
  done
}
copy_with_libs "$(command -v node)" /usr/local/bin/node
copy_with_libs "$(command -v sh)" /bin/sh
copy_with_libs "$(command -v env)" /usr/bin/env # npm's shebang: #!/usr/bin/env node
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
cp -a "$npm_dir" "$stand/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$stand/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$stand/usr/local/bin/npx"
printf 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000::/home/node:/bin/sh\n' >"$stand/etc/passwd"
printf 'root:x:0:\nnode:x:1000:\n' >"$stand/etc/group"
# This machine may reach the npm registry through a TLS proxy whose CA it trusts.
ca=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}
[ -f "$ca" ] && cp "$ca" "$stand/etc/ssl/certs/ca-certificates.crt"
cat >"$stand/Containerfile" <<EOF
FROM scratch
COPY . /
ENV PATH=/usr/local/bin:/usr/bin:/bin NODE_VERSION=$(node --version | tr -d v) \
    NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CMD ["node"]
EOF
podman build --isolation=chroot --pull=never --format docker -q -t "$base_ref" "$stand" \
  >"$work/base-build.log" 2>&1 || fail "stand-in build failed: $(tail -20 "$work/base-build.log")"

# 2. The real Dockerfile against it, then its filesystem. --------------------------------------
say 'podman build of the Dockerfile'
podman build --isolation=chroot --pull=never --format docker -q -t "$image" . \
  >"$work/build.log" 2>&1 || fail "podman build failed: $(tail -30 "$work/build.log")"
container=$(podman create "$image")
rootfs=$work/rootfs
mkdir -p "$rootfs"
podman export "$container" | tar -x -C "$rootfs"

# What the image says about how it runs, as shell-quoted values.
eval "$(podman image inspect "$image" --format '{{json .}}' | node -e '
  const image = [JSON.parse(require("fs").readFileSync(0, "utf8"))].flat()[0]
  const c = image.Config
  c.Healthcheck ??= image.Healthcheck ?? image.HealthCheck
  const q = (s) => `'"'"'${String(s).replaceAll("'"'"'", "'"'"'\\'"'"''"'"'")}'"'"'`
  const arr = (name, a) => `${name}=(${(a ?? []).map(q).join(" ")})`
  console.log([
    arr("cmd", [...(c.Entrypoint ?? []), ...(c.Cmd ?? [])]),
    arr("env", c.Env),
    arr("health", (c.Healthcheck?.Test ?? []).slice(1)),
    `health_kind=${q(c.Healthcheck?.Test?.[0] ?? "NONE")}`,
    `user=${q(c.User ?? "")}`,
    `workdir=${q(c.WorkingDir || "/")}`,
    `ports=${q(Object.keys(c.ExposedPorts ?? {}).join(" "))}`,
    `size=${q(image.Size)}`,
  ].join("\n"))
')"
base_size=$(podman image inspect "$base_ref" --format '{{.Size}}')
[ -n "$user" ] && [ "$user" != root ] && [ "$user" != 0 ] || fail "the image runs as root (USER '$user')"
[ "$health_kind" = CMD ] || fail "no exec-form HEALTHCHECK (found $health_kind)"
[ "$ports" = 4010/tcp ] || fail "EXPOSE is '$ports', not 4010/tcp"
uid=$(awk -F: -v u="$user" '$1 == u || $3 == u { print $3; exit }' "$rootfs/etc/passwd")
gid=$(awk -F: -v u="$user" '$1 == u || $3 == u { print $4; exit }' "$rootfs/etc/passwd")
[ -n "$uid" ] || fail "user $user not in the image's /etc/passwd"
say "image: USER $user ($uid:$gid), WORKDIR $workdir, CMD ${cmd[*]}"

# 3. Run its CMD as a container would. ---------------------------------------------------------
run_env=("${env[@]}" SANDBOX_DATA=/data/sandbox.json)
mkdir -p "$rootfs"/{proc,dev,data}
chown "$uid:$gid" "$rootfs/data"
unshare --mount --net --pid --fork --kill-child sh -c '
  ip link set lo up
  mount -t proc proc "$1/proc"
  mount --rbind /dev "$1/dev"
  shift
  exec python3 -c "
import os, sys
root, workdir, uid, gid, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
env = dict(e.split(\"=\", 1) for e in sys.argv[6:6 + count])
cmd = sys.argv[6 + count:]
os.chroot(root)
os.chdir(workdir)
os.setgroups([])
os.setgid(gid)
os.setuid(uid)
os.execvpe(cmd[0], cmd, env)
" "$@"
' run "$rootfs" "$rootfs" "$workdir" "$uid" "$gid" "${#run_env[@]}" "${run_env[@]}" "${cmd[@]}" \
  >"$work/out.log" 2>&1 &
runner=$!
pid=''
for _ in $(seq 100); do
  pid=$(pgrep -P "$runner" || true)
  [ -n "$pid" ] && [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" != "$(readlink -f "$(command -v python3)")" ] && break
  sleep 0.1
done
[ -n "$pid" ] || fail "the CMD did not start: $(cat "$work/out.log")"
in_container() { # run a command in the container's root, network, user and environment
  env -i "${run_env[@]}" nsenter -t "$pid" -n -r -w -S "$uid" -G "$gid" -- "$@"
}

# 4. Checks. ----------------------------------------------------------------------------------
healthy=''
for _ in $(seq 150); do
  if in_container "${health[@]}" 2>/dev/null; then
    healthy=yes
    break
  fi
  kill -0 "$pid" 2>/dev/null || fail "the sandbox exited: $(cat "$work/out.log")"
  sleep 0.2
done
[ -n "$healthy" ] || fail "the HEALTHCHECK never passed: $(cat "$work/out.log")"
say 'HEALTHCHECK passes'
me=$(nsenter -t "$pid" -n -- node -e '
  fetch("http://127.0.0.1:4010/api/v1/partner/me", { headers: {
    "X-Partner-Key": "pk_test_acme_sandbox_default_key",
    "X-Partner-Secret": "sk_test_acme_sandbox_default_secret" } })
    .then(async (r) => { console.log(r.status, (await r.json()).partner?.api_key) })
    .catch((e) => { console.log("error", e.message) })')
[ "$me" = '200 pk_test_acme_sandbox_default_key' ] || fail "GET /api/v1/partner/me: $me"
say 'GET /api/v1/partner/me with the default credentials: 200'
docs=$(nsenter -t "$pid" -n -- node -e '
  fetch("http://127.0.0.1:4010/docs/assets/swagger-ui-bundle.js")
    .then(async (r) => console.log(r.status, (await r.arrayBuffer()).byteLength > 100000))
    .catch((e) => console.log("error", e.message))')
[ "$docs" = '200 true' ] || fail "GET /docs/assets/swagger-ui-bundle.js: $docs"
say 'GET /docs serves its renderer from the image'
grep -q "^Uid:[[:space:]]*$uid[[:space:]]" "/proc/$pid/status" || fail 'not running as the image USER'
[ "$(awk '/^NSpid:/ { print $NF }' "/proc/$pid/status")" = 1 ] || fail 'not PID 1 in its namespace'
grep -q 'WARNING' "$work/out.log" && say 'banner warns that the control plane is open (no admin token)'

stop_started=$(date +%s%N)
kill -TERM "$pid"
code=0
wait "$runner" || code=$?
runner=''
stop_ms=$((($(date +%s%N) - stop_started) / 1000000))
[ "$code" = 0 ] || fail "exit code $code after SIGTERM: $(tail -5 "$work/out.log")"
[ "$stop_ms" -lt 5000 ] || fail "SIGTERM took ${stop_ms} ms (limit 5000)"
[ -s "$rootfs/data/sandbox.json" ] || fail 'no data file in the /data volume after the stop'
say "SIGTERM as PID 1: stopped in ${stop_ms} ms, exit code 0, data file written to /data"

# 5. Size (cleanup runs on exit). --------------------------------------------------------------
ours=$((size - base_size))
say "done in $(($(date +%s) - started)) s"
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1000000 }'; }
line="image size: $(mb "$size") (base $(mb "$base_size") + our layers $(mb "$ours"), budget 25 MB)"
if [ "$ours" -gt 25000000 ]; then
  echo "$line: OVER BUDGET"
  exit 1
fi
echo "$line"
