#!/usr/bin/env bash
# Makes sure the browser tests have a Chromium: Debian's package, since Playwright cannot download
# its own browsers here. Installs it when it can (root, or password-less sudo, with apt-get);
# otherwise says in one line what to install.
set -euo pipefail

CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$CHROMIUM_PATH" ]; then
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
  else
    as_root=(none)
  fi
fi

if command -v apt-get >/dev/null 2>&1 && [ "${as_root[0]:-}" != none ]; then
  echo "[setup] Chromium not found at $CHROMIUM_PATH; installing Debian's chromium package…" >&2
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -qq >/dev/null
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends chromium >/dev/null
  if [ -x "$CHROMIUM_PATH" ]; then
    exit 0
  fi
fi

echo "Browser tests need Chromium at $CHROMIUM_PATH: run 'sudo apt-get install -y chromium' (or set CHROMIUM_PATH to a Chromium binary) and try again." >&2
exit 1
