# Sanitizer and fuzzing builds.
#
#   -DLDP_SANITIZE=address,undefined   ASan + UBSan over the whole tree
#   -DLDP_SANITIZE=thread              TSan (deploy/test.sh runs only the
#                                      server-core tests with it)
#   -DLDP_FUZZ=ON                      ASan + UBSan with libFuzzer's coverage
#                                      over the whole tree, plus the
#                                      libFuzzer targets in tests/fuzz (clang);
#                                      deploy/test.sh runs every test and
#                                      every fuzzer from this one build
#
# Flags go on every target through add_compile_options/add_link_options, so
# each sanitizer build needs its own build directory (deploy/test.sh uses
# build-asan and build-tsan). gRPC, protobuf and abseil are
# Debian's uninstrumented shared libraries; see tests/sanitizers/README.md.

set(LDP_SANITIZE "" CACHE STRING
  "Comma-separated -fsanitize= list (e.g. address,undefined or thread); empty for none")
option(LDP_FUZZ "Build the libFuzzer targets in tests/fuzz (needs clang)" OFF)

if(LDP_SANITIZE AND LDP_FUZZ)
  message(FATAL_ERROR "LDP_FUZZ already builds with address,undefined; leave LDP_SANITIZE empty")
endif()

# UB must fail the test that hits it, not print a line and carry on. GCC
# leaves float-cast-overflow out of "undefined"; the randomizers cast doubles
# to integers, so it is asked for by name. Floating division by zero is left
# out: under IEEE 754 it gives ±inf or NaN, which the code handles as values.
set(_ldp_ubsan_flags -fno-sanitize-recover=undefined,float-cast-overflow
                     -fsanitize=float-cast-overflow)

if(LDP_SANITIZE)
  add_compile_options(-fsanitize=${LDP_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${LDP_SANITIZE})
  if(LDP_SANITIZE MATCHES "undefined")
    add_compile_options(${_ldp_ubsan_flags})
    add_link_options(-fsanitize=float-cast-overflow)
  endif()
endif()

if(LDP_SANITIZE MATCHES "thread")
  # Teach TSan about Debian's uninstrumented absl::Mutex & co (see the
  # file's header). Compiled here, at configure time, so every executable can
  # take the object on its link line without a build-order dependency;
  # editing the file re-runs CMake, and the object's name carries the
  # file's hash so the changed link line relinks every executable.
  set(_ldp_tsan_src ${PROJECT_SOURCE_DIR}/tests/sanitizers/tsan_absl_sync.cc)
  file(SHA256 ${_ldp_tsan_src} _ldp_tsan_hash)
  string(SUBSTRING ${_ldp_tsan_hash} 0 12 _ldp_tsan_hash)
  set(_ldp_tsan_obj ${PROJECT_BINARY_DIR}/tsan_absl_sync-${_ldp_tsan_hash}.o)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_ldp_tsan_src})
  execute_process(
    COMMAND ${CMAKE_CXX_COMPILER} -std=c++20 -O1 -fsanitize=thread
            -c ${_ldp_tsan_src} -o ${_ldp_tsan_obj}
    RESULT_VARIABLE _ldp_tsan_rc)
  if(NOT _ldp_tsan_rc EQUAL 0)
    message(FATAL_ERROR "could not compile ${_ldp_tsan_src}")
  endif()
  add_link_options(${_ldp_tsan_obj})
  link_libraries(absl::synchronization absl::status)  # what the object's __real_ calls need
  foreach(sym
      _ZN4absl7debian35Mutex4LockEv
      _ZN4absl7debian35Mutex6UnlockEv
      _ZN4absl7debian35Mutex10ReaderLockEv
      _ZN4absl7debian35Mutex12ReaderUnlockEv
      _ZN4absl7debian35Mutex7TryLockEv
      _ZN4absl7debian35Mutex13ReaderTryLockEv
      _ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE
      _ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE
      _ZN4absl7debian37CondVar4WaitEPNS0_5MutexE
      _ZN4absl7debian312Notification6NotifyEv
      _ZNK4absl7debian312Notification19WaitForNotificationEv
      _ZN4absl7debian315BlockingCounter14DecrementCountEv
      _ZN4absl7debian315BlockingCounter4WaitEv
      _ZN4absl7debian36Status15UnrefNonInlinedEm)
    add_link_options(-Wl,--wrap=${sym})
  endforeach()
endif()

if(LDP_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR
      "LDP_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  # Libraries get libFuzzer's edge coverage without its main(); the fuzz
  # executables add -fsanitize=fuzzer themselves (tests/fuzz). The same
  # build runs the whole test suite, so the coverage is the cheap part of
  # -fsanitize=fuzzer-no-link (inline counters): its comparison callbacks
  # (trace-cmp) slowed the statistical tests' hot loops several-fold. They
  # stay where the fuzzers' bytes are parsed (ldp_proto_convert,
  # LDP_FUZZ_CMP_FLAGS), which no test loops over.
  add_compile_options(-fsanitize=address,undefined
                      -fsanitize-coverage=inline-8bit-counters,pc-table
                      -fno-omit-frame-pointer ${_ldp_ubsan_flags})
  add_link_options(-fsanitize=address,undefined,float-cast-overflow)
  set(LDP_FUZZ_CMP_FLAGS -fsanitize-coverage=trace-cmp)
endif()

# Two kinds of code the sanitizer builds leave (partly) uninstrumented, to
# keep the CI's instrumented build near half an hour on two cores:
#
# LDP_GENERATED_CODE_FLAGS: protoc's and gRPC's generated files, with no
# instrumentation and no line tables. They are calls into Debian's
# uninstrumented libprotobuf and gRPC, which no sanitizer sees either;
# instrumenting the glue costs build time under ASan and TSan alike and
# checks nothing of ours.
#
# LDP_TEST_CODE_FLAGS: the test files themselves, without line tables, and
# under ASan without UBSan (TSan's test files keep TSan). Every library, i.e. all of the code under test,
# keeps ASan, UBSan and its line numbers in reports; a test file's own
# arithmetic and casts lose UBSan's checks, and its frames in a report
# show function names only (a failed assertion still names its file and
# line: GoogleTest takes them from __FILE__ and __LINE__). One test
# binary's single file (workload_test, -O1) took 109 s to compile with
# both, 79 s without UBSan and 66 s without line tables as well; the test
# files were over half of the ASan build's 2,484 CPU-s.
set(LDP_GENERATED_CODE_FLAGS "")
set(LDP_TEST_CODE_FLAGS "")
if(LDP_SANITIZE OR LDP_FUZZ)
  list(APPEND LDP_GENERATED_CODE_FLAGS -fno-sanitize=all -g0)
endif()
if(LDP_FUZZ)
  list(APPEND LDP_GENERATED_CODE_FLAGS
       -fno-sanitize-coverage=inline-8bit-counters,pc-table)
endif()
if(LDP_FUZZ OR LDP_SANITIZE MATCHES "undefined")
  list(APPEND LDP_TEST_CODE_FLAGS -fno-sanitize=undefined,float-cast-overflow)
endif()
if(LDP_SANITIZE OR LDP_FUZZ)
  list(APPEND LDP_TEST_CODE_FLAGS -g0)
endif()
