// Whether this test program was built with AddressSanitizer (CI's second
// build: -Db_sanitize=address,undefined). Code under the sanitizers at -O0
// runs 10 to 25 times slower, so randomized tests draw smaller inputs there
// (SanitizerScaled); they keep every case kind, element type and the sizes
// that straddle vector widths, and the ordinary build runs them in full.
#ifndef BERTH_TESTS_SUPPORT_SANITIZER_HPP_
#define BERTH_TESTS_SUPPORT_SANITIZER_HPP_

namespace berth::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
inline constexpr bool kUnderSanitizer = true;
#else
inline constexpr bool kUnderSanitizer = false;
#endif
#else
inline constexpr bool kUnderSanitizer = false;
#endif

// `full` in an ordinary build, `sanitized` under the sanitizers.
template <typename T>
constexpr T SanitizerScaled(T full, T sanitized) {
  return kUnderSanitizer ? sanitized : full;
}

}  // namespace berth::testing

#endif  // BERTH_TESTS_SUPPORT_SANITIZER_HPP_
