// Which sanitizer this translation unit is built under, whichever compiler
// built it: GCC defines __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__, clang 14
// answers only __has_feature. LDP_UNDER_TSAN: local_hashing.cc leaves out
// its ifunc clones, which crash TSan at load. LDP_UNDER_SANITIZER: tests
// that drive tens of thousands of agents run a smaller population under
// ASan or TSan, which are ~5× slower and look for memory, UB and race
// errors, not for scale.
#ifndef LDP_COMMON_BASE_SANITIZER_BUILD_H_
#define LDP_COMMON_BASE_SANITIZER_BUILD_H_

#if defined(__SANITIZE_THREAD__)
#define LDP_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LDP_UNDER_TSAN 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#define LDP_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LDP_UNDER_ASAN 1
#endif
#endif

#if defined(LDP_UNDER_TSAN) || defined(LDP_UNDER_ASAN)
#define LDP_UNDER_SANITIZER 1
#else
#define LDP_UNDER_SANITIZER 0
#endif

#endif  // LDP_COMMON_BASE_SANITIZER_BUILD_H_
