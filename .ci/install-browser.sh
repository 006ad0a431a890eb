#!/usr/bin/env bash
# Installs the headless browser the HTML replay viewer's tests drive (tests/replay_browser.rs):
# Debian's Chromium and ChromeDriver. Safe to run again; `.ci/run` calls it before the tests.
# Without a browser those tests skip with a message saying so (they never pass silently).
set -euo pipefail
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
  echo "chromium and chromedriver already installed"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium chromium-driver >/dev/null
chromium --version
chromedriver --version
