# The Tollway gateway image (also carries the upstream simulator, `simulate`). Two stages: `build` compiles
# dist/ and the native SQLite binding with the full toolchain; `runtime` gets only dist/ and the production
# dependencies, and runs as the unprivileged `node` user. Build from the repository root:
#   docker build -t tollway .
# No `# syntax=` line: BuildKit would fetch that frontend image from Docker Hub before anything else, even when
# NODE_IMAGE names a mirror's copy; the builder's own Dockerfile frontend has every feature used here.
# Run: docker run -p 8080:8080 -e DATABASE_URL=postgres://… -e TOLLWAY_SECRET=… -e TOLLWAY_ADMIN_KEY=… tollway
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 compiles its binding with node-gyp when no prebuilt binary fits this Node and libc.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# Dependencies first, in their own layer (cached while only sources change), exactly as package-lock.json pins them
# (npm ci; npm install may resolve anew and rewrite the lock). --ignore-scripts: the package's
# own `prepare` (the build) needs the sources, copied below; better-sqlite3's install script is run explicitly.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts \
 && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY simulator ./simulator
COPY bench ./bench
COPY console ./console
# Compile to dist/, then drop the dev dependencies, the compiler (a dependency so that a plain production install can
# build dist/; the image ships dist/ built), tsx with esbuild (they run the TypeScript sources; the image runs dist/)
# and what the SQLite binding needed only to be compiled.
RUN node scripts/build.mjs \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf dist/bench node_modules/typescript node_modules/tsx node_modules/esbuild node_modules/@esbuild node_modules/get-tsconfig node_modules/resolve-pkg-maps \
 && cd node_modules/better-sqlite3 \
 && rm -rf deps src build/deps build/Release/obj build/Release/obj.target build/Release/.deps build/Release/sqlite3.a build/Release/test_extension.node

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    TOLLWAY_DATA_DIR=/app/data
WORKDIR /app
# Code and dependencies stay owned by root (read-only to the process); only the data directory is writable.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME ["/app/data"]
USER node
EXPOSE 8080
# node:*-slim has no curl: the probe is a small script run by node (the gateway's /healthz on PORT, or the
# simulator's health on 9090 when the container runs `simulate`).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "dist/src/healthcheck.js"]
# The compiled CLI directly (not bin/tollway.mjs, which checks sources that are not in the image):
# `serve` by default; any other command works too, e.g. `docker run … tollway token list`.
ENTRYPOINT ["node", "--max-semi-space-size=8", "--min-semi-space-size=8", "dist/src/cli.js"]
CMD ["serve"]
