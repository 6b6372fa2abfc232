# partner-sandbox as a container: a service in CI pipelines, or next to a Playwright suite.
#   docker build -t partner-sandbox .
#   docker run --rm -p 4010:4010 partner-sandbox
# Every option is an environment variable (docs/configuration.md). Proven without a Docker
# engine by scripts/check-image.sh, which builds this file against a local stand-in base.
ARG NODE_IMAGE=node:20-bookworm-slim

# Build: `npm run bundle` (the esbuild bundle and the runtime files it makes), then the package exactly as npm would publish it (package.json
# `files`: the bundle and every file read at runtime), installed from its own tarball. The
# image needs no type declarations and no node_modules: the bundle inlines its dependencies.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
RUN npm run bundle \
 && npm pack --ignore-scripts --pack-destination /tmp \
 && npm install --prefix /out --offline --no-audit --no-fund --no-save /tmp/partner-sandbox-*.tgz \
 && node -e "require('fs').mkdirSync('/out/data')"

# Runtime: the official image plus the installed package. No RUN here: nothing but our files
# is added to the base.
FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    SANDBOX_HOST=0.0.0.0 \
    SANDBOX_PORT=4010
WORKDIR /app
COPY --from=build /out/node_modules/partner-sandbox ./
# The data file's folder, writable by the non-root user (a named volume mounted here starts as
# a copy of it, owned by that user). Keep state across restarts with
#   -e SANDBOX_DATA=/data/sandbox.json -v partner-sandbox-data:/data
COPY --from=build --chown=node:node /out/data /data
USER node
EXPOSE 4010
# No curl in the slim image: Node's own fetch. /_sandbox/health needs no admin token.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.SANDBOX_PORT || process.env.PORT || 4010) + '/_sandbox/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node is PID 1 and handles SIGTERM itself: the data file is compacted, then it exits (< 5 s).
CMD ["node", "dist/bundle/cli.js"]
