#!/usr/bin/env bash
# Fails if non-test code names a predictable generator. Randomizer coins must
# come from SecureRandom (DESIGN invariant 2); tests may seed their own.
set -euo pipefail
cd "$1"
pattern='mt19937|minstd_rand|std::rand\(|[^_]srand\(|drand48|random_device|absl::BitGen\b|InsecureBitGen'
hits=$(grep -rnE "$pattern" --include='*.cc' --include='*.h' common server client proto \
       | grep -vE '^[^:]+:[0-9]+:\s*//' || true)
if [ -n "$hits" ]; then
  echo "insecure generator in non-test code:"
  echo "$hits"
  exit 1
fi
echo "no insecure generator in common/ server/ client/ proto/"
