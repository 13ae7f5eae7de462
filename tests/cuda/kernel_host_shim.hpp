// What generated CUDA C needs from CUDA, for compiling it as host C++: the
// execution-space keywords vanish, every element is a thread of its own (run
// in either order), and the intrinsics are their exact host equivalents. The
// math functions are the C++ library's (the cpu plugin's may differ in the
// last bits for transcendental functions; the test allows for that).
#ifndef BERTH_TESTS_CUDA_KERNEL_HOST_SHIM_HPP_
#define BERTH_TESTS_CUDA_KERNEL_HOST_SHIM_HPP_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#define __device__
#define __global__
#define __forceinline__ inline

struct BerthHostDim3 {
  unsigned x;
};
// One block of as many threads as elements, run one after the other
// (BerthHostInvoker), first to last or - with berth_host_threads_reversed,
// defined beside the generated kernels - last to first: a kernel whose result
// depends on the order its threads run in (one reading or overwriting what
// another writes) gives other results in one of the two orders.
inline thread_local BerthHostDim3 blockIdx{0}, threadIdx{0}, blockDim{1}, gridDim{1};
extern bool berth_host_threads_reversed;

template <typename To, typename From>
inline To BerthHostBits(From value) {
  static_assert(sizeof(To) == sizeof(From));
  To out;
  std::memcpy(&out, &value, sizeof(out));
  return out;
}
inline float __uint_as_float(unsigned u) { return BerthHostBits<float>(u); }
inline unsigned __float_as_uint(float f) { return BerthHostBits<unsigned>(f); }
inline int __float_as_int(float f) { return BerthHostBits<int>(f); }
inline long long __double_as_longlong(double d) { return BerthHostBits<long long>(d); }
inline double __longlong_as_double(long long x) { return BerthHostBits<double>(x); }
// Round to nearest, ties to even (the default rounding mode).
inline unsigned __float2uint_rn(float f) { return static_cast<unsigned>(std::nearbyint(f)); }
inline unsigned __double2uint_rn(double d) { return static_cast<unsigned>(std::nearbyint(d)); }
inline int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x));
}
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline long long __mul64hi(long long x, long long y) {
  return static_cast<long long>((static_cast<__int128>(x) * y) >> 64);
}
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(x) * y) >> 64);
}

using std::acos, std::acosh, std::asin, std::asinh, std::atan, std::atan2, std::atanh, std::cbrt,
    std::ceil, std::copysign, std::cos, std::cosh, std::erf, std::erfc, std::exp, std::expm1,
    std::fabs, std::fma, std::fmax, std::fmin, std::frexp, std::hypot, std::ldexp, std::floor,
    std::fmod, std::isfinite, std::isinf, std::lgamma, std::log, std::log1p, std::nearbyint,
    std::pow, std::rint, std::round, std::scalbn, std::signbit, std::sin, std::sinh, std::sqrt,
    std::tan, std::tanh;

// Calls a generated kernel with its pointers and its element count from an
// array of addresses (the count's address last).
template <typename F>
struct BerthHostInvoker;
template <typename... P>
struct BerthHostInvoker<void (*)(P...)> {
  template <typename T>
  static T Arg(void* address) {
    if constexpr (std::is_pointer_v<T>) {
      return static_cast<T>(address);
    } else {
      return *static_cast<T*>(address);
    }
  }
  template <size_t... I>
  static void Call(void (*kernel)(P...), void* const* args, std::index_sequence<I...>) {
    kernel(Arg<P>(args[I])...);
  }
  static void Invoke(void (*kernel)(P...), void* const* args) {
    const long long n = *static_cast<const long long*>(args[sizeof...(P) - 1]);
    blockDim.x = n > 0 ? static_cast<unsigned>(n) : 1u;
    for (long long k = 0; k < n; ++k) {
      threadIdx.x = static_cast<unsigned>(berth_host_threads_reversed ? n - 1 - k : k);
      Call(kernel, args, std::index_sequence_for<P...>{});
    }
    threadIdx.x = 0;
    blockDim.x = 1;
  }
};

#endif  // BERTH_TESTS_CUDA_KERNEL_HOST_SHIM_HPP_
