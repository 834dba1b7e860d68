#!/usr/bin/env bash
# Configures and builds the project (Release) into build/. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${LDP_BUILD_DIR:-build}"
JOBS="${LDP_JOBS:-$(nproc)}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD_DIR" -j"$JOBS" "$@"
