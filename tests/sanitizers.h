// Whether a test binary runs under AddressSanitizer (the sanitizer build,
// tools/build.sh with SANITIZE=1), for the volume tests that check fewer
// cases there.
//
// A volume test plays or checks thousands of like cases (seeded games,
// every byte of a log changed in turn) to find a rule or a check that is
// wrong in a rare case. The release build runs all of them. The sanitizer
// build looks for memory and undefined-behaviour errors, which every
// kSanitizerStride-th case reaches as well as all of them do (the same code
// paths, at ten to thirty times the cost per case: CI's time limit), so
// there these tests run only those. A test's assertions stay the same.
#ifndef PYRAMID_TESTS_SANITIZERS_H_
#define PYRAMID_TESTS_SANITIZERS_H_

// clang says __has_feature(address_sanitizer), GCC __SANITIZE_ADDRESS__.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PYRAMID_TESTS_UNDER_ASAN 1
#endif
#endif

namespace pyramid {

#if defined(__SANITIZE_ADDRESS__) || defined(PYRAMID_TESTS_UNDER_ASAN)
inline constexpr bool kUnderSanitizers = true;
#else
inline constexpr bool kUnderSanitizers = false;
#endif

// Under the sanitizers a volume test runs the cases whose index is a
// multiple of this; 1 elsewhere.
inline constexpr int kSanitizerStride = kUnderSanitizers ? 4 : 1;

}  // namespace pyramid

#endif  // PYRAMID_TESTS_SANITIZERS_H_
