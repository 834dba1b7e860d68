#!/usr/bin/env bash
# The README's run command: install, build, and run the main job.
#
# Until the aggregator server lands, the main job is ldp-simulate: a
# population of 100k simulated agents, each randomizing its own value with a
# secure generator, aggregated by the same estimators the server will use.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
bash deploy/build.sh --target ldp-simulate
exec "${LDP_BUILD_DIR:-build}/client/ldp-simulate" "$@"
