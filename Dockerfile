# syntax=docker/dockerfile:1
# Quarry in the embedded shape: one container runs the API and the workers, with the SQLite
# database, stored files and models in the /data volume.
#   docker build -t quarry .                             (add --build-arg WITH_CHROMIUM=true for render_js)
#   docker run -p 8000:8000 -v quarry-data:/data -e PLATFORM_API_KEY=... quarry
# The final command is `node dist/cli.js serve`: Node is PID 1's only process and receives SIGTERM
# itself (no npm or tsx in between), finishes in-flight work and exits within the stop timeout.

# the Node release CI tests on (.nvmrc); test/ops/node-version.test.ts keeps the two equal
ARG NODE_VERSION=24.21.0

# --- build: dependencies with their native modules, TypeScript compiled to dist/, console built ---
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# compilers for native modules that have no prebuilt binary for this platform
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc ./
# the postinstall step (builds the console when its sources are there; here they are not yet)
COPY scripts/build-console.mjs ./scripts/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
COPY console ./console
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund

# --- runtime: Node, production dependencies, dist/ and bin/; non-root -------------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ARG WITH_CHROMIUM=false
RUN if [ "$WITH_CHROMIUM" = "true" ]; then \
      apt-get update \
      && apt-get install -y --no-install-recommends chromium \
      && rm -rf /var/lib/apt/lists/*; \
    fi
# git (and the CA certificates its https transport checks against) for git data sources
ARG WITH_GIT=true
RUN if [ "$WITH_GIT" = "true" ]; then \
      apt-get update \
      && apt-get install -y --no-install-recommends git ca-certificates \
      && rm -rf /var/lib/apt/lists/*; \
    fi
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8000 \
    DATA_DIR=/data \
    CHROMIUM_PATH=/usr/bin/chromium
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/console/dist ./console/dist
COPY bin ./bin
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8000) + '/livez').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "dist/cli.js", "serve"]
