#!/usr/bin/env bash
# Install Debian's Chromium for the browser tests (Playwright drives it through its
# executable_path: no browser is downloaded). Idempotent; without root and without Chromium it
# says so and the browser tests skip with that reason.
set -uo pipefail
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "install-chromium: /usr/bin/chromium is missing and this user cannot install it" >&2
    exit 0
fi
echo "install-chromium: installing Debian's chromium" >&2
export DEBIAN_FRONTEND=noninteractive
(apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null) \
    || echo "install-chromium: apt-get failed; the browser tests will skip" >&2
exit 0
