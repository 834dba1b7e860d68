// LDP_TESTING_SANITIZED is 1 in an ASan or TSan build, whichever compiler
// built it (GCC defines __SANITIZE_*__; clang 14 answers __has_feature
// only). Tests that drive tens of thousands of agents use it to run a
// smaller population under the sanitizers, which are ~5× slower and look
// for memory and UB errors, not for scale.
#ifndef LDP_TESTS_TESTING_SANITIZED_H_
#define LDP_TESTS_TESTING_SANITIZED_H_

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LDP_TESTING_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define LDP_TESTING_SANITIZED 1
#endif
#endif
#ifndef LDP_TESTING_SANITIZED
#define LDP_TESTING_SANITIZED 0
#endif

#endif  // LDP_TESTS_TESTING_SANITIZED_H_
