#!/usr/bin/env bash
# Proves the Dockerfile for real: build the image, run it as a partner's CI would, wait for `healthy`, make a /v1 call
# with the bootstrap key, stop it. These machines have a Docker client but no engine and no registry, so the script
# brings its own: a private dockerd unpacked from Debian's packages, and a local stand-in for node:20-bookworm-slim
# made with debootstrap (both cached under .docker-cache/). Everything it starts is stopped by PID on exit.
# A step that cannot work here fails loudly with the reason; nothing is ever skipped.
#
# usage: bash scripts/docker-smoke.sh        (needs root, apt-get with Debian sources, the npm registry, Node 20)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE="$ROOT/.docker-cache"
BASE_IMAGE=node:20-bookworm-slim
IMAGE=card-sandbox:smoke
API_KEY="smoke-key-$$"
SMOKE_NAME=docker-smoke
# shellcheck source=lib/smoke.sh
. "$ROOT/scripts/lib/smoke.sh"

[ "$(id -u)" = 0 ] || fail "must run as root (dockerd and debootstrap need it); this machine's user is $(id -un)"
for tool in apt-get dpkg tar flock node; do
  command -v "$tool" >/dev/null || fail "'$tool' is not installed; this script needs a Debian host with Node 20"
done
mkdir -p "$CACHE"
# Two runs on one cache would share a data root between two engines: refuse the second one.
exec 9>"$CACHE/lock"
flock -n 9 || fail "another docker-smoke is running on $CACHE"

