#!/usr/bin/env bash
# Make sure Debian's chromium is installed for the browser tests (tests/browser/).
# Installs it with apt-get when missing and we are root; otherwise says why the browser
# tests will be skipped. Never fails the test run by itself.
set -u
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: installing Debian's chromium for the browser tests"
  if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 \
     || { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1; }; then
    exit 0
  fi
  echo "ensure-chromium: apt-get could not install chromium; the browser tests will be skipped" >&2
else
  echo "ensure-chromium: /usr/bin/chromium missing and not root; run 'apt-get install chromium' for the browser tests" >&2
fi
exit 0
