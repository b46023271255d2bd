# Card-issuing sandbox: one process, on one SQLite file under /data, or on the PostgreSQL database SANDBOX_DB names
# (docs/docker.md, "On PostgreSQL": then /data stays empty).
# No `# syntax=` line on purpose: it would make every build pull a frontend image.

# ---- build: compile TypeScript and the native better-sqlite3 addon ----
FROM node:20-bookworm-slim AS build
# better-sqlite3 compiles from source when its prebuilt binary cannot be fetched; the runtime stage needs none of this.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts off: `prepare` would run tsc before the sources are here, and no other dependency's install script is wanted.
# Only better-sqlite3's native build is then run, explicitly. Cached until package.json or the lockfile changes.
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3
# Sources plus the data files the package ships (contracts/, scenarios/ when present; see .dockerignore).
COPY . .
# After pruning dev dependencies: better-sqlite3 loads only build/Release/better_sqlite3.node, so its SQLite sources
# and object files (~25 MB) go too.
RUN mkdir -p contracts scenarios \
 && npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && cd node_modules/better-sqlite3 \
 && rm -rf deps src build/deps build/Release/obj build/Release/obj.target build/Release/.deps

# ---- runtime: compiled JavaScript, production node_modules, non-root ----
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    SANDBOX_HOST=0.0.0.0 \
    SANDBOX_PORT=8080 \
    SANDBOX_DB=/data/sandbox.db \
    SANDBOX_ALLOW_HTTP_WEBHOOKS=true \
    SANDBOX_SHUTDOWN_GRACE=8
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
# The same layout as the npm package (package.json `files`), so code that finds its data files relative to itself works.
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/contracts ./contracts
COPY --from=build /app/scenarios ./scenarios
# The database and its server secret (<db>.secret) live in /data, owned by the unprivileged user that writes them.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080
# node instead of curl: the slim image has no curl, and node is already there.
HEALTHCHECK --interval=5s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.SANDBOX_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node is PID 1 and handles SIGTERM/SIGINT itself (graceful shutdown), so `docker stop` is quick and clean.
ENTRYPOINT ["node", "dist/src/cli/main.js"]
CMD ["serve"]
