#!/usr/bin/env bash
# Installs the Debian bookworm packages the project builds with. Skips apt
# entirely when everything is already there, so a second run is quick and
# works offline.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libssl-dev libgtest-dev libgmock-dev libbenchmark-dev
  libsqlite3-dev nlohmann-json3-dev
  # tests/lint/check_sizes.py (the file and function size limits).
  python3
  # tests/lint/check_format.sh: every C and C++ file as clang-format writes it.
  clang-format
  # ldp-server's and ldp-loadtest's allocator (glibc's malloc was ~30 % of
  # the server's CPU per report).
  libjemalloc-dev
  # The shared store (libpq) and the PostgreSQL 15 server its tests run on.
  postgresql libpq-dev
  # Failover: Patroni on etcd keeps a synchronous standby and promotes it
  # (deploy/postgres/patroni_cluster.py, the failover test).
  patroni etcd-server
  # The /metrics endpoint: prometheus-cpp's text format and its civetweb
  # HTTP exposer (a well-kept server instead of an HTTP parser of our own).
  prometheus-cpp-dev
  # Workload optimizers: Eigen on OpenBLAS and LAPACKE (dense eigensolvers
  # and products at N = 1024 in seconds, not minutes).
  libeigen3-dev libopenblas-dev liblapacke-dev
  # Sanitizer and fuzz jobs of deploy/test.sh: GCC's ASan/UBSan/TSan
  # runtimes, and clang 14 with libFuzzer (libclang_rt.fuzzer-x86_64.a comes
  # from libclang-rt-14-dev on bookworm).
  libasan8 libubsan1 libtsan2 clang clang-14 libclang-rt-14-dev
  # The Python analyst package (python/) and its tests: gRPC and protobuf for
  # the stubs CMake generates (grpc_python_plugin is protobuf-compiler-grpc's),
  # pandas for the tables, matplotlib for the plots, pytest.
  python3-grpcio python3-protobuf python3-pandas python3-matplotlib python3-pytest
  # `ldp page`, the live study page: cpp-httplib serves it (HTTPS through
  # OpenSSL); the tests load it in headless Chromium.
  libcpp-httplib-dev chromium
  # lld: links the ~150 executables in about half ld.bfd's time (CMakeLists.txt).
  lld
  # time: /usr/bin/time, the load test's CPU per agent in the ingest
  # benchmark (bench/ingest/run_ingest_benchmark.sh).
  time
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
