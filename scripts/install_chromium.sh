#!/usr/bin/env bash
# Install Debian's headless-capable Chromium for the report.html browser tests (idempotent).
# Usage: scripts/install_chromium.sh        prints the browser's path on success
# Needs root (CI runs as root) or an existing /usr/bin/chromium.
set -euo pipefail

find_browser() {
    for candidate in chromium chromium-browser; do
        if command -v "$candidate" >/dev/null 2>&1; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

if browser=$(find_browser); then
    echo "$browser"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "install_chromium.sh: chromium is not installed and this is not root; run: apt-get install chromium" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2

browser=$(find_browser)
echo "$browser"
