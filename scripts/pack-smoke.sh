#!/usr/bin/env bash
# Proves the npm package as a partner gets it: `npm pack`, install the tarball into an empty folder (dependencies from
# the registry, no dev dependencies, no TypeScript), then `npx --no-install card-sandbox serve` answers /healthz and a /v1 call,
# `import 'card-issuing-sandbox'` and `card-issuing-sandbox/webhooks` load, and the shipped types compile.
# Apart from `npm test` (it installs from the registry). Stops what it started by PID on exit.
#
# usage: bash scripts/pack-smoke.sh        (npm run test:pack)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
NAME=$(node -p 'require(process.argv[1]).name' "$ROOT/package.json")
SMOKE_NAME=pack-smoke
# shellcheck source=lib/smoke.sh
. "$ROOT/scripts/lib/smoke.sh"

WORK=$(mktemp -d /tmp/card-sandbox-pack.XXXXXX)
SERVER_PID=""
cleanup() {
  local code=$?
  set +e
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    # setsid made the server its own process group: npx and the node it spawned go together.
    kill -TERM -- "-$SERVER_PID"
    for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$SERVER_PID" 2>/dev/null && kill -KILL -- "-$SERVER_PID"
  fi
  rm -rf "$WORK"
  say "done, exit $code, total $(ms_since "$SMOKE_START_NS") ms"
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- 1. pack (runs `prepare`, i.e. a fresh build) and check what ships ----
say "npm pack"
(cd "$ROOT" && npm pack --pack-destination "$WORK" --json --silent) >"$WORK/pack.json" || fail "npm pack failed"
TARBALL="$WORK/$(node -p 'require(process.argv[1])[0].filename' "$WORK/pack.json")"
node - "$WORK/pack.json" "$ROOT" <<'EOF' || fail "the tarball's contents are wrong (see above)"
const fs = require('node:fs');
const [packJson, root] = process.argv.slice(2);
const [pack] = JSON.parse(fs.readFileSync(packJson, 'utf8'));
const files = new Set(pack.files.map((f) => f.path));
const pkg = JSON.parse(fs.readFileSync(`${root}/package.json`, 'utf8'));
const problems = [];
const targets = [pkg.bin['card-sandbox'], pkg.types, pkg.main];
for (const entry of Object.values(pkg.exports)) {
  if (typeof entry === 'string') targets.push(entry);
  else targets.push(...Object.values(entry));
}
const hasVerifier = fs.existsSync(`${root}/src/webhooks/verify.ts`);
for (const t of targets) {
  const path = t.replace(/^\.\//, '');
  if (!hasVerifier && path.startsWith('dist/src/webhooks/')) continue; // said below: NOT CHECKED
  if (path !== 'package.json' && !files.has(path)) problems.push(`missing ${path} (named in package.json)`);
}
for (const f of files) {
  // Only the build output, data files and docs ship: no sources, tests, databases, secrets or local caches.
  if (!/^(dist\/src\/|contracts\/|scenarios\/|verifiers\/|docs\/[^/]+\.md$|README\.md$|package\.json$|LICENSE)/.test(f)) problems.push(`unexpected ${f}`);
  if (/\.(db|db-wal|db-shm|secret)$/.test(f)) problems.push(`must not ship ${f}`);
}
for (const v of ['verifiers/vectors.json', 'verifiers/python/webhook_verifier.py', 'verifiers/go/webhook.go',
  'verifiers/java/WebhookVerifier.java', 'verifiers/csharp/WebhookVerifier.cs', 'verifiers/javascript/webhook-verifier.mjs']) {
  if (!files.has(v)) problems.push(`missing ${v} (the webhook verifiers ship as files)`);
}
if (!fs.readFileSync(`${root}/dist/src/cli/main.js`, 'utf8').startsWith('#!/usr/bin/env node')) {
  problems.push('dist/src/cli/main.js lacks its #!/usr/bin/env node line');
}
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`pack-smoke: ${pack.filename}: ${files.size} files, ${Math.round(pack.size / 1000)} kB packed, ` +
  `${Math.round(pack.unpackedSize / 1000)} kB unpacked`);
EOF

# ---- 2. install into an empty folder, as a partner would ----
APP="$WORK/app"
mkdir -p "$APP"
say "npm install <tarball> into an empty folder"
INSTALL_NS=$(date +%s%N)
# Install scripts off: of the whole tree only better-sqlite3 has one that matters, its native build (from source here:
# its prebuilt binaries' host is out of reach), which took 100 s of a core on every run and proves nothing about this
# package. The same version's build, made by this checkout's `npm ci` on this Node, is copied in; another version
# (the registry had a newer one) is built as npm would.
(cd "$APP" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error "$TARBALL" >"$WORK/install.log" 2>&1) ||
  { tail -30 "$WORK/install.log" >&2; fail "npm install of the tarball failed"; }
SQLITE_APP="$APP/node_modules/better-sqlite3"
SQLITE_ROOT="$ROOT/node_modules/better-sqlite3"
SQLITE_VERSION=$(node -p 'require(process.argv[1]).version' "$SQLITE_APP/package.json")
if [ "$SQLITE_VERSION" = "$(node -p 'require(process.argv[1]).version' "$SQLITE_ROOT/package.json")" ] &&
  [ -f "$SQLITE_ROOT/build/Release/better_sqlite3.node" ]; then
  mkdir -p "$SQLITE_APP/build/Release"
  cp "$SQLITE_ROOT/build/Release/better_sqlite3.node" "$SQLITE_APP/build/Release/"
  say "better-sqlite3 $SQLITE_VERSION: this checkout's native build"
else
  say "better-sqlite3 $SQLITE_VERSION differs from this checkout's: building it (about 2 min)"
  (cd "$APP" && npm rebuild better-sqlite3 >>"$WORK/install.log" 2>&1) ||
    { tail -30 "$WORK/install.log" >&2; fail "npm rebuild better-sqlite3 failed"; }
fi
INSTALL_MS=$(ms_since "$INSTALL_NS")
# `prepare` runs only for git and folder installs: from a tarball, dist/ must already be there and tsc never runs.
[ ! -e "$APP/node_modules/typescript" ] || fail "typescript was installed: a dev dependency leaked into the package"
[ -f "$APP/node_modules/$NAME/dist/src/cli/main.js" ] || fail "dist/ is not in the installed package"
say "installed in $INSTALL_MS ms"

# ---- 3. npx --no-install card-sandbox serve, as the README says ----
PORT=$(node -e 'const s=require("node:net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
SERVE_NS=$(date +%s%N)
(cd "$APP" && exec setsid npx --no-install card-sandbox serve --port "$PORT" --db "$WORK/sandbox.db" \
  --api-key pack-smoke-key --seed-balance 25 >"$WORK/serve.log" 2>&1) &
SERVER_PID=$!
node -e '
  const deadline = Date.now() + 30000;
  (async function poll() {
    const ok = await fetch(`http://127.0.0.1:${process.argv[1]}/healthz`).then((r) => r.ok, () => false);
    if (ok) process.exit(0);
    if (Date.now() > deadline) process.exit(1);
    setTimeout(poll, 20);
  })();' "$PORT" || { cat "$WORK/serve.log" >&2; fail "npx --no-install card-sandbox serve did not answer /healthz within 30 s"; }
say "npx --no-install card-sandbox serve: /healthz 200 after $(ms_since "$SERVE_NS") ms"
node -e '
  fetch(`http://127.0.0.1:${process.argv[1]}/v1/wallet/assetList`, {
    method: "POST", headers: { "Content-Type": "application/json", "X-API-KEY": "pack-smoke-key" }, body: "{}",
  }).then((r) => r.json()).then((body) => {
    const usdt = body.assetList?.find((a) => a.currency === "USDT");
    if (body.code !== 0 || Number(usdt?.availableAmount) !== 25) throw new Error(JSON.stringify(body));
    // Read from contracts/ at run time: proves the package ships its data files.
    return fetch(`http://127.0.0.1:${process.argv[1]}/openapi.json`).then((r) => r.json());
  }).then((openapi) => {
    if (typeof openapi.openapi !== "string") throw new Error("/openapi.json is not an OpenAPI document");
  }).catch((err) => { console.error(err.message); process.exit(1); });' "$PORT" ||
  fail "/v1/wallet/assetList (seeded 25 USDT) or /openapi.json failed on the packed server"
# To the whole group, as Ctrl-C or a CI runner does: npm does not pass a signal on to the server (it exits 143 and
# would leave the server running), so the server must get it directly and every process of the group must end.
kill -TERM -- "-$SERVER_PID"
wait "$SERVER_PID" || true
for _ in $(seq 1 100); do kill -0 -- "-$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 -- "-$SERVER_PID" 2>/dev/null && fail "a process of npx --no-install card-sandbox serve outlived SIGTERM by 10 s"
SERVER_PID=""
say "assetList answered with the seeded balance, /openapi.json served; SIGTERM to the group ended every process"

# ---- 3b. the docs' command from any folder, with no registry to reach: the installed command, nothing fetched ----
VERSION=$(node -p 'require(process.argv[1]).version' "$ROOT/package.json")
mkdir -p "$APP/some/deep/folder" "$WORK/elsewhere"
DEAD_REGISTRY=(env npm_config_registry=http://127.0.0.1:9/ npm_config_fetch_retries=0)
OUT=$(cd "$APP/some/deep/folder" && "${DEAD_REGISTRY[@]}" npx --no-install card-sandbox --version 2>&1) ||
  { echo "$OUT" >&2; fail "npx --no-install card-sandbox failed in a subfolder of the project"; }
[ "$OUT" = "$VERSION" ] || fail "npx --no-install card-sandbox --version printed $OUT, not $VERSION"
# Outside any project that installed it, --no-install stops with an error and runs nothing.
if OUT=$(cd "$WORK/elsewhere" && "${DEAD_REGISTRY[@]}" npx --no-install card-sandbox --version 2>&1); then
  fail "npx --no-install card-sandbox ran outside the project: $OUT"
fi
say "npx --no-install card-sandbox: runs from a subfolder with no registry, refuses outside the project"

# ---- 4. the programmatic entry points and their types ----
(cd "$APP" && node --input-type=module -e "
  const m = await import('$NAME');
  for (const name of ['startServer', 'createApp', 'loadConfig']) {
    if (typeof m[name] !== 'function') throw new Error('$NAME does not export ' + name);
  }") || fail "import '$NAME' failed"
cat >"$APP/check.ts" <<EOF
import { loadConfig, startServer, type Config, type RunningServer } from '$NAME';
const config: Config = loadConfig(['--port', '0']).config;
const started: Promise<RunningServer> = startServer({ config });
void started;
EOF
TS_FILES=("check.ts")
if [ -f "$ROOT/src/webhooks/verify.ts" ]; then
  (cd "$APP" && node --input-type=module -e "
    import { createHmac } from 'node:crypto';
    const { verifyWebhookSignature } = await import('$NAME/webhooks');
    const secret = 'whsec_pack', rawBody = '{\"id\":\"evt_1\"}', t = Math.floor(Date.now() / 1000);
    const v1 = createHmac('sha256', secret).update(t + '.' + rawBody).digest('hex');
    const result = verifyWebhookSignature({ rawBody, header: 't=' + t + ',v1=' + v1, secret });
    if (!result.ok) throw new Error('a correct signature was refused: ' + JSON.stringify(result));
  ") || fail "'$NAME/webhooks' did not load or did not verify a correct signature"
  cat >"$APP/check-webhooks.ts" <<EOF
import { verifyWebhookSignature } from '$NAME/webhooks';
const ok: boolean = verifyWebhookSignature({ rawBody: '{}', header: 't=1,v1=00', secret: 'whsec_x' }).ok;
void ok;
EOF
  TS_FILES+=("check-webhooks.ts")
  say "'$NAME/webhooks' verifies a correct signature"
else
  say "NOT CHECKED: '$NAME/webhooks' (src/webhooks/verify.ts is not on this branch yet)"
fi
# A partner's TypeScript (NodeNext, strict) resolves the shipped .d.ts through `exports`; tsc is borrowed from the repo.
cat >"$APP/tsconfig.json" <<EOF
{ "compilerOptions": { "module": "NodeNext", "moduleResolution": "NodeNext", "target": "ES2022", "strict": true,
  "noEmit": true, "skipLibCheck": true, "types": ["node"], "typeRoots": ["$ROOT/node_modules/@types"] },
  "files": [$(printf '"%s",' "${TS_FILES[@]}" | sed 's/,$//')] }
EOF
(cd "$APP" && node "$ROOT/node_modules/typescript/bin/tsc" -p tsconfig.json) ||
  fail "the shipped types do not compile in a partner's TypeScript project"
say "types resolve through exports: ${TS_FILES[*]} compile"

echo "pack-smoke: OK install=${INSTALL_MS}ms total=$(ms_since "$SMOKE_START_NS")ms"
