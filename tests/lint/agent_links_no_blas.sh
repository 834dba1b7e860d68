#!/usr/bin/env bash
# The agent only randomizes, so ldp-agent must link neither Eigen
# nor BLAS/LAPACK(E). Fails if
#  - the binary NEEDs a BLAS, LAPACK or LAPACKE library (readelf -d), or
#    loads one through another library (ldd, when the loader can list it);
#  - its symbols name Eigen or a BLAS/LAPACKE entry point (a static BLAS or
#    inlined Eigen would not show up as NEEDED);
#  - its compile flags (the transitive include directories and definitions
#    CMake generated for it, file given as $2) name Eigen, while those of
#    ldp_workload_strategies ($3, the control) must, or the check proves nothing.
# Sanitizer runtimes (libasan, libtsan, libubsan, clang_rt) are expected and
# ignored: only the names below count.
# Usage: agent_links_no_blas.sh <ldp-agent binary> <its compile properties>
#        <ldp_workload_strategies' compile properties>
set -euo pipefail
binary=$1
properties=$2
control=$3
libraries='openblas|lapack|libblas|libcblas|libgfortran|libmkl|libatlas'
status=0

needed=$(readelf -d "$binary" | grep -E '\(NEEDED\)' || true)
echo "NEEDED entries of $binary: $(echo "$needed" | grep -c NEEDED)"
if echo "$needed" | grep -Ei "$libraries"; then
  echo "FAIL: ldp-agent NEEDs a BLAS or LAPACK library (above)"
  status=1
fi

# ldd runs the loader in trace mode (no code of the binary runs), which
# also works for sanitizer builds; skip it if the loader refuses.
if loaded=$(ldd "$binary" 2>/dev/null); then
  echo "libraries the loader resolves: $(echo "$loaded" | wc -l)"
  if echo "$loaded" | grep -Ei "$libraries"; then
    echo "FAIL: ldp-agent loads a BLAS or LAPACK library (above)"
    status=1
  fi
fi

symbols=$(nm -C "$binary" 2>/dev/null || true)
if [ -z "$symbols" ]; then
  symbols=$(nm -C -D "$binary" 2>/dev/null || true)
fi
echo "symbols: $(echo "$symbols" | wc -l)"
hits=$(echo "$symbols" | grep -E 'Eigen::|cblas_|LAPACKE_|\b[ds]gemm_|\bdsyevr?_' || true)
if [ -n "$hits" ]; then
  echo "$hits" | sed -n 1,5p
  echo "FAIL: ldp-agent contains Eigen or BLAS/LAPACKE symbols (first above)"
  status=1
fi

if grep -Eio '[^;:]*eigen[^;]*' "$properties"; then
  echo "FAIL: ldp-agent compiles with Eigen's include directories or definitions (above)"
  status=1
fi
if ! grep -qi 'EIGEN_USE_BLAS' "$control"; then
  echo "FAIL: ldp_workload_strategies' compile properties do not name Eigen: the check above is void"
  status=1
fi

if [ "$status" -eq 0 ]; then
  echo "ldp-agent links no Eigen, BLAS or LAPACK(E)"
fi
exit "$status"
