# syntax=docker/dockerfile:1
# Multi-stage image: install and build with the full toolchain, run from the standalone output as a
# non-root user with nothing but node and the traced server files.

# Node 24 LTS (the shell supports 22 and 24; Node 20 reached end of life in April 2026). CI runs
# every test on both.
ARG NODE_IMAGE=node:24-bookworm-slim
# The image this one replaces (docker build --build-arg PREVIOUS_IMAGE=registry/app-shell:1.4.0): its
# build files, and those it carried, are served by this one too, so tabs opened before the update keep
# working after the last old pod stops (docs/fleet.md). Without it, nothing is carried.
ARG PREVIOUS_IMAGE=no-previous-image

# An empty build folder: what a first image, or one built without PREVIOUS_IMAGE, carries from.
FROM ${NODE_IMAGE} AS no-previous-image
RUN mkdir -p /app/.next/static

FROM ${PREVIOUS_IMAGE} AS previous

FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
# Read at build time and inlined into the bundles (docs/configuration.md).
ARG SENTRY_DSN=""
ARG SENTRY_ENVIRONMENT=""
ARG SENTRY_RELEASE=""
ARG SENTRY_TUNNEL_PATH=""
ARG SENTRY_TRACES_SAMPLE_RATE=""
ENV SENTRY_DSN=${SENTRY_DSN} SENTRY_ENVIRONMENT=${SENTRY_ENVIRONMENT} \
    SENTRY_RELEASE=${SENTRY_RELEASE} SENTRY_TUNNEL_PATH=${SENTRY_TUNNEL_PATH} \
    SENTRY_TRACES_SAMPLE_RATE=${SENTRY_TRACES_SAMPLE_RATE}
# How many earlier builds' files are carried, and for how long (docs/configuration.md).
ARG KEEP_STATIC_BUILDS=""
ARG KEEP_STATIC_DAYS=""
ENV KEEP_STATIC_BUILDS=${KEEP_STATIC_BUILDS} KEEP_STATIC_DAYS=${KEEP_STATIC_DAYS}
# `off` ships the service worker that unregisters itself (docs/unavailable-screens.md).
ARG SERVICE_WORKER=""
ENV SERVICE_WORKER=${SERVICE_WORKER}
# Source maps go to Sentry when these are set; the token comes as a build secret, never an ARG (ARGs
# stay in the image history): docker build --secret id=sentry_auth_token,env=SENTRY_AUTH_TOKEN …
ARG SENTRY_ORG=""
ARG SENTRY_PROJECT=""
ARG SENTRY_URL=""
ENV SENTRY_ORG=${SENTRY_ORG} SENTRY_PROJECT=${SENTRY_PROJECT} SENTRY_URL=${SENTRY_URL}
RUN --mount=type=secret,id=sentry_auth_token,env=SENTRY_AUTH_TOKEN \
    --mount=type=bind,from=previous,source=/app/.next,target=/previous/.next \
    KEEP_STATIC_FROM=/previous/.next/static NEXT_OUTPUT=standalone npm run build \
 && bash scripts/assemble-standalone.sh .next /out

FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 HOST=0.0.0.0 PORT=3000
# The base image's unprivileged `node` user (uid 1000) owns nothing it could rewrite: files are
# root-owned and read-only to it; only .next/cache is writable (a volume on Kubernetes).
COPY --from=build /out ./
RUN mkdir -p .next/cache && chown node:node .next/cache
USER node
# The app, and the management listener (probes only; never publish it).
EXPOSE 3000 9464
# Liveness through the image's own node, so the image needs no curl or wget. The e2e suite runs this
# exact command against the assembled server (__tests__/e2e/deployment.test.ts).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health/live',{signal:AbortSignal.timeout(2000)}).then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "dist/lib/server/start.js"]
