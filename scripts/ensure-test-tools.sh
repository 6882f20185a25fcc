#!/usr/bin/env bash
# Makes sure the tests have what Debian must provide (the unit tests start redis-server too, so
# `npm run test:unit` runs this first): Chromium (Playwright cannot download its own browsers
# here), HAProxy (the balancer in front of two builds, __tests__/support/balancer.ts), nginx (ingress-nginx's error-page backend,
# deploy/kubernetes/error-pages/) and redis-server (the page cache's shared store, docs/page-cache.md).
# Installs what is missing when it can (root, or password-less
# sudo, with apt-get), in one apt-get run; otherwise says in one line what to install.
set -euo pipefail

CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
haproxy_path() { echo "${HAPROXY_PATH:-$(command -v haproxy || echo /usr/sbin/haproxy)}"; }
NGINX_PATH="${NGINX_PATH:-/usr/sbin/nginx}"
REDIS_SERVER_PATH="${REDIS_SERVER_PATH:-/usr/bin/redis-server}"

missing=()
[ -x "$CHROMIUM_PATH" ] || missing+=(chromium)
[ -x "$(haproxy_path)" ] || missing+=(haproxy)
[ -x "$NGINX_PATH" ] || missing+=(nginx)
[ -x "$REDIS_SERVER_PATH" ] || missing+=(redis-server)
if [ ${#missing[@]} -eq 0 ]; then
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
  echo "[setup] installing Debian's ${missing[*]}…" >&2
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -qq >/dev/null
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  if [ -x "$CHROMIUM_PATH" ] && [ -x "$(haproxy_path)" ] && [ -x "$NGINX_PATH" ] && [ -x "$REDIS_SERVER_PATH" ]; then
    exit 0
  fi
fi

echo "The browser and fleet tests need Chromium at $CHROMIUM_PATH, HAProxy at $(haproxy_path), nginx at $NGINX_PATH and redis-server at $REDIS_SERVER_PATH: run 'sudo apt-get install -y ${missing[*]}' (or set CHROMIUM_PATH / HAPROXY_PATH / NGINX_PATH / REDIS_SERVER_PATH) and try again." >&2
exit 1
