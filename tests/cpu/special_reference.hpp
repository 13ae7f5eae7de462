// Independent references for the CHLO special-function tests: each in
// long double, by a method other than the plugin's where the plugin has its
// own algorithm (plugins/cpu/interpreter/special_functions.hpp), with the
// edge cases CHLO's decompositions give.
#ifndef BERTH_TESTS_CPU_SPECIAL_REFERENCE_HPP_
#define BERTH_TESTS_CPU_SPECIAL_REFERENCE_HPP_

#include <math.h>

#include <cmath>
#include <limits>

namespace berth::testing::reference {

inline constexpr long double kPi = 3.141592653589793238462643383279502884L;
inline constexpr long double kNaN = std::numeric_limits<long double>::quiet_NaN();
inline constexpr long double kInf = std::numeric_limits<long double>::infinity();

// sin(pi x) for any x: exact reduction to r = x - round(x) in [-1/2, 1/2].
inline long double SinPi(long double x) {
  long double n = nearbyintl(x);
  long double s = sinl(kPi * (x - n));
  return fmodl(n, 2.0L) == 0 ? s : -s;
}

// log|Gamma(x)|: reflection below 1/2, the recurrence up to 20, then
// Stirling's series to the x^-13 term.
inline long double Lgamma(long double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return kInf;
  if (x <= 0 && x == floorl(x)) return kInf;
  if (x < 0.5L) return logl(kPi / fabsl(SinPi(x))) - Lgamma(1 - x);
  long double log_product = 0, product = 1;
  while (x < 20) {
    product *= x;
    x += 1;
  }
  log_product = logl(product);
  long double inv = 1 / x, inv2 = inv * inv;
  long double series =
      inv * (1.0L / 12 - inv2 * (1.0L / 360 - inv2 * (1.0L / 1260 - inv2 * (1.0L / 1680 - inv2 * (1.0L / 1188 - inv2 * (691.0L / 360360 - inv2 / 156))))));
  return (x - 0.5L) * logl(x) - x + 0.5L * logl(2 * kPi) + series - log_product;
}

// digamma: NaN at 0, the negative integers and -inf; reflection with
// pi cos(pi x) / sin(pi x); the recurrence up to 40; the asymptotic series
// to x^-10.
inline long double Digamma(long double x) {
  if (std::isnan(x)) return x;
  if (x == kInf) return kInf;
  if (x <= 0 && x == floorl(x)) return kNaN;
  if (x < 0.5L) {
    long double r = x - nearbyintl(x);
    return Digamma(1 - x) - kPi * cosl(kPi * r) / sinl(kPi * r);
  }
  long double shift = 0;
  for (; x < 40; x += 1) shift += 1 / x;
  long double inv2 = 1 / (x * x);
  long double series =
      inv2 * (1.0L / 12 - inv2 * (1.0L / 120 - inv2 * (1.0L / 252 - inv2 * (1.0L / 240 - inv2 / 132))));
  return logl(x) - 0.5L / x - series - shift;
}

// The inverse of erf by bisection on erf (erfc above 1/2).
inline long double ErfInv(long double x) {
  if (std::isnan(x) || fabsl(x) > 1) return kNaN;
  if (fabsl(x) == 1) return copysignl(kInf, x);
  if (x == 0) return x;
  long double a = fabsl(x), lo = 0, hi = 10;
  for (int i = 0; i < 1200 && hi - lo > lo * 1e-22L; ++i) {
    long double mid = (lo + hi) / 2;
    long double f = a < 0.5L ? erfl(mid) - a : (1 - a) - erfcl(mid);
    (f < 0 ? lo : hi) = mid;
  }
  return copysignl((lo + hi) / 2, x);
}

// Hurwitz zeta by 2000 direct terms and a short Euler-Maclaurin tail, with
// CHLO's domain: +inf at s = 1, poles at integer q <= 0 (+inf for even
// integer s, else NaN), NaN for s < 1 and for q <= 0 with s not an integer.
inline long double Zeta(long double s, long double q) {
  if (s == 1) return kInf;
  if (std::isnan(s) || std::isnan(q)) return kNaN;
  bool s_integer = s == floorl(s);
  if (q <= 0 && q == floorl(q)) return s_integer && fmodl(s, 2) == 0 ? kInf : kNaN;
  if (s < 1 || (q <= 0 && !s_integer)) return kNaN;
  if (std::isinf(s)) return q > 1 ? 0 : q == 1 ? 1 : kInf;
  if (q == kInf) return 0;
  long double sum = 0, a = q;
  for (int k = 0; k < 2000; ++k, a += 1) sum += powl(a, -s);
  long double t = powl(a, -s);
  sum += a * t / (s - 1) + t / 2 + s * t / a / 12 -
         s * (s + 1) * (s + 2) * t / (a * a * a) / 720 +
         s * (s + 1) * (s + 2) * (s + 3) * (s + 4) * t / powl(a, 5) / 30240;
  return sum;
}

// polygamma(n, x): digamma for n = 0, (-1)^(n+1) n! zeta(n+1, x) for a
// natural n, NaN otherwise.
inline long double Polygamma(long double n, long double x) {
  if (std::isnan(n) || std::isnan(x) || n < 0 || n != floorl(n) || std::isinf(n)) return kNaN;
  if (n == 0) return Digamma(x);
  long double sign = fmodl(n, 2) == 0 ? -1 : 1;
  return sign * tgammal(n + 1) * Zeta(n + 1, x);
}

// exp(-|x|) I1(x): the power series (positive terms; I1 stays inside long
// double's range) up to |x| = 5000, four terms of the asymptotic series
// above (their error is below 1e-24 there).
inline long double BesselI1e(long double x) {
  if (std::isnan(x)) return x;
  long double a = fabsl(x);
  long double result;
  if (a <= 5000) {
    long double term = a / 2, sum = term, q = a * a / 4;
    for (int k = 0; k < 20000 && term > sum * 1e-22L; ++k) {
      term *= q / ((k + 1.0L) * (k + 2.0L));
      sum += term;
    }
    result = sum * expl(-a);
  } else {
    long double inv = 1 / (8 * a);
    result = (1 - 3 * inv - 15 * inv * inv / 2 - 315 * inv * inv * inv / 6 -
              14175 * inv * inv * inv * inv / 24) / sqrtl(2 * kPi * a);
  }
  return copysignl(result, x);
}

}  // namespace berth::testing::reference

#endif  // BERTH_TESTS_CPU_SPECIAL_REFERENCE_HPP_
