#!/usr/bin/env bash
# libldp_agent.so exports the C ABI of client/agent_c/ldp_agent.h and
# nothing else, and needs no gRPC. Fails if
#  - a defined dynamic symbol does not start with ldp_ (the C++ core, absl
#    or protobuf leaking out: apps could bind to them by accident);
#  - a function the header declares is missing;
#  - the library NEEDs a gRPC library.
# Sanitizer builds add their runtime's hooks only as undefined symbols, so
# the check holds for them too.
# Usage: agent_c_symbols.sh <libldp_agent.so> <ldp_agent.h>
set -euo pipefail
library=$1
header=$2
status=0

# Defined dynamic symbols, without the version node (type A).
exported=$(nm -D --defined-only "$library" | awk '$2 != "A" {print $3}' |
           sed 's/@.*//' | sort -u)
echo "exported: $(echo "$exported" | tr '\n' ' ')"
foreign=$(echo "$exported" | grep -v '^ldp_' || true)
if [ -n "$foreign" ]; then
  echo "FAIL: exported symbols outside the C ABI:"
  echo "$foreign" | head -20
  status=1
fi

declared=$(grep -oE '^LDP_AGENT_API [^(]*\bldp_[a-z_]+\(' "$header" |
           grep -oE 'ldp_[a-z_]+\($' | tr -d '(' | sort -u)
if [ -z "$declared" ]; then
  echo "FAIL: no LDP_AGENT_API declaration found in $header"
  status=1
fi
for name in $declared; do
  # A here-string, not `echo | grep -q`: grep -q exits at the first match,
  # echo can then die of SIGPIPE, and pipefail reports a found name as
  # missing (seen once in CI for ldp_agent_spent, which nm listed).
  if ! grep -qx "$name" <<<"$exported"; then
    echo "FAIL: $name is declared in the header but not exported"
    status=1
  fi
done
echo "declared and exported: $(echo "$declared" | wc -l) functions"

if readelf -d "$library" | grep -E '\(NEEDED\)' | grep -i grpc; then
  echo "FAIL: the agent's C library needs gRPC (above)"
  status=1
fi
exit $status
