# Cross-building the device library for arm64 (aarch64) on Debian bookworm
# (deploy/arm64.sh): Debian's g++-aarch64-linux-gnu, and the :arm64
# multiarch packages of protobuf, abseil, OpenSSL and GoogleTest, found in
# /usr/lib/aarch64-linux-gnu; protoc stays the host's.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# Never the host's libraries (FindOpenSSL would otherwise take x86-64's).
set(CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu)
# Tests run under qemu-user (deploy/arm64.sh).
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static)
