#include "codegen/kernel_prelude.hpp"

namespace berth::cuda {

std::string_view KernelPrelude() {
  static constexpr std::string_view kPrelude = R"cuda(
typedef signed char berth_s8;
typedef short berth_s16;
typedef int berth_s32;
typedef long long berth_s64;
typedef unsigned char berth_u8;
typedef unsigned short berth_u16;
typedef unsigned int berth_u32;
typedef unsigned long long berth_u64;

template <typename T> struct berth_limits;
template <> struct berth_limits<berth_s8> { static constexpr berth_s8 lo = -128, hi = 127; static constexpr int bits = 8; typedef berth_u8 U; typedef berth_s8 S; };
template <> struct berth_limits<berth_s16> { static constexpr berth_s16 lo = -32768, hi = 32767; static constexpr int bits = 16; typedef berth_u16 U; typedef berth_s16 S; };
template <> struct berth_limits<berth_s32> { static constexpr berth_s32 lo = -2147483647 - 1, hi = 2147483647; static constexpr int bits = 32; typedef berth_u32 U; typedef berth_s32 S; };
template <> struct berth_limits<berth_s64> { static constexpr berth_s64 lo = -9223372036854775807LL - 1, hi = 9223372036854775807LL; static constexpr int bits = 64; typedef berth_u64 U; typedef berth_s64 S; };
template <> struct berth_limits<berth_u8> { static constexpr berth_u8 lo = 0, hi = 255; static constexpr int bits = 8; typedef berth_u8 U; typedef berth_s8 S; };
template <> struct berth_limits<berth_u16> { static constexpr berth_u16 lo = 0, hi = 65535; static constexpr int bits = 16; typedef berth_u16 U; typedef berth_s16 S; };
template <> struct berth_limits<berth_u32> { static constexpr berth_u32 lo = 0, hi = 4294967295u; static constexpr int bits = 32; typedef berth_u32 U; typedef berth_s32 S; };
template <> struct berth_limits<berth_u64> { static constexpr berth_u64 lo = 0, hi = 18446744073709551615ULL; static constexpr int bits = 64; typedef berth_u64 U; typedef berth_s64 S; };

// ---- f16 and bf16 bits <-> float, round to nearest even.
__device__ __forceinline__ float berth_f16_to_f32(berth_u16 h) {
  berth_u32 sign = (berth_u32)(h & 0x8000u) << 16;
  berth_u32 exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0x1fu) return __uint_as_float(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    float magnitude = (float)mantissa * 5.9604644775390625e-8f;  // 2^-24, exact
    return sign ? -magnitude : magnitude;
  }
  return __uint_as_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}
__device__ __forceinline__ float berth_bf16_to_f32(berth_u16 h) { return __uint_as_float((berth_u32)h << 16); }

__device__ __forceinline__ berth_u16 berth_f32_to_f16(float f) {
  berth_u32 x = __float_as_uint(f);
  berth_u16 sign = (berth_u16)((x >> 16) & 0x8000u);
  berth_u32 magnitude = x & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return (berth_u16)(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  if (magnitude >= 0x477ff000u) return (berth_u16)(sign | 0x7c00u);  // >= 65520: inf
  if (magnitude >= 0x38800000u) {                                     // a normal f16
    berth_u32 rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
    return (berth_u16)(sign | ((rounded - 0x38000000u) >> 13));
  }
  // Subnormal or zero: the count of 2^-24 steps, ties to even (exact scaling).
  return (berth_u16)(sign | (berth_u16)__float2uint_rn(__uint_as_float(magnitude) * 16777216.0f));
}
__device__ __forceinline__ berth_u16 berth_f32_to_bf16(float f) {
  berth_u32 x = __float_as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (berth_u16)((x >> 16) | 0x40u);
  return (berth_u16)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
// From double directly (no double rounding through float).
__device__ __forceinline__ berth_u16 berth_f64_to_f16(double d) {
  berth_u64 x = (berth_u64)__double_as_longlong(d);
  berth_u16 sign = (berth_u16)((x >> 48) & 0x8000u);
  berth_u64 magnitude = x & 0x7fffffffffffffffULL;
  if (magnitude > 0x7ff0000000000000ULL) return (berth_u16)(sign | 0x7e00u | ((magnitude >> 42) & 0x3ffu));
  if (magnitude >= 0x40effe0000000000ULL) return (berth_u16)(sign | 0x7c00u);  // >= 65520
  if (magnitude >= 0x3f10000000000000ULL) {                                   // >= 2^-14
    berth_u64 rounded = magnitude + 0x1ffffffffffULL + ((magnitude >> 42) & 1u);
    return (berth_u16)(sign | (berth_u16)((rounded - 0x3f00000000000000ULL) >> 42));
  }
  return (berth_u16)(sign | (berth_u16)__double2uint_rn(__longlong_as_double((long long)magnitude) * 16777216.0));
}
__device__ __forceinline__ berth_u16 berth_f64_to_bf16(double d) {
  berth_u64 x = (berth_u64)__double_as_longlong(d);
  berth_u16 sign = (berth_u16)((x >> 48) & 0x8000u);
  berth_u64 magnitude = x & 0x7fffffffffffffffULL;
  if (magnitude > 0x7ff0000000000000ULL) return (berth_u16)(sign | 0x7fc0u | ((magnitude >> 45) & 0x7fu));
  if (magnitude >= 0x47efff0000000000ULL) return (berth_u16)(sign | 0x7f80u);  // >= (2 - 2^-8) 2^127
  if (magnitude >= 0x3810000000000000ULL) {                                   // >= 2^-126
    berth_u64 rounded = magnitude + 0xfffffffffffULL + ((magnitude >> 45) & 1u);
    return (berth_u16)(sign | (berth_u16)((rounded - 0x3800000000000000ULL) >> 45));
  }
  // Subnormal: steps of 2^-133 (the factor is 2^133, exact).
  double steps = __longlong_as_double((long long)magnitude) * __longlong_as_double(0x4840000000000000LL);
  return (berth_u16)(sign | (berth_u16)__double2uint_rn(steps));
}
// An integer's magnitude as a 16-bit float with `mantissa_bits` and `bias`,
// exactly rounded (ties to even); past the largest exponent: inf.
__device__ __forceinline__ berth_u16 berth_u64_to_half_bits(berth_u64 m, bool negative, int mantissa_bits, int bias, int max_exponent) {
  berth_u16 sign = negative ? 0x8000u : 0u;
  if (m == 0) return sign;
  int top = 63 - __clzll((long long)m);
  berth_u64 kept = m;
  if (top > mantissa_bits) {
    int shift = top - mantissa_bits;
    kept = m >> shift;
    berth_u64 rest = m & ((1ULL << shift) - 1), half = 1ULL << (shift - 1);
    if (rest > half || (rest == half && (kept & 1u))) ++kept;
    if (kept >> (mantissa_bits + 1)) { kept >>= 1; ++top; }
  } else {
    kept = m << (mantissa_bits - top);
  }
  int exponent = top + bias;
  if (exponent >= max_exponent) return (berth_u16)(sign | ((berth_u16)max_exponent << mantissa_bits));
  return (berth_u16)(sign | ((berth_u16)exponent << mantissa_bits) | (berth_u16)(kept & ((1ULL << mantissa_bits) - 1)));
}
template <typename T>
__device__ __forceinline__ berth_u64 berth_magnitude(T v) {
  return v < 0 ? (berth_u64)0 - (berth_u64)(berth_s64)v : (berth_u64)v;
}
template <typename T> __device__ __forceinline__ berth_u16 berth_int_to_f16(T v) { return berth_u64_to_half_bits(berth_magnitude(v), v < 0, 10, 15, 31); }
template <typename T> __device__ __forceinline__ berth_u16 berth_int_to_bf16(T v) { return berth_u64_to_half_bits(berth_magnitude(v), v < 0, 7, 127, 255); }
__device__ __forceinline__ float berth_round_f16(float f) { return berth_f16_to_f32(berth_f32_to_f16(f)); }
__device__ __forceinline__ float berth_round_bf16(float f) { return berth_bf16_to_f32(berth_f32_to_bf16(f)); }

// ---- narrow types: one element per byte. Integers (i2, i4, ui2, ui4) are
// computed in 8 bits and wrapped to their width after every op; floats (the
// f8, f6, f4 formats) are computed in float and rounded to their format
// after every op, as the cpu plugin computes them (narrow_types.hpp there).
// A float format: E exponent bits, M mantissa bits, bias B, and its NaN rule
// K: 0 IEEE (inf and NaN), 1 only all ones is NaN and no inf (FN), 2 the
// negative-zero pattern is NaN, no inf and no -0 (FNUZ), 3 neither (f4/f6).
template <int BITS, bool SIGNED> __device__ __forceinline__ berth_s64 berth_narrow_wrap(berth_s64 v) {
  const berth_s64 low = v & ((1LL << BITS) - 1);
  return SIGNED && (low >> (BITS - 1)) ? low - (1LL << BITS) : low;
}
// Truncated toward zero and saturated at the type's bounds; NaN gives 0.
template <int BITS, bool SIGNED> __device__ __forceinline__ berth_s64 berth_float_to_narrow(double d) {
  const double lo = SIGNED ? -(double)(1LL << (BITS - 1)) : 0.0;
  const double hi = SIGNED ? (double)((1LL << (BITS - 1)) - 1) : (double)((1LL << BITS) - 1);
  return d != d ? 0 : d <= lo ? (berth_s64)lo : d >= hi ? (berth_s64)hi : (berth_s64)d;
}
template <int E, int M, int B, int K> __device__ __forceinline__ float berth_narrow_to_f32(berth_u8 byte) {
  const int total = 1 + E + M;
  const unsigned bits = byte & ((1u << total) - 1);
  const bool negative = (bits >> (total - 1)) & 1;
  const unsigned exponent = (bits >> M) & ((1u << E) - 1), mantissa = bits & ((1u << M) - 1);
  const float nan = __uint_as_float(0x7fc00000u), inf = __uint_as_float(0x7f800000u);
  if (K == 0 && exponent == (1u << E) - 1) return mantissa != 0 ? nan : (negative ? -inf : inf);
  if (K == 1 && exponent == (1u << E) - 1 && mantissa == (1u << M) - 1) return nan;
  if (K == 2 && negative && exponent == 0 && mantissa == 0) return nan;
  const float magnitude = exponent == 0 ? ldexp((float)mantissa, 1 - B - M)
                                        : ldexp((float)(mantissa | (1u << M)), (int)exponent - B - M);
  return negative ? -magnitude : magnitude;
}
// Rounded once to nearest, ties to even; past the largest finite value: inf
// (K 0), NaN (K 1, 2) or the largest finite value (K 3).
template <int E, int M, int B, int K> __device__ __forceinline__ berth_u8 berth_f64_to_narrow(double value) {
  const int total = 1 + E + M;
  const unsigned sign_bit = 1u << (total - 1), man_mask = (1u << M) - 1, exp_mask = (1u << E) - 1;
  const unsigned nan = K == 0 ? (exp_mask << M) | (1u << (M > 0 ? M - 1 : 0))
                     : K == 1 ? (exp_mask << M) | man_mask
                     : K == 2 ? sign_bit : 0u;
  if (value != value) return (berth_u8)nan;
  const unsigned sign = signbit(value) ? sign_bit : 0u;
  const double a = fabs(value);
  const unsigned max_exp = K == 0 ? exp_mask - 1 : exp_mask;
  const unsigned max_man = K == 1 ? man_mask - 1 : man_mask;
  const unsigned overflow = K == 0 ? sign | (exp_mask << M) : K == 3 ? sign | (max_exp << M) | max_man : nan;
  if (isinf(a)) return (berth_u8)overflow;
  if (a == 0) return (berth_u8)(K == 2 ? 0u : sign);
  int e2;
  frexp(a, &e2);
  int e = e2 - 1;  // a = 1.x * 2^e
  const int emin = 1 - B;
  unsigned exponent, mantissa;
  if (e < emin) {
    mantissa = (unsigned)rint(ldexp(a, M - emin));
    exponent = mantissa > man_mask ? 1u : 0u;
    if (mantissa > man_mask) mantissa = 0;
  } else {
    unsigned full = (unsigned)rint(ldexp(a, M - e));
    if (full >> (M + 1)) {
      full >>= 1;
      ++e;
    }
    if (e - emin + 1 > (int)max_exp) return (berth_u8)overflow;
    exponent = (unsigned)(e + B);
    mantissa = full & man_mask;
  }
  if (exponent > max_exp || (exponent == max_exp && mantissa > max_man)) return (berth_u8)overflow;
  const unsigned bits = (exponent << M) | mantissa;
  if (bits == 0 && K == 2) return 0;
  return (berth_u8)(sign | bits);
}
// f8E8M0FNU: an exponent alone (2^(e - 127)); 0xff is NaN.
__device__ __forceinline__ float berth_e8m0_to_f32(berth_u8 byte) {
  return byte == 0xffu ? __uint_as_float(0x7fc00000u) : ldexp(1.0f, (int)byte - 127);
}
__device__ __forceinline__ berth_u8 berth_f64_to_e8m0(double value) {
  if (value != value || !(value > 0) || isinf(value)) return 0xffu;
  int e2;
  const double m = frexp(value, &e2);  // value = m 2^e2, m in [0.5, 1)
  int e = e2 - 1;
  if (m * 2 >= 1.5) ++e;  // 1.5 ties to 2
  if (e < -127) return 0;
  if (e > 127) return 0xffu;
  return (berth_u8)(e + 127);
}

// ---- float semantics.
// IEEE maximum / minimum: a NaN operand is the result, +0 > -0.
template <typename F> __device__ __forceinline__ F berth_fmax(F a, F b) {
  F r = a > b ? a : b;
  r = a == b ? (signbit(a) ? b : a) : r;
  return a != a ? a : r;
}
template <typename F> __device__ __forceinline__ F berth_fmin(F a, F b) {
  F r = a < b ? a : b;
  r = a == b ? (signbit(a) ? a : b) : r;
  return a != a ? a : r;
}
template <typename F> __device__ __forceinline__ F berth_fsign(F x) {
  return x != x ? x : (x > 0 ? (F)1 : (x < 0 ? (F)-1 : x));
}
template <typename F> __device__ __forceinline__ F berth_logistic(F x) { return (F)1 / ((F)1 + exp(-x)); }
// ---- complex numbers: the real and imaginary parts, as the cpu plugin's
// std::complex holds them. * and / recover infinities from NaN results as
// C's Annex G says; complex<f32> divides in double (exact products, one
// rounding of each part to float), complex<f64> by Smith's method made
// robust. Each gives what GCC's libgcc gives the cpu plugin (checked bit for
// bit on 5 million random operands of every magnitude, NaN and inf).
struct berth_c64 { float re, im; };
struct berth_c128 { double re, im; };
template <typename F> __device__ __forceinline__ F berth_inf() { return (F)__longlong_as_double(0x7ff0000000000000LL); }
template <typename F> __device__ __forceinline__ F berth_nan() { return (F)__longlong_as_double(0x7ff8000000000000LL); }
template <typename F> struct berth_complex_of;
template <> struct berth_complex_of<float> { typedef berth_c64 C; };
template <> struct berth_complex_of<double> { typedef berth_c128 C; };
template <typename F> __device__ __forceinline__ typename berth_complex_of<F>::C berth_complex(F re, F im) {
  typename berth_complex_of<F>::C z;
  z.re = re;
  z.im = im;
  return z;
}
template <typename C> __device__ __forceinline__ C berth_cadd(C a, C b) { return berth_complex(a.re + b.re, a.im + b.im); }
template <typename C> __device__ __forceinline__ C berth_csub(C a, C b) { return berth_complex(a.re - b.re, a.im - b.im); }
template <typename C> __device__ __forceinline__ C berth_cneg(C a) { return berth_complex(-a.re, -a.im); }
// 1 or 0 for an infinite or finite x, with x's sign.
template <typename F> __device__ __forceinline__ F berth_box(F x) { return copysign(isinf(x) ? (F)1 : (F)0, x); }
template <typename F> __device__ __forceinline__ F berth_nan_to_zero(F x) { return x != x ? copysign((F)0, x) : x; }
template <typename C> __device__ __forceinline__ C berth_cmul(C x, C y) {
  auto a = x.re, b = x.im, c = y.re, d = y.im;
  const auto ac = a * c, bd = b * d, ad = a * d, bc = b * c;
  auto re = ac - bd, im = ad + bc;
  if (re != re && im != im) {
    bool again = false;
    if (isinf(a) || isinf(b)) {
      a = berth_box(a); b = berth_box(b); c = berth_nan_to_zero(c); d = berth_nan_to_zero(d);
      again = true;
    }
    if (isinf(c) || isinf(d)) {
      c = berth_box(c); d = berth_box(d); a = berth_nan_to_zero(a); b = berth_nan_to_zero(b);
      again = true;
    }
    if (!again && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {
      a = berth_nan_to_zero(a); b = berth_nan_to_zero(b); c = berth_nan_to_zero(c); d = berth_nan_to_zero(d);
      again = true;
    }
    if (again) {
      re = berth_inf<decltype(a)>() * (a * c - b * d);
      im = berth_inf<decltype(a)>() * (a * d + b * c);
    }
  }
  return berth_complex(re, im);
}
// The NaN results of x / y that C's Annex G makes infinite or zero.
template <typename F> __device__ __forceinline__ void berth_cdiv_recover(F a, F b, F c, F d, F& re, F& im) {
  if (!(re != re && im != im)) return;
  if (c == 0 && d == 0 && (a == a || b == b)) {
    re = copysign(berth_inf<F>(), c) * a;
    im = copysign(berth_inf<F>(), c) * b;
  } else if ((isinf(a) || isinf(b)) && isfinite(c) && isfinite(d)) {
    a = berth_box(a); b = berth_box(b);
    re = berth_inf<F>() * (a * c + b * d);
    im = berth_inf<F>() * (b * c - a * d);
  } else if ((isinf(c) || isinf(d)) && isfinite(a) && isfinite(b)) {
    c = berth_box(c); d = berth_box(d);
    re = (F)0 * (a * c + b * d);
    im = (F)0 * (b * c - a * d);
  }
}
__device__ __forceinline__ berth_c64 berth_cdiv(berth_c64 x, berth_c64 y) {
  const double a = x.re, b = x.im, c = y.re, d = y.im, den = c * c + d * d;
  float re = (float)((a * c + b * d) / den), im = (float)((b * c - a * d) / den);
  berth_cdiv_recover(x.re, x.im, y.re, y.im, re, im);
  return berth_complex(re, im);
}
// Smith's method made robust (Baudin and Smith, 2012): operands near the
// ends of the range scaled first, and a ratio below the least normal double
// applied in the other order; recovery on the scaled values.
__device__ __forceinline__ berth_c128 berth_cdiv(berth_c128 x, berth_c128 y) {
  const double big = 8.98846567431157953865e+307;   // the largest double / 2
  const double tiny = 2.22507385850720138309e-308;  // the least normal double
  const double epsilon = 2.22044604925031308085e-16, middle = big * epsilon;
  double a = x.re, b = x.im, c = y.re, d = y.im, re, im;
  const bool by_d = fabs(c) < fabs(d);
  const double larger = by_d ? fabs(d) : fabs(c);
  if (larger >= big) { a /= 2; b /= 2; c /= 2; d /= 2; }
  const double scaled = larger >= big ? larger / 2 : larger;
  if (scaled < epsilon || (fabs(a) < tiny && fabs(b) < middle && scaled < middle) ||
      (fabs(b) < tiny && fabs(a) < middle && scaled < middle)) {
    a /= epsilon; b /= epsilon; c /= epsilon; d /= epsilon;
  }
  if (by_d) {
    const double ratio = c / d, den = c * ratio + d;
    if (fabs(ratio) > tiny) {
      re = (a * ratio + b) / den;
      im = (b * ratio - a) / den;
    } else {
      re = (c * (a / d) + b) / den;
      im = (c * (b / d) - a) / den;
    }
  } else {
    const double ratio = d / c, den = d * ratio + c;
    if (fabs(ratio) > tiny) {
      re = (b * ratio + a) / den;
      im = (b - a * ratio) / den;
    } else {
      re = (a + d * (b / c)) / den;
      im = (b - d * (a / c)) / den;
    }
  }
  berth_cdiv_recover(a, b, c, d, re, im);
  return berth_complex(re, im);
}
template <typename C> __device__ __forceinline__ auto berth_cabs(C z) { return hypot(z.re, z.im); }
// z / |z|; 0 stays 0 and a NaN part makes both parts NaN.
template <typename C> __device__ __forceinline__ C berth_csign(C z) {
  if (z.re != z.re || z.im != z.im) return berth_complex(berth_nan<decltype(z.re)>(), berth_nan<decltype(z.re)>());
  if (z.re == 0 && z.im == 0) return z;
  const auto magnitude = berth_cabs(z);
  return berth_complex(z.re / magnitude, z.im / magnitude);
}
// e^z - 1 and log(1 + z) as the cpu plugin writes them out of real
// functions (accurate near 0): (expm1(x) cos y - 2 sin^2(y/2)) + i e^x sin y;
// log|1 + z| as log1p(2x + x^2 + y^2) / 2 near the unit circle, else the
// log of the magnitude, + i atan2(y, 1 + x).
template <typename C> __device__ __forceinline__ C berth_cexpm1(C z) {
  typedef decltype(z.re) R;
  const R half_sin = sin(z.im / (R)2);
  return berth_complex(expm1(z.re) * cos(z.im) - (R)2 * half_sin * half_sin, exp(z.re) * sin(z.im));
}
template <typename C> __device__ __forceinline__ C berth_clog1p(C z) {
  typedef decltype(z.re) R;
  const R x = z.re, y = z.im;
  const R magnitude = hypot((R)1 + x, y);
  const R real = magnitude < (R)0.5 || magnitude > (R)2 ? log(magnitude)
                                                      : log1p(x * ((R)2 + x) + y * y) / (R)2;
  return berth_complex(real, atan2(y, (R)1 + x));
}
template <typename C> __device__ __forceinline__ bool berth_has_nan(C z) { return z.re != z.re || z.im != z.im; }
// Lexicographic on (real, imaginary); a NaN operand is the result.
template <typename C> __device__ __forceinline__ C berth_cmax(C a, C b) {
  if (berth_has_nan(a)) return a;
  if (berth_has_nan(b)) return b;
  return b.re > a.re || (a.re == b.re && b.im > a.im) ? b : a;
}
template <typename C> __device__ __forceinline__ C berth_cmin(C a, C b) {
  if (berth_has_nan(a)) return a;
  if (berth_has_nan(b)) return b;
  return a.re > b.re || (a.re == b.re && a.im > b.im) ? b : a;
}

// reduce_precision on the bits of a float format (MANT fraction bits, EXP
// exponent bits): rounded to `mantissa_bits` of fraction, ties to even (a
// carry moving to the exponent), then to the range of `exponent_bits`:
// above it inf, at or below its least normal exponent zero, both signed; a
// NaN stays itself (inf with no mantissa bits), as the cpu plugin computes it.
template <typename U, int MANT, int EXP>
__device__ __forceinline__ U berth_reduce_precision(U bits, int exponent_bits, int mantissa_bits) {
  const U sign_bit = (U)((U)1 << (sizeof(U) * 8 - 1));
  const U inf = (U)((((U)1 << EXP) - 1) << MANT);
  const U sign = (U)(bits & sign_bit);
  if ((U)(bits & (U)~sign_bit) > inf) return mantissa_bits > 0 ? bits : (U)(sign | inf);
  U result = bits;
  if (mantissa_bits < MANT) {
    const int shift = MANT - mantissa_bits;
    const U half_minus_one = (U)(((U)1 << (shift - 1)) - 1);
    const U keep = (U)~(U)(((U)1 << shift) - 1);
    const U last_kept = (U)((bits >> shift) & 1);
    result = (U)((U)(bits + half_minus_one + last_kept) & keep);
  }
  if (exponent_bits < EXP) {
    const long long source_bias = (1LL << (EXP - 1)) - 1, target_bias = (1LL << (exponent_bits - 1)) - 1;
    const long long exponent = (long long)((U)(result & (U)~sign_bit) >> MANT);
    if (exponent > source_bias + target_bias) result = (U)(sign | inf);
    else if (exponent <= source_bias - target_bias) result = sign;
  }
  return result;
}

// Truncates toward zero, saturates at the bounds, NaN gives 0.
template <typename T, typename F> __device__ __forceinline__ T berth_float_to_int(F x) {
  if (x != x) return 0;
  // 2^(bits-1) for a signed type, 2^bits for an unsigned one; exact in F.
  const F bound = berth_limits<T>::lo < 0 ? -(F)berth_limits<T>::lo
                                          : (F)2 * ((F)(berth_limits<T>::hi / 2) + (F)1);
  if (berth_limits<T>::lo < 0) {
    if (x <= -bound) return berth_limits<T>::lo;
  } else if (x <= (F)0) {
    return 0;
  }
  if (x >= bound) return berth_limits<T>::hi;
  return (T)x;
}
// Total order keys: -NaN < -inf < ... < -0 < +0 < ... < inf < NaN.
__device__ __forceinline__ berth_s32 berth_total_key(float f) {
  berth_s32 x = __float_as_int(f);
  return x < 0 ? x ^ 0x7fffffff : x;
}
__device__ __forceinline__ berth_s64 berth_total_key(double d) {
  berth_s64 x = __double_as_longlong(d);
  return x < 0 ? x ^ 0x7fffffffffffffffLL : x;
}

// ---- integer semantics (wrapping arithmetic through the unsigned type).
template <typename T> __device__ __forceinline__ T berth_iadd(T a, T b) { typedef typename berth_limits<T>::U U; return (T)(U)((U)a + (U)b); }
template <typename T> __device__ __forceinline__ T berth_isub(T a, T b) { typedef typename berth_limits<T>::U U; return (T)(U)((U)a - (U)b); }
template <typename T> __device__ __forceinline__ T berth_imul(T a, T b) {
  typedef typename berth_limits<T>::U U;
  return (T)(U)((berth_u64)(U)a * (berth_u64)(U)b);
}
template <typename T> __device__ __forceinline__ T berth_ineg(T a) { typedef typename berth_limits<T>::U U; return (T)(U)((U)0 - (U)a); }
template <typename T> __device__ __forceinline__ T berth_iabs(T a) { return a < 0 ? berth_ineg(a) : a; }
template <typename T> __device__ __forceinline__ T berth_isign(T a) { return a > 0 ? (T)1 : (a < 0 ? (T)-1 : (T)0); }
template <typename T> __device__ __forceinline__ T berth_idiv(T a, T b) {
  if (b == 0) return 0;
  if (berth_limits<T>::lo < 0 && b == (T)-1) return a == berth_limits<T>::lo ? (T)0 : berth_ineg(a);
  return (T)(a / b);
}
template <typename T> __device__ __forceinline__ T berth_irem(T a, T b) {
  if (b == 0) return 0;
  if (berth_limits<T>::lo < 0 && b == (T)-1) return 0;
  return (T)(a % b);
}
template <typename T> __device__ __forceinline__ T berth_ipow(T base, T exponent) {
  if (berth_limits<T>::lo < 0 && exponent < 0) {
    if (base == 1) return 1;
    if (base == (T)-1) return (exponent & 1) ? (T)-1 : (T)1;
    return 0;
  }
  berth_u64 result = 1, square = (berth_u64)(typename berth_limits<T>::U)base;
  for (berth_u64 e = (berth_u64)(typename berth_limits<T>::U)exponent; e != 0; e >>= 1) {
    if (e & 1u) result *= square;
    square *= square;
  }
  return (T)(typename berth_limits<T>::U)result;
}
// Shift amounts are read unsigned; at or past the width: 0 (or the sign).
template <typename T> __device__ __forceinline__ T berth_shl(T a, T b) {
  typedef typename berth_limits<T>::U U;
  return (U)b >= (U)berth_limits<T>::bits ? (T)0 : (T)(U)((U)a << (U)b);
}
template <typename T> __device__ __forceinline__ T berth_shr_logical(T a, T b) {
  typedef typename berth_limits<T>::U U;
  return (U)b >= (U)berth_limits<T>::bits ? (T)0 : (T)(U)((U)a >> (U)b);
}
// Arithmetic: the top bit fills, for unsigned types too (as the reference
// interpreter's APInt::ashr and XLA do).
template <typename T> __device__ __forceinline__ T berth_shr_arithmetic(T a, T b) {
  typedef typename berth_limits<T>::U U;
  typedef typename berth_limits<T>::S S;
  const S bits = (S)(U)a;
  if ((U)b >= (U)berth_limits<T>::bits) return (T)(U)(bits < 0 ? (S)-1 : (S)0);
  return (T)(U)(S)(bits >> (U)b);
}
// chlo.mulhi: the high half of the full product (signed or unsigned as T).
template <typename T> __device__ __forceinline__ T berth_mulhi(T a, T b) {
  if (berth_limits<T>::bits == 64) {
    return berth_limits<T>::lo < 0 ? (T)__mul64hi((long long)a, (long long)b)
                                   : (T)__umul64hi((unsigned long long)a, (unsigned long long)b);
  }
  if (berth_limits<T>::lo < 0) return (T)(((berth_s64)a * (berth_s64)b) >> (berth_limits<T>::bits & 63));
  return (T)(((berth_u64)a * (berth_u64)b) >> (berth_limits<T>::bits & 63));
}
// A start index as the cpu plugin reads it (unsigned values above the
// largest i64 saturate), and clamped to [0, hi].
template <typename T> __device__ __forceinline__ berth_s64 berth_to_index(T v) {
  if (berth_limits<T>::lo == 0 && berth_limits<T>::bits == 64 && (berth_u64)v > 0x7fffffffffffffffULL)
    return 0x7fffffffffffffffLL;
  return (berth_s64)v;
}
// floor(a / b) for b > 0.
__device__ __forceinline__ berth_s64 berth_floor_div(berth_s64 a, berth_s64 b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
__device__ __forceinline__ berth_s64 berth_clamp_index(berth_s64 v, berth_s64 hi) {
  return v < 0 ? 0 : v > hi ? hi : v;
}
template <typename T> __device__ __forceinline__ T berth_popcnt(T a) {
  return (T)__popcll((berth_u64)(typename berth_limits<T>::U)a);
}
template <typename T> __device__ __forceinline__ T berth_clz(T a) {
  berth_u64 bits = (berth_u64)(typename berth_limits<T>::U)a;
  return (T)(__clzll((long long)bits) - (64 - berth_limits<T>::bits));
}
)cuda";
  return kPrelude;
}

}  // namespace berth::cuda
