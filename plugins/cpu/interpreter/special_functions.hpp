// Special functions of CHLO that the C library does not have (erf_inv,
// digamma, polygamma, Hurwitz zeta, bessel_i1e) and lgamma without the
// global `signgam`, for one element, in a wide type W: double for f32, f16
// and bf16 results, long double (x87, 64-bit significand) for f64 results,
// so that the one rounding to the element type is the only sizeable error.
//
// The edge cases are CHLO's (its decompositions into StableHLO, which JAX
// programs get on every other backend): digamma is NaN at its poles (0 and
// the negative integers, -inf), zeta(x, q) is NaN for x < 1 and for q <= 0
// with a non-integer x, +inf at x = 1 and at integer q <= 0 when x is an
// even integer (NaN otherwise), polygamma(n, x) is NaN unless n is a
// natural number. Each is plain scalar code on IEEE operations and the C
// library's functions of W, so every ISA variant computes the same bits.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_SPECIAL_FUNCTIONS_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_SPECIAL_FUNCTIONS_HPP_

#include <math.h>

#include <cmath>
#include <limits>

namespace berth::cpu::special {

template <typename W>
inline constexpr W kPi = static_cast<W>(3.141592653589793238462643383279502884L);

// log|Gamma(x)| (glibc's reentrant functions; std::lgamma writes signgam).
inline double Lgamma(double x) {
  int sign;
  return ::lgamma_r(x, &sign);
}
inline long double Lgamma(long double x) {
  int sign;
  return ::lgammal_r(x, &sign);
}

// ---------------------------------------------------------------- erf_inv

// Inverse of erf on [-1, 1]: +-inf at +-1, NaN outside, sign of zero kept.
// A start from Giles' single-precision approximation ("Approximating the
// erfinv function", GPU Computing Gems, 2011), then Halley steps on
// erf(y) = a (erfc(y) = 1 - a above 0.5, where 1 - a is exact), which
// converge cubically.
template <typename W>
W ErfInv(W x) {
  if (x != x) return x;
  W a = std::fabs(x);
  if (a > W(1)) return std::numeric_limits<W>::quiet_NaN();
  if (a == W(1)) return std::copysign(std::numeric_limits<W>::infinity(), x);
  if (a == W(0)) return x;
  const W complement = W(1) - a;  // exact for a >= 0.5
  W w = a < W(0.5) ? -std::log1p(-a * a) : -(std::log(complement) + std::log1p(a));
  W p;
  if (w < W(5)) {
    w -= W(2.5);
    p = W(2.81022636e-08L);
    p = W(3.43273939e-07L) + p * w;
    p = W(-3.5233877e-06L) + p * w;
    p = W(-4.39150654e-06L) + p * w;
    p = W(0.00021858087L) + p * w;
    p = W(-0.00125372503L) + p * w;
    p = W(-0.00417768164L) + p * w;
    p = W(0.246640727L) + p * w;
    p = W(1.50140941L) + p * w;
  } else {
    w = std::sqrt(w) - W(3);
    p = W(-0.000200214257L);
    p = W(0.000100950558L) + p * w;
    p = W(0.00134934322L) + p * w;
    p = W(-0.00367342844L) + p * w;
    p = W(0.00573950773L) + p * w;
    p = W(-0.0076224613L) + p * w;
    p = W(0.00943887047L) + p * w;
    p = W(1.00167406L) + p * w;
    p = W(2.83297682L) + p * w;
  }
  W y = p * a;
  const W two_over_sqrt_pi = W(1.128379167095512573896158903121545172L);
  const W tolerance = std::numeric_limits<W>::epsilon() * W(4);
  for (int i = 0; i < 8; ++i) {
    // g(y) = erf(y) - a, g' = 2/sqrt(pi) exp(-y^2), g'' = -2y g'.
    W g = a < W(0.5) ? std::erf(y) - a : complement - std::erfc(y);
    W u = g / (two_over_sqrt_pi * std::exp(-y * y));
    W step = u / (W(1) + y * u);
    y -= step;
    if (!(std::fabs(step) > std::fabs(y) * tolerance)) break;
  }
  return std::copysign(y, x);
}

// ---------------------------------------------------------------- digamma

// Bernoulli numbers B2, B4, ..., B24.
template <typename W>
inline constexpr W kBernoulli[12] = {
    W(1.0L / 6),          W(-1.0L / 30),         W(1.0L / 42),          W(-1.0L / 30),
    W(5.0L / 66),         W(-691.0L / 2730),     W(7.0L / 6),           W(-3617.0L / 510),
    W(43867.0L / 798),    W(-174611.0L / 330),   W(854513.0L / 138),    W(-236364091.0L / 2730),
};

// digamma(x) for x >= 16: ln x - 1/(2x) - sum B_2k / (2k x^2k), k = 1..9
// (the next term is below 1e-23 there).
template <typename W>
W DigammaAsymptotic(W x) {
  W inv2 = W(1) / (x * x);
  W sum = W(0);
  for (int k = 9; k >= 1; --k) sum = sum * inv2 + kBernoulli<W>[k - 1] / W(2 * k);
  return std::log(x) - W(0.5) / x - sum * inv2;
}

// digamma(x) = d/dx ln Gamma(x). Below 0.5 by reflection,
// digamma(1 - x) - pi cot(pi x), with the cotangent of the reduced argument
// x - round(x) (exact); above, the recurrence digamma(x) = digamma(x + 1) -
// 1/x up to 16, then the asymptotic series.
template <typename W>
W Digamma(W x) {
  if (x != x) return x;
  if (x == std::numeric_limits<W>::infinity()) return x;
  if (x <= W(0) && x == std::floor(x)) return std::numeric_limits<W>::quiet_NaN();
  W reflection = W(0);
  if (x < W(0.5)) {
    W r = x - std::nearbyint(x);
    reflection = kPi<W> / std::tan(kPi<W> * r);
    x = W(1) - x;
  }
  W shift = W(0);
  while (x < W(16)) {
    shift += W(1) / x;
    x += W(1);
  }
  return DigammaAsymptotic(x) - shift - reflection;
}

// ---------------------------------------------------------------- zeta

// Hurwitz zeta(s, q) = sum over k >= 0 of (q + k)^-s, for s > 1 and
// q > 0. Terms are summed directly up to a = q + N with a >= max(12,
// s + 24), where the twelve terms of the Euler-Maclaurin tail
//   a^(1-s) / (s-1) + a^-s / 2 + sum_j B_2j / (2j)! s (s+1)...(s+2j-2) a^(-s-2j+1)
// reach below long double's precision (successive terms shrink by about
// ((s + 2j) / (2 pi a))^2 <= 1/40); the direct sum stops early once the
// rest no longer matters.
template <typename W>
W ZetaPositive(W s, W q) {
  constexpr int kTerms = 12;
  W target = std::fmax(W(12), s + W(2 * kTerms));
  W needed = std::ceil(target - q);
  long terms = needed > W(0) ? static_cast<long>(std::fmin(needed, W(1 << 20))) : 0;
  const W tiny = std::numeric_limits<W>::epsilon() / W(64);
  W sum = W(0);
  W a = q;
  for (long k = 0; k < terms; ++k, a += W(1)) {
    W t = std::pow(a, -s);
    sum += t;
    // The rest sums to about t (1 + a / (s-1)).
    if (k > 0 && t * (W(1) + a / (s - W(1))) <= sum * tiny) return sum;
  }
  W t = std::pow(a, -s);
  sum += a * t / (s - W(1)) + t / W(2);
  // term_j = B_2j / (2j)! * s (s+1) ... (s+2j-2) * a^(-s-2j+1)
  W factor = s / a * t;  // s * a^(-s-1)
  W factorial = W(2);    // (2j)!
  for (int j = 1; j <= kTerms; ++j) {
    W term = kBernoulli<W>[j - 1] / factorial * factor;
    sum += term;
    if (std::fabs(term) <= sum * tiny) break;
    factor *= (s + W(2 * j - 1)) * (s + W(2 * j)) / (a * a);
    factorial *= W(2 * j + 1) * W(2 * j + 2);
  }
  return sum;
}

// zeta(s, q) for s > 1 and q > 0, or an integer s and a non-integer q < 0:
// with m = ceil(-q), the terms up to k = m - 1 are negative, of magnitudes
// u, u + 1, ..., u + m - 1 with u = 1 - (q + m), so they sum to
// (-1)^s (zeta(s, u) - zeta(s, u + m)); the rest is zeta(s, q + m). For odd
// s the large zeta(s, q + m) - zeta(s, u) is taken first: exactly 0 at the
// half-integers, where zeta(s, -k - 1/2) is zeta(s, k + 3/2).
template <typename W>
W ZetaSum(W s, W q) {
  if (q > W(0)) return ZetaPositive(s, q);
  W m = std::ceil(-q);
  W p = q + m;  // in (0, 1); exact unless q is a tiny negative number
  if (p - m != q) return std::pow(q, -s) + ZetaPositive(s, p);  // then q^-s is all that counts
  W u = W(1) - p;
  W sign = std::fmod(s, W(2)) == W(0) ? W(1) : W(-1);
  return (ZetaPositive(s, p) + sign * ZetaPositive(s, u)) - sign * ZetaPositive(s, u + m);
}

template <typename W>
W Zeta(W s, W q) {
  const W nan = std::numeric_limits<W>::quiet_NaN();
  const W inf = std::numeric_limits<W>::infinity();
  // CHLO's order of precedence: the harmonic series, the poles, the domain.
  if (s == W(1)) return inf;
  if (s != s || q != q) return nan;
  const bool s_integer = s == std::floor(s);
  if (q <= W(0) && q == std::floor(q)) {
    return s_integer && std::fmod(s, W(2)) == W(0) ? inf : nan;
  }
  if (s < W(1)) return nan;
  if (q <= W(0) && !s_integer) return nan;
  if (s == inf) return q > W(1) ? W(0) : q == W(1) ? W(1) : inf;
  if (q == inf) return W(0);
  return ZetaSum(s, q);
}

// polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x) for natural n >= 1,
// digamma(x) for n = 0, NaN when n is not a natural number.
template <typename W>
W Polygamma(W n, W x) {
  if (n != n || x != x) return std::numeric_limits<W>::quiet_NaN();
  if (n < W(0) || n != std::floor(n) || std::isinf(n)) return std::numeric_limits<W>::quiet_NaN();
  if (n == W(0)) return Digamma(x);
  W zeta = Zeta(n + W(1), x);
  W sign = std::fmod(n, W(2)) == W(0) ? W(-1) : W(1);
  if (zeta == W(0) || zeta != zeta || std::isinf(zeta)) {
    return sign * std::exp(Lgamma(n + W(1))) * zeta;
  }
  // n! may overflow where n! zeta does not: multiply in logarithms.
  W magnitude = std::exp(Lgamma(n + W(1)) + std::log(std::fabs(zeta)));
  return zeta < W(0) ? -sign * magnitude : sign * magnitude;
}

// ---------------------------------------------------------------- bessel_i1e

// exp(-|x|) I1(x), odd in x. The power series of I1 (all terms positive)
// up to |x| = 30, the asymptotic expansion
//   1/sqrt(2 pi x) sum_k (-1)^k prod_{j<=k} (4 - (2j-1)^2) / (k! (8x)^k)
// above, where its smallest term is below exp(-2|x|) < 1e-26.
template <typename W>
W BesselI1e(W x) {
  if (x != x) return x;
  W a = std::fabs(x);
  const W tiny = std::numeric_limits<W>::epsilon() / W(8);
  W result;
  if (a <= W(30)) {
    W quarter_square = a * a / W(4);
    W term = a / W(2);
    W sum = term;
    for (int k = 0; k < 200; ++k) {
      term *= quarter_square / (W(k + 1) * W(k + 2));
      sum += term;
      if (term <= sum * tiny) break;
    }
    result = sum * std::exp(-a);
  } else {
    W term = W(1);
    W sum = W(1);
    for (int k = 1; k < 200; ++k) {
      W next = term * (W((2 * k - 1) * (2 * k - 1)) - W(4)) / (W(8 * k) * a);
      if (std::fabs(next) >= std::fabs(term)) break;  // the series turns to diverge
      term = next;
      sum += term;
      if (std::fabs(term) <= std::fabs(sum) * tiny) break;
    }
    result = sum / std::sqrt(W(2) * kPi<W> * a);
  }
  return std::copysign(result, x);
}

}  // namespace berth::cpu::special

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_SPECIAL_FUNCTIONS_HPP_
