#!/usr/bin/env bash
# The device library cross-built for arm64 and tested under qemu,
# as a job of its own (not in the README's test command: see
# bench/reports/DEVICE.md for its time). On Debian bookworm:
#   1. installs the cross compiler (g++-aarch64-linux-gnu), qemu-user-static
#      and the :arm64 multiarch packages of protobuf, abseil, OpenSSL and
#      GoogleTest (adding the arm64 architecture to dpkg if needed);
#   2. builds the device-only tree twice (-DLDP_DEVICE_ONLY=ON: the agent
#      core, its wire layer, the C library and their tests): natively in
#      build-device/ and for aarch64 in build-arm64/
#      (deploy/toolchain-aarch64.cmake);
#   3. runs the unit tests of both, the arm64 ones under qemu-aarch64-static;
#   4. compares the report bytes one seeded agent sends for eight tasks (one
#      per mechanism family, three seeds each) on both CPUs: they must be
#      identical;
#   5. prints the stripped size of libldp_agent.so for both.
# Safe to run twice: installs only what is missing, builds incrementally.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${LDP_JOBS:-$(nproc)}"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
  $SUDO apt-get update -qq
fi
packages=(g++-aarch64-linux-gnu qemu-user-static libabsl-dev:arm64
          libprotobuf-dev:arm64 libssl-dev:arm64 libgtest-dev:arm64
          libgmock-dev:arm64 protobuf-compiler cmake ninja-build)
missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "arm64: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
      --no-install-recommends "${missing[@]}"
fi

start=$SECONDS
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DLDP_DEVICE_ONLY=ON >/dev/null
cmake --build build-device -j"$JOBS"
cmake -S . -B build-arm64 -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DLDP_DEVICE_ONLY=ON \
    -DCMAKE_TOOLCHAIN_FILE="$PWD/deploy/toolchain-aarch64.cmake" >/dev/null
cmake --build build-arm64 -j"$JOBS"
echo "arm64: both builds in $((SECONDS - start)) s"

(cd build-device && ctest --output-on-failure)
file build-arm64/tests/device/device_test | grep -q aarch64 ||
  { echo "arm64: build-arm64 did not produce aarch64 code"; exit 1; }
(cd build-arm64 && ctest --output-on-failure)  # through qemu-aarch64-static

build-device/tests/device/report_digest > build-device/report_digest.txt
qemu-aarch64-static build-arm64/tests/device/report_digest \
    > build-arm64/report_digest.txt
if ! diff build-device/report_digest.txt build-arm64/report_digest.txt; then
  echo "arm64: FAILED: the seeded reports differ between x86-64 and arm64"
  exit 1
fi
echo "arm64: $(wc -l < build-arm64/report_digest.txt) seeded reports" \
     "identical on x86-64 and arm64"

strip -o build-device/libldp_agent.stripped.so build-device/client/libldp_agent.so
aarch64-linux-gnu-strip -o build-arm64/libldp_agent.stripped.so \
    build-arm64/client/libldp_agent.so
echo "arm64: libldp_agent.so stripped: x86-64 $(stat -c %s build-device/libldp_agent.stripped.so) B," \
     "arm64 $(stat -c %s build-arm64/libldp_agent.stripped.so) B"
echo "arm64: passed in $((SECONDS - start)) s"
