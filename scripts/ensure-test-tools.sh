#!/usr/bin/env bash
# Makes sure the browser and fleet tests have what Debian must provide: Chromium (Playwright
# cannot download its own browsers here), HAProxy (the balancer in front of two builds,
# __tests__/support/balancer.ts) and nginx (ingress-nginx's error-page backend,
# deploy/kubernetes/error-pages/). Installs what is missing when it can (root, or password-less
# sudo, with apt-get), in one apt-get run; otherwise says in one line what to install.
set -euo pipefail

CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
haproxy_path() { echo "${HAPROXY_PATH:-$(command -v haproxy || echo /usr/sbin/haproxy)}"; }
NGINX_PATH="${NGINX_PATH:-/usr/sbin/nginx}"

missing=()
[ -x "$CHROMIUM_PATH" ] || missing+=(chromium)
[ -x "$(haproxy_path)" ] || missing+=(haproxy)
[ -x "$NGINX_PATH" ] || missing+=(nginx)
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
  if [ -x "$CHROMIUM_PATH" ] && [ -x "$(haproxy_path)" ] && [ -x "$NGINX_PATH" ]; then
    exit 0
  fi
fi

echo "The browser and fleet tests need Chromium at $CHROMIUM_PATH, HAProxy at $(haproxy_path) and nginx at $NGINX_PATH: run 'sudo apt-get install -y ${missing[*]}' (or set CHROMIUM_PATH / HAPROXY_PATH / NGINX_PATH) and try again." >&2
exit 1
