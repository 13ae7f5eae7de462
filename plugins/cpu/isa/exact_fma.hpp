// Fused multiply-add without FMA instructions, exact: the x86-64-v2 variant's
// matrix products (gemm.cc) use these so that they give the same bits as
// the AVX2 and AVX-512 variants, which use the instructions.
//
// Both work on two lanes of doubles (SSE2 registers, GCC vector extensions)
// and rely on IEEE double arithmetic rounded to nearest with no contraction
// and no reassociation (the cpu plugin builds with -ffp-contract=off).
//
// - FmaF32: lanes hold f32 values widened to double. The product is exact
//   in double (24 + 24 bits). The double sum rounded to float is the fma
//   unless that sum is a float midpoint or subnormal as a float; then the
//   sum is rounded to odd in double instead (its error from TwoSum decides
//   the last bit), and rounding that to float gives the correctly rounded
//   fma (53 >= 24 + 2 bits: the rounding-to-odd theorem).
// - FmaF64: Boldo and Melquiond's emulation ("Emulation of FMA and correctly
//   rounded sums: proved algorithms using rounding to odd", IEEE Trans.
//   Computers 57(4), 2008): the exact product as two doubles (Dekker), two
//   exact sums, one sum rounded to odd, one final rounding. It needs every
//   intermediate free of overflow and underflow; lanes outside a safe range
//   of magnitudes, and lanes with a zero operand (where the signs of zero
//   would come out wrong), take exact slower paths.
#ifndef BERTH_PLUGINS_CPU_ISA_EXACT_FMA_HPP_
#define BERTH_PLUGINS_CPU_ISA_EXACT_FMA_HPP_

#include <cmath>
#include <cstdint>

namespace berth::cpu::isa::exact {

typedef double D2 __attribute__((vector_size(16)));
typedef int64_t I2 __attribute__((vector_size(16)));
typedef float F2 __attribute__((vector_size(8)));

// s + e rounded to odd, where s = RN(x + y) and e = x + y - s exactly: s when
// exact, else the neighbour of s on e's side when s's last bit is even.
inline D2 RoundToOdd(D2 s, D2 e) {
  const I2 bits = reinterpret_cast<I2>(s);
  const I2 e_bits = reinterpret_cast<I2>(e);
  const int64_t kExponent = 0x7FF0000000000000;
  const I2 finite = (bits & kExponent) != kExponent;
  const I2 inexact = e != 0.0;
  const I2 even = (bits & 1) == 0;
  const I2 same_sign = (bits ^ e_bits) >= 0;       // -1 or 0
  const I2 step = (same_sign & 2) - 1;             // +1 away from zero, -1 towards
  return reinterpret_cast<D2>(bits + (step & (finite & inexact & even)));
}

// x + y = s + e exactly (Knuth's TwoSum; no overflow).
inline void TwoSum(D2 x, D2 y, D2& s, D2& e) {
  s = x + y;
  const D2 virtual_y = s - x;
  e = (x - (s - virtual_y)) + (y - virtual_y);
}

// RN_f32(a * b + c) for f32 values held as doubles, as a double.
inline D2 FmaF32(D2 a, D2 b, D2 c) {
  const D2 product = a * b;  // exact
  D2 sum = product + c;
  // Rounding the double sum to float is already right unless it lies
  // exactly halfway between two floats (the one case where a first rounding
  // can move a value across a float rounding boundary: those boundaries are
  // doubles) or below the normal floats (where float's ulp is larger).
  const I2 bits = reinterpret_cast<I2>(sum);
  const I2 halfway = (bits & 0x1FFFFFFF) == 0x10000000;
  const I2 small = (bits & 0x7FF0000000000000) < (int64_t{1023 - 126} << 52);
  const I2 slow = halfway | small;
  if (__builtin_expect(slow[0] != 0 || slow[1] != 0, 0)) {
    D2 error;
    TwoSum(product, c, sum, error);
    sum = RoundToOdd(sum, error);
  }
  return __builtin_convertvector(__builtin_convertvector(sum, F2), D2);
}

// a * b = hi + lo exactly when no intermediate overflows or underflows
// (Dekker's product with Veltkamp's split).
inline void TwoProduct(D2 a, D2 b, D2& hi, D2& lo) {
  const double kSplit = 134217729.0;  // 2^27 + 1
  const D2 ta = kSplit * a;
  const D2 a_hi = ta - (ta - a);
  const D2 a_lo = a - a_hi;
  const D2 tb = kSplit * b;
  const D2 b_hi = tb - (tb - b);
  const D2 b_lo = b - b_hi;
  hi = a * b;
  lo = ((a_hi * b_hi - hi) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo;
}

// -1 in lanes whose magnitude lies strictly between 2^-e and 2^e.
inline I2 InRange(D2 x, int e) {
  const D2 magnitude = reinterpret_cast<D2>(reinterpret_cast<I2>(x) & INT64_MAX);
  return (magnitude > std::ldexp(1.0, -e)) & (magnitude < std::ldexp(1.0, e));
}

// RN(a * b + c) in double.
inline D2 FmaF64(D2 a, D2 b, D2 c) {
  // With a zero operand one rounding does: when a or b is zero a*b is
  // exactly +-0 and the result is RN(a*b + c); when only c is, the result is
  // RN(a*b) (also when that underflows to a zero of the product's sign).
  const I2 zero_ab = (a == 0.0) | (b == 0.0);
  const I2 zero = zero_ab | (c == 0.0);
  const D2 product = a * b;
  const D2 plain = reinterpret_cast<D2>((reinterpret_cast<I2>(product + c) & zero_ab) |
                                        (reinterpret_cast<I2>(product) & ~zero_ab));
  const I2 safe = InRange(a, 400) & InRange(b, 400) & InRange(c, 900);
  const I2 fast = zero | safe;
  D2 uh, ul, th, tl, vh, vl, wh, wl;
  TwoProduct(a, b, uh, ul);
  TwoSum(c, ul, th, tl);
  TwoSum(uh, th, vh, vl);
  TwoSum(tl, vl, wh, wl);
  D2 result = vh + RoundToOdd(wh, wl);
  result = reinterpret_cast<D2>((reinterpret_cast<I2>(plain) & zero) |
                                (reinterpret_cast<I2>(result) & ~zero));
  if (__builtin_expect(fast[0] == 0 || fast[1] == 0, 0)) {
    // Huge, tiny, infinite or NaN operands: the C library's fma, exact on
    // every CPU (in software where there is no instruction).
    for (int lane = 0; lane < 2; ++lane) {
      if (fast[lane] == 0) result[lane] = std::fma(a[lane], b[lane], c[lane]);
    }
  }
  return result;
}

}  // namespace berth::cpu::isa::exact

#endif  // BERTH_PLUGINS_CPU_ISA_EXACT_FMA_HPP_
