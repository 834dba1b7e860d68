#!/usr/bin/env bash
# The README's test command: install, build, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
bash deploy/build.sh
cd "${LDP_BUILD_DIR:-build}"
ctest --output-on-failure -j"${LDP_JOBS:-$(nproc)}" --timeout 600