# ---- 1. the engine: Debian's docker.io and friends, unpacked, never installed ----
ENGINE="$CACHE/engine"
if [ ! -x "$ENGINE/usr/sbin/dockerd" ]; then
  say "downloading the Docker engine from Debian (docker.io containerd runc tini libdevmapper1.02.1)"
  rm -rf "$CACHE/debs" "$ENGINE" && mkdir -p "$CACHE/debs" "$ENGINE"
  apt_download "$CACHE/debs" "$CACHE/apt.log" docker.io containerd runc tini libdevmapper1.02.1
  for deb in "$CACHE"/debs/*.deb; do dpkg -x "$deb" "$ENGINE"; done
fi
export PATH="$ENGINE/usr/bin:$ENGINE/usr/sbin:$PATH"
ENGINE_LIBS="$ENGINE/lib/x86_64-linux-gnu:$ENGINE/usr/lib/x86_64-linux-gnu"

# The socket path must stay short (108 bytes), so runtime state lives in /tmp; images and layers stay cached.
RUN_DIR=$(mktemp -d /tmp/card-sandbox-docker.XXXXXX)
SOCK="$RUN_DIR/docker.sock"
DOCKERD_PID=""
CONTAINER=""
docker_() { docker -H "unix://$SOCK" "$@"; }

cleanup() {
  local code=$?
  set +e
  if [ -n "$CONTAINER" ]; then docker_ rm -f "$CONTAINER" >/dev/null 2>&1; fi
  if [ -n "$DOCKERD_PID" ] && kill -0 "$DOCKERD_PID" 2>/dev/null; then
    kill -TERM "$DOCKERD_PID"
    for _ in $(seq 1 100); do kill -0 "$DOCKERD_PID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$DOCKERD_PID" 2>/dev/null; then
      echo "docker-smoke: dockerd $DOCKERD_PID ignored SIGTERM for 10 s; killing it" >&2
      kill -KILL "$DOCKERD_PID"
    fi
  fi
  # dockerd stops the containerd it started; if dockerd had to be killed, containerd is stopped here, by its PID.
  local cpid
  cpid=$(cat "$RUN_DIR/exec/containerd/containerd.pid" 2>/dev/null)
  if [ -n "$cpid" ] && kill -0 "$cpid" 2>/dev/null; then kill -TERM "$cpid"; fi
  if mountpoint -q "$RUN_DIR/exec/netns/default" 2>/dev/null; then umount "$RUN_DIR/exec/netns/default"; fi
  rm -rf "$RUN_DIR"
  say "done, exit $code, total $(ms_since "$SMOKE_START_NS") ms"
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "starting a private dockerd (socket $SOCK)"
LD_LIBRARY_PATH="$ENGINE_LIBS" dockerd \
  --data-root "$CACHE/data" --exec-root "$RUN_DIR/exec" --pidfile "$RUN_DIR/docker.pid" -H "unix://$SOCK" \
  --bridge=none --iptables=false --ip6tables=false --ip-masq=false --userland-proxy=false \
  >"$RUN_DIR/dockerd.log" 2>&1 &
DOCKERD_PID=$!
for _ in $(seq 1 300); do
  docker_ version >/dev/null 2>&1 && break
  kill -0 "$DOCKERD_PID" 2>/dev/null || { tail -20 "$RUN_DIR/dockerd.log" >&2; fail "dockerd exited during start"; }
  sleep 0.1
done
docker_ version >/dev/null 2>&1 || { tail -20 "$RUN_DIR/dockerd.log" >&2; fail "dockerd did not answer within 30 s"; }
say "engine $(docker_ version -f '{{.Server.Version}}') up, storage driver $(docker_ info -f '{{.Driver}}')"

# ---- 2. the stand-in base image (Docker Hub is out of reach here) ----
if ! docker_ image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  bash "$ROOT/scripts/docker-standin-base.sh" "$CACHE" || fail "could not make the stand-in $BASE_IMAGE (see above)"
  say "importing the stand-in $BASE_IMAGE"
  docker_ import \
    -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    -c "ENV NODE_VERSION=$(node -p 'process.versions.node')" \
    -c 'CMD ["node"]' \
    "$CACHE/base/rootfs.tar" "$BASE_IMAGE" >/dev/null
fi

# ---- 3. build ----
say "docker build (the network is the host's: this engine has no bridge)"
OLD_IMAGE_ID=$(docker_ image inspect -f '{{.Id}}' "$IMAGE" 2>/dev/null || true)
BUILD_NS=$(date +%s%N)
docker_ build --network host -t "$IMAGE" "$ROOT" >"$RUN_DIR/build.log" 2>&1 ||
  { tail -40 "$RUN_DIR/build.log" >&2; fail "docker build failed"; }
BUILD_MS=$(ms_since "$BUILD_NS")
# The previous smoke image would pile up in the cache; the build stage's layers stay (they are the warm cache).
NEW_IMAGE_ID=$(docker_ image inspect -f '{{.Id}}' "$IMAGE")
if [ -n "$OLD_IMAGE_ID" ] && [ "$OLD_IMAGE_ID" != "$NEW_IMAGE_ID" ]; then docker_ rmi "$OLD_IMAGE_ID" >/dev/null 2>&1 || true; fi
IMAGE_BYTES=$(docker_ image inspect -f '{{.Size}}' "$IMAGE")
BASE_BYTES=$(docker_ image inspect -f '{{.Size}}' "$BASE_IMAGE")
say "built $IMAGE in $BUILD_MS ms, $((IMAGE_BYTES / 1000000)) MB ($BASE_IMAGE $((BASE_BYTES / 1000000)) MB + ours $(((IMAGE_BYTES - BASE_BYTES) / 1000000)) MB)"

# ---- 4. run as a partner's CI does, probe from inside (no published ports without a bridge) ----
CONTAINER="card-sandbox-smoke-$$"
RUN_NS=$(date +%s%N)
docker_ run -d --name "$CONTAINER" --network none \
  -e SANDBOX_API_KEY="$API_KEY" -e SANDBOX_SEED_BALANCE=1000 "$IMAGE" >/dev/null || fail "docker run failed"
# One exec polls every 20 ms from inside, so the figure is not blurred by an exec per probe.
docker_ exec "$CONTAINER" node -e '
  const deadline = Date.now() + 30000;
  (async function poll() {
    const ok = await fetch("http://127.0.0.1:8080/healthz").then((r) => r.ok, () => false);
    if (ok) process.exit(0);
    if (Date.now() > deadline) process.exit(1);
    setTimeout(poll, 20);
  })();' || { docker_ logs "$CONTAINER" >&2; fail "/healthz did not answer 200 within 30 s"; }
HEALTHZ_MS=$(ms_since "$RUN_NS")
say "/healthz 200 after $HEALTHZ_MS ms"

STATUS=""
for _ in $(seq 1 600); do
  STATUS=$(docker_ inspect -f '{{.State.Status}} {{.State.Health.Status}}' "$CONTAINER")
  case "$STATUS" in
    "running healthy") break ;;
    "running starting") sleep 0.1 ;;
    *) docker_ logs "$CONTAINER" >&2; fail "container is '$STATUS' instead of healthy" ;;
  esac
done
[ "$STATUS" = "running healthy" ] || fail "container still '$STATUS' after 60 s"
HEALTHY_MS=$(ms_since "$RUN_NS")
say "health status healthy after $HEALTHY_MS ms"

# ---- 5. what a partner sees ----
USER_ID=$(docker_ exec "$CONTAINER" id -u)
[ "$USER_ID" != 0 ] || fail "the server runs as root"
docker_ exec "$CONTAINER" test -f /data/sandbox.db || fail "the database is not in the /data volume"
docker_ exec -e KEY="$API_KEY" "$CONTAINER" node -e '
  const call = (key) => fetch("http://127.0.0.1:8080/v1/wallet/assetList", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(key ? { "X-API-KEY": key } : {}) },
    body: "{}",
  });
  (async () => {
    const res = await call(process.env.KEY);
    const body = await res.json();
    const usdt = (body.assetList || []).find((a) => a.currency === "USDT");
    if (res.status !== 200 || body.code !== 0 || !usdt || Number(usdt.availableAmount) !== 1000) {
      console.error("unexpected assetList answer", res.status, JSON.stringify(body));
      process.exit(1);
    }
    const anonymous = await call(undefined);
    if (anonymous.status !== 401) {
      console.error("a call without X-API-KEY answered", anonymous.status);
      process.exit(1);
    }
    // Read from contracts/ at run time: proves the image ships the data files beside dist/.
    const openapi = await fetch("http://127.0.0.1:8080/openapi.json").then((r) => r.json());
    if (typeof openapi.openapi !== "string") {
      console.error("/openapi.json is not an OpenAPI document");
      process.exit(1);
    }
  })().catch((err) => { console.error(err); process.exit(1); });' ||
  { docker_ logs "$CONTAINER" >&2; fail "/v1/wallet/assetList with the bootstrap key or /openapi.json failed"; }
say "assetList with the bootstrap key: 1000 USDT; without a key: 401; /openapi.json; uid $USER_ID; database in /data"

STOP_NS=$(date +%s%N)
docker_ stop -t 10 "$CONTAINER" >/dev/null
STOP_MS=$(ms_since "$STOP_NS")
EXIT_CODE=$(docker_ inspect -f '{{.State.ExitCode}}' "$CONTAINER")
[ "$EXIT_CODE" = 0 ] || { docker_ logs "$CONTAINER" >&2; fail "the server exited $EXIT_CODE on SIGTERM (expected 0)"; }
say "docker stop: exit 0 after $STOP_MS ms"
docker_ rm "$CONTAINER" >/dev/null && CONTAINER=""

echo "docker-smoke: OK image=$((IMAGE_BYTES / 1000000))MB ours=$(((IMAGE_BYTES - BASE_BYTES) / 1000000))MB build=${BUILD_MS}ms run-to-healthz=${HEALTHZ_MS}ms" \
  "run-to-healthy=${HEALTHY_MS}ms stop=${STOP_MS}ms"
