#!/usr/bin/env bash
# Install the Debian packages the tests use beside Python: Chromium for the browser tests
# (Playwright drives it through its executable_path: no browser is downloaded) and Tesseract for
# OCR of scans. Idempotent; without root it says what is missing, and those tests skip with the
# reason (OCR itself says how to install Tesseract when it is missing).
set -uo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v tesseract >/dev/null 2>&1 || missing+=(tesseract-ocr)
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "install-system-packages: missing ${missing[*]} and this user cannot install them" >&2
    exit 0
fi
echo "install-system-packages: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
(apt-get update -qq >/dev/null && apt-get install -y -qq "${missing[@]}" >/dev/null) \
    || echo "install-system-packages: apt-get failed; the tests that need ${missing[*]} will skip" >&2
exit 0
