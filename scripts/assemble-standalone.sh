#!/usr/bin/env bash
# Assembles the runnable server from a standalone build: Next's traced server files and
# node_modules, the static assets, public/, and the app's compiled server (dist/, one tree) with the
# packages it needs beyond Next's trace.
# The Dockerfile runs this; so does the test that boots the result, so the two cannot drift apart.
# Usage: scripts/assemble-standalone.sh DIST_DIR DEST
set -euo pipefail
cd "$(dirname "$0")/.."

dist="${1:?usage: assemble-standalone.sh DIST_DIR DEST}"
dest="${2:?usage: assemble-standalone.sh DIST_DIR DEST}"

if [ ! -d "$dist/standalone" ]; then
  echo "No standalone output in $dist: build with NEXT_OUTPUT=standalone first." >&2
  exit 1
fi

mkdir -p "$dest"
cp -R "$dist/standalone/." "$dest/"
# Next's own standalone entry point is replaced by ours.
rm -f "$dest/server.js"
mkdir -p "$dest/$dist"
cp -R "$dist/static" "$dest/$dist/static"
# Which builds' files static/ holds, so the next image can carry them on (docs/fleet.md).
if [ -f "$dist/carried-builds.json" ]; then
  cp "$dist/carried-builds.json" "$dest/$dist/carried-builds.json"
fi
# The balancer's pages (docs/unavailable-screens.md): a balancer in front of the image serves them.
cp -R "$dist/error-pages" "$dest/$dist/error-pages"
# The service worker's script, which the server answers at /_next/app-shell/worker.js.
cp -R "$dist/service-worker" "$dest/$dist/service-worker"
cp -R public "$dest/public"
# The server bundles' maps (not the bundle copies kept beside them for the upload), so a server
# error's log line names its source file and line (lib/reporting/node/source-mapped-stack.ts). None
# when the build uploaded them to Sentry, which then resolves the stacks itself.
if [ -d "$dist/sourcemaps/server" ]; then
  (cd "$dist/sourcemaps/server" && find . -type f -name '*.map' -print0) |
    while IFS= read -r -d '' map; do
      mkdir -p "$dest/$dist/sourcemaps/server/$(dirname "$map")"
      cp "$dist/sourcemaps/server/$map" "$dest/$dist/sourcemaps/server/$map"
    done
fi
if [ ! -f dist/lib/server/start.js ]; then
  echo "No compiled server in dist/: run npm run build first." >&2
  exit 1
fi
# Into what Next's trace may have put there already (a file of dist/ that a product's next.config names,
# such as a cache handler of its own): merged, never copied inside it as dist/dist.
mkdir -p "$dest/dist"
cp -R dist/. "$dest/dist/"
# Next traced what its bundles require; the compiled server also requires packages no bundle does.
node scripts/copy-server-dependencies.js "$dest"
# Sources that the tracer copies along are not needed to run.
rm -rf "$dest/pages" "$dest/lib"
# Next's standalone output copies the project's .env files along. .dockerignore keeps them out of
# the image's build context; this catches a build made elsewhere. (.env.example holds no values.)
find "$dest" -type f -name '.env*' ! -name '.env.example' ! -path "$dest/node_modules/*" -print -delete |
  sed 's/^/Left out of the server folder: /' >&2
