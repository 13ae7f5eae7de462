#include "codegen/kernel_prelude.hpp"

#include <string>

namespace berth::cuda {

// The cpu plugin's special functions (plugins/cpu/interpreter/
// special_functions.hpp: the same algorithms, constants and edge cases), in
// double: the cpu plugin computes f32, f16 and bf16 results in double too,
// and f64 results (and polygamma and zeta of every type) in x87 long double,
// which a GPU does not have.
std::string_view KernelSpecialFunctions() {
  static constexpr std::string_view kSpecialFunctions = R"cuda(
// ---- CHLO's special functions, in double.
__device__ __forceinline__ double berth_quiet_nan() { return __longlong_as_double(0x7ff8000000000000LL); }
__device__ __forceinline__ double berth_infinity() { return __longlong_as_double(0x7ff0000000000000LL); }
#define BERTH_PI 3.141592653589793238462643383279502884

// Inverse of erf: Giles' single-precision start, then Halley steps on
// erf(y) = a (1 - a against erfc above 0.5, where 1 - a is exact).
__device__ __forceinline__ double berth_erf_inv(double x) {
  if (x != x) return x;
  const double a = fabs(x);
  if (a > 1.0) return berth_quiet_nan();
  if (a == 1.0) return copysign(berth_infinity(), x);
  if (a == 0.0) return x;
  const double complement = 1.0 - a;
  double w = a < 0.5 ? -log1p(-a * a) : -(log(complement) + log1p(a));
  double p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double y = p * a;
  const double two_over_sqrt_pi = 1.128379167095512573896158903121545172;
  const double tolerance = 2.220446049250313080847263336181640625e-16 * 4.0;
  for (int i = 0; i < 8; ++i) {
    const double g = a < 0.5 ? erf(y) - a : complement - erfc(y);
    const double u = g / (two_over_sqrt_pi * exp(-y * y));
    const double step = u / (1.0 + y * u);
    y -= step;
    if (!(fabs(step) > fabs(y) * tolerance)) break;
  }
  return copysign(y, x);
}

// B2, B4, ..., B24.
__device__ __forceinline__ double berth_bernoulli(int k) {
  switch (k) {
    case 0: return 1.0 / 6; case 1: return -1.0 / 30; case 2: return 1.0 / 42;
    case 3: return -1.0 / 30; case 4: return 5.0 / 66; case 5: return -691.0 / 2730;
    case 6: return 7.0 / 6; case 7: return -3617.0 / 510; case 8: return 43867.0 / 798;
    case 9: return -174611.0 / 330; case 10: return 854513.0 / 138;
    default: return -236364091.0 / 2730;
  }
}

// digamma: reflection below 0.5 (the cotangent of x - round(x)), the
// recurrence up to 16, then the asymptotic series.
__device__ __forceinline__ double berth_digamma(double x) {
  if (x != x) return x;
  if (x == berth_infinity()) return x;
  if (x <= 0.0 && x == floor(x)) return berth_quiet_nan();
  double reflection = 0.0;
  if (x < 0.5) {
    const double r = x - nearbyint(x);
    reflection = BERTH_PI / tan(BERTH_PI * r);
    x = 1.0 - x;
  }
  double shift = 0.0;
  while (x < 16.0) {
    shift += 1.0 / x;
    x += 1.0;
  }
  const double inv2 = 1.0 / (x * x);
  double sum = 0.0;
  for (int k = 9; k >= 1; --k) sum = sum * inv2 + berth_bernoulli(k - 1) / (double)(2 * k);
  return ((log(x) - 0.5 / x - sum * inv2) - shift) - reflection;
}

// Hurwitz zeta(s, q) for s > 1, q > 0: direct terms, then the
// Euler-Maclaurin tail of twelve terms.
__device__ __forceinline__ double berth_zeta_positive(double s, double q) {
  const double target = fmax(12.0, s + 24.0);
  const double needed = ceil(target - q);
  const long long terms = needed > 0.0 ? (long long)fmin(needed, (double)(1 << 20)) : 0;
  const double tiny = 2.220446049250313080847263336181640625e-16 / 64.0;
  double sum = 0.0, a = q;
  for (long long k = 0; k < terms; ++k, a += 1.0) {
    const double t = pow(a, -s);
    sum += t;
    if (k > 0 && t * (1.0 + a / (s - 1.0)) <= sum * tiny) return sum;
  }
  const double t = pow(a, -s);
  sum += a * t / (s - 1.0) + t / 2.0;
  double factor = s / a * t, factorial = 2.0;
  for (int j = 1; j <= 12; ++j) {
    const double term = berth_bernoulli(j - 1) / factorial * factor;
    sum += term;
    if (fabs(term) <= sum * tiny) break;
    factor *= (s + (double)(2 * j - 1)) * (s + (double)(2 * j)) / (a * a);
    factorial *= (double)(2 * j + 1) * (double)(2 * j + 2);
  }
  return sum;
}

__device__ __forceinline__ double berth_zeta_sum(double s, double q) {
  if (q > 0.0) return berth_zeta_positive(s, q);
  const double m = ceil(-q);
  const double p = q + m;
  if (p - m != q) return pow(q, -s) + berth_zeta_positive(s, p);
  const double u = 1.0 - p;
  const double sign = fmod(s, 2.0) == 0.0 ? 1.0 : -1.0;
  return (berth_zeta_positive(s, p) + sign * berth_zeta_positive(s, u)) -
         sign * berth_zeta_positive(s, u + m);
}

// zeta(s, q) with CHLO's edge cases: the harmonic series, the poles, the
// domain, in that order.
__device__ __forceinline__ double berth_zeta(double s, double q) {
  const double nan = berth_quiet_nan(), inf = berth_infinity();
  if (s == 1.0) return inf;
  if (s != s || q != q) return nan;
  const bool s_integer = s == floor(s);
  if (q <= 0.0 && q == floor(q)) return s_integer && fmod(s, 2.0) == 0.0 ? inf : nan;
  if (s < 1.0) return nan;
  if (q <= 0.0 && !s_integer) return nan;
  if (s == inf) return q > 1.0 ? 0.0 : q == 1.0 ? 1.0 : inf;
  if (q == inf) return 0.0;
  return berth_zeta_sum(s, q);
}

// polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x), digamma for n = 0.
__device__ __forceinline__ double berth_polygamma(double n, double x) {
  if (n != n || x != x) return berth_quiet_nan();
  if (n < 0.0 || n != floor(n) || isinf(n)) return berth_quiet_nan();
  if (n == 0.0) return berth_digamma(x);
  const double zeta = berth_zeta(n + 1.0, x);
  const double sign = fmod(n, 2.0) == 0.0 ? -1.0 : 1.0;
  if (zeta == 0.0 || zeta != zeta || isinf(zeta)) return sign * exp(lgamma(n + 1.0)) * zeta;
  const double magnitude = exp(lgamma(n + 1.0) + log(fabs(zeta)));
  return zeta < 0.0 ? -sign * magnitude : sign * magnitude;
}

// exp(-|x|) I1(x): the power series up to 30, the asymptotic expansion above.
__device__ __forceinline__ double berth_bessel_i1e(double x) {
  if (x != x) return x;
  const double a = fabs(x);
  const double tiny = 2.220446049250313080847263336181640625e-16 / 8.0;
  double result;
  if (a <= 30.0) {
    const double quarter_square = a * a / 4.0;
    double term = a / 2.0, sum = term;
    for (int k = 0; k < 200; ++k) {
      term *= quarter_square / ((double)(k + 1) * (double)(k + 2));
      sum += term;
      if (term <= sum * tiny) break;
    }
    result = sum * exp(-a);
  } else {
    double term = 1.0, sum = 1.0;
    for (int k = 1; k < 200; ++k) {
      const double next = term * ((double)((2 * k - 1) * (2 * k - 1)) - 4.0) / ((double)(8 * k) * a);
      if (fabs(next) >= fabs(term)) break;
      term = next;
      sum += term;
      if (fabs(term) <= fabs(sum) * tiny) break;
    }
    result = sum / sqrt(2.0 * BERTH_PI * a);
  }
  return copysign(result, x);
}

// ---- C's cexp (Annex G), as the C library computes it, for complex<f32>
// and complex<f64>: e^x (cos y + i sin y), e^x taken in steps of e^t (t the
// largest integer below the log of the largest finite value: 88, 709) while
// x exceeds t, so that a finite result does not overflow on the way; a
// subnormal or zero y taken as sin y = y, cos y = 1; infinities and NaN as
// Annex G prescribes.
template <typename R> struct berth_exp_limits;
template <> struct berth_exp_limits<float> {
  static constexpr int t = 88;
  static constexpr float max = 3.40282347e+38f, min_normal = 1.17549435e-38f;
};
template <> struct berth_exp_limits<double> {
  static constexpr int t = 709;
  static constexpr double max = 1.7976931348623157e+308, min_normal = 2.2250738585072014e-308;
};
// e^x (c + i s) for a finite x: past t, e^x taken as up to two steps of
// e^t (the first divided by `divisor`: 1, or 2 for e^x / 2) and the rest,
// the largest value times (c + i s) when x passes 3t; below t, e^x.
template <typename R>
__device__ __forceinline__ typename berth_complex_of<R>::C berth_exp_times(R x, R c, R s, R divisor) {
  typedef berth_exp_limits<R> L;
  const R t = (R)L::t;
  R rest = x;
  if (rest > t) {
    const R e_t = exp(t);
    rest -= t;
    s *= e_t / divisor;
    c *= e_t / divisor;
    if (rest > t) {
      rest -= t;
      s *= e_t;
      c *= e_t;
    }
    if (rest > t) return berth_complex(L::max * c, L::max * s);
  }
  const R e = exp(rest);
  return berth_complex(e * c, e * s);
}
template <typename C> __device__ __forceinline__ C berth_cexp(C z) {
  typedef decltype(z.re) R;
  typedef berth_exp_limits<R> L;
  const R x = z.re, y = z.im, inf = (R)berth_infinity(), nan = (R)berth_quiet_nan();
  if (isfinite(x)) {
    if (!isfinite(y)) return berth_complex(nan, nan);
    R s = y, c = (R)1;
    if (fabs(y) > L::min_normal) {
      s = sin(y);
      c = cos(y);
    }
    return berth_exp_times(x, c, s, (R)1);
  }
  if (isinf(x)) {
    if (isfinite(y)) {
      const R value = signbit(x) ? (R)0 : inf;
      if (y == (R)0) return berth_complex(value, y);
      return berth_complex(copysign(value, cos(y)), copysign(value, sin(y)));
    }
    if (!signbit(x)) return berth_complex(inf, y - y);
    return berth_complex((R)0, copysign((R)0, y));
  }
  return berth_complex(nan, y == (R)0 ? y : nan);
}

// C's csinh and ccosh as the C library computes them: for a finite z,
// sinh|x| cos y + i cosh|x| sin y (cosh|x| cos y + i sinh|x| sin y), the
// sign of x carried by the cosine (the sine), and past x = t the halves of
// e^|x| taken in steps of e^t as for cexp; infinities and NaN as Annex G
// prescribes.
template <typename C> __device__ __forceinline__ C berth_csinh_ccosh(C z, bool cosh_of) {
  typedef decltype(z.re) R;
  typedef berth_exp_limits<R> L;
  const R x = fabs(z.re), y = z.im, inf = (R)berth_infinity(), nan = (R)berth_quiet_nan();
  const bool negative = signbit(z.re);
  if (isfinite(x)) {
    if (!isfinite(y)) {
      if (x == (R)0) return cosh_of ? berth_complex(y - y, (R)0) : berth_complex(copysign((R)0, negative ? (R)-1 : (R)1), y - y);
      return berth_complex(nan, nan);
    }
    R s = y, c = (R)1;
    if (fabs(y) > L::min_normal) {
      s = sin(y);
      c = cos(y);
    }
    // The part that takes sinh carries the sign of x.
    if (negative) {
      if (cosh_of) s = -s; else c = -c;
    }
    if (x > (R)L::t) return berth_exp_times(x, c, s, (R)2);
    return cosh_of ? berth_complex(cosh(x) * c, sinh(x) * s) : berth_complex(sinh(x) * c, cosh(x) * s);
  }
  if (isinf(x)) {
    if (isfinite(y) && y != (R)0) {
      R s = sin(y), c = cos(y);
      if (negative) {
        if (cosh_of) s = -s; else c = -c;
      }
      return berth_complex(copysign(inf, c), copysign(inf, s));
    }
    if (y == (R)0) return cosh_of ? berth_complex(inf, negative ? -y : y) : berth_complex(negative ? -inf : inf, y);
    return cosh_of ? berth_complex(inf, y - y) : berth_complex(inf, y - y);
  }
  return berth_complex(nan, y == (R)0 ? y : nan);
}
template <typename C> __device__ __forceinline__ C berth_csinh(C z) { return berth_csinh_ccosh(z, false); }
template <typename C> __device__ __forceinline__ C berth_ccosh(C z) { return berth_csinh_ccosh(z, true); }
// csin(z) = -i csinh(iz) and ccos(z) = ccosh(iz), as the C library gives
// them; where x is infinite or NaN and y infinite its csin has +inf for the
// imaginary part (Annex G leaves the sign open).
template <typename C> __device__ __forceinline__ C berth_csin(C z) {
  typedef decltype(z.re) R;
  const C w = berth_csinh(berth_complex(-z.im, z.re));
  if (!isfinite(z.re) && isinf(z.im)) return berth_complex(w.im, (R)berth_infinity());
  return berth_complex(w.im, -w.re);
}
template <typename C> __device__ __forceinline__ C berth_ccos(C z) {
  return berth_ccosh(berth_complex(-z.im, z.re));
}

// C's ctanh and ctan (-i ctanh(iz)) as the C library computes them: for a
// finite z with |x| past t (half of cexp's: 44, 354) sign(x) + i 4 sin y
// cos y / e^(2|x|), e^(2|x|) in steps of e^(2t); below it (sinh x cosh x +
// i sin y cos y) / (sinh^2 x + cos^2 y), the sinh^2 term dropped where it is
// below cos^2 y's precision; subnormal x and y taken as their own sinh and
// sine; infinities and NaN as Annex G prescribes (tanh(+-0 + i inf) = +-0
// + i NaN).
template <typename R> struct berth_tanh_limits;
template <> struct berth_tanh_limits<float> {
  static constexpr int t = 44;
  static constexpr float epsilon = 1.19209290e-7f;
};
template <> struct berth_tanh_limits<double> {
  static constexpr int t = 354;
  static constexpr double epsilon = 2.2204460492503131e-16;
};
template <typename C> __device__ __forceinline__ C berth_ctanh(C z) {
  typedef decltype(z.re) R;
  const R x = z.re, y = z.im, nan = (R)berth_quiet_nan(), min_normal = berth_exp_limits<R>::min_normal;
  if (!isfinite(x) || !isfinite(y)) {
    if (isinf(x)) {
      R im = copysign((R)0, y);
      if (isfinite(y) && fabs(y) > (R)1) im = copysign((R)0, sin(y) * cos(y));
      return berth_complex(copysign((R)1, x), im);
    }
    if (x == (R)0) return berth_complex(x, nan);
    return berth_complex(nan, y == (R)0 ? y : nan);
  }
  R s = y, c = (R)1;
  if (fabs(y) > min_normal) {
    s = sin(y);
    c = cos(y);
  }
  const R t = (R)berth_tanh_limits<R>::t;
  if (fabs(x) > t) {
    const R e_2t = exp((R)2 * t), rest = fabs(x) - t;
    R im = (R)4 * s * c;
    im /= e_2t;
    im /= rest > t ? e_2t : exp((R)2 * rest);
    return berth_complex(copysign((R)1, x), im);
  }
  R sh = x, ch = (R)1;
  if (fabs(x) > min_normal) {
    sh = sinh(x);
    ch = cosh(x);
  }
  const R den = fabs(sh) > fabs(c) * berth_tanh_limits<R>::epsilon ? sh * sh + c * c : c * c;
  return berth_complex(sh * ch / den, s * c / den);
}
template <typename C> __device__ __forceinline__ C berth_ctan(C z) {
  const C w = berth_ctanh(berth_complex(-z.im, z.re));
  return berth_complex(w.im, -w.re);
}

// C's csqrt as the C library computes it: for a finite z with both parts
// nonzero, r = sqrt((|z| + x) / 2) and y / 2r (x > 0), or s = sqrt((|z| -
// x) / 2) and |y| / 2s, the operands scaled by 1/4 near the largest value
// and up by 2^(2k) when both are below twice the smallest normal, the
// result scaled back; a zero part, infinities and NaN as Annex G
// prescribes.
template <typename R> struct berth_mantissa_digits;
template <> struct berth_mantissa_digits<float> { static constexpr int value = 24; };
template <> struct berth_mantissa_digits<double> { static constexpr int value = 53; };
template <typename C> __device__ __forceinline__ C berth_csqrt(C z) {
  typedef decltype(z.re) R;
  typedef berth_exp_limits<R> L;
  R x = z.re, y = z.im;
  const R nan = (R)berth_quiet_nan(), inf = (R)berth_infinity();
  if (!isfinite(x) || !isfinite(y)) {
    if (isinf(y)) return berth_complex(inf, y);
    if (isinf(x)) {
      if (x < (R)0) return berth_complex(y != y ? nan : (R)0, copysign(inf, y));
      return berth_complex(x, y != y ? nan : copysign((R)0, y));
    }
    return berth_complex(nan, nan);
  }
  if (y == (R)0) {
    if (x < (R)0) return berth_complex((R)0, copysign(sqrt(-x), y));
    return berth_complex(fabs(sqrt(x)), copysign((R)0, y));
  }
  if (x == (R)0) {
    const R r = fabs(y) >= (R)2 * L::min_normal ? sqrt((R)0.5 * fabs(y))
                                                : (R)0.5 * sqrt((R)2 * fabs(y));
    return berth_complex(r, copysign(r, y));
  }
  int scale = 0;
  if (fabs(x) > L::max / (R)4) {
    scale = 1;
    x = scalbn(x, -2);
    y = scalbn(y, -2);
  } else if (fabs(y) > L::max / (R)4) {
    scale = 1;
    x = fabs(x) >= (R)4 * L::min_normal ? scalbn(x, -2) : (R)0;
    y = scalbn(y, -2);
  } else if (fabs(x) < (R)2 * L::min_normal && fabs(y) < (R)2 * L::min_normal) {
    scale = -((berth_mantissa_digits<R>::value + 1) / 2);
    x = scalbn(x, -2 * scale);
    y = scalbn(y, -2 * scale);
  }
  const R d = hypot(x, y);
  R r, s;
  if (x > (R)0) {
    r = sqrt((R)0.5 * (d + x));
    if (scale == 1 && fabs(y) < (R)1) {
      s = y / r;
      r = scalbn(r, scale);
      scale = 0;
    } else {
      s = (R)0.5 * (y / r);
    }
  } else {
    s = sqrt((R)0.5 * (d - x));
    if (scale == 1 && fabs(y) < (R)1) {
      r = fabs(y / s);
      s = scalbn(s, scale);
      scale = 0;
    } else {
      r = fabs((R)0.5 * (y / s));
    }
  }
  if (scale != 0) {
    r = scalbn(r, scale);
    s = scalbn(s, scale);
  }
  return berth_complex(r, copysign(s, y));
}
// 1 / sqrt(z), the cpu plugin's rsqrt of a complex number.
template <typename C> __device__ __forceinline__ C berth_crsqrt(C z) {
  typedef decltype(z.re) R;
  return berth_cdiv(berth_complex((R)1, (R)0), berth_csqrt(z));
}

// C's clog as the C library computes it: log|z| + i atan2(y, x), log|z| as
// log1p(|z|^2 - 1) / 2 near the unit circle (|z|^2 - 1 formed without
// cancellation: in double for float parts; for double parts from the exact
// products x^2, y^2 and -1, summed smallest first with each sum's error
// carried) and otherwise as the log of the hypotenuse, the operands scaled
// near the largest and below the smallest normal values; log 0 = -inf + i
// (0 or pi), infinities and NaN as Annex G prescribes.
__device__ __forceinline__ float berth_x2y2m1(float x, float y) {
  const double dx = x, dy = y;
  return (float)((dx - 1) * (dx + 1) + dy * dy);
}
__device__ __forceinline__ void berth_sort_by_magnitude(double* v, int n) {
  for (int i = 1; i < n; ++i) {
    const double key = v[i];
    int j = i - 1;
    for (; j >= 0 && fabs(v[j]) > fabs(key); --j) v[j + 1] = v[j];
    v[j + 1] = key;
  }
}
__device__ __forceinline__ double berth_x2y2m1(double x, double y) {
  double v[5];
  v[1] = x * x;
  v[0] = fma(x, x, -v[1]);
  v[3] = y * y;
  v[2] = fma(y, y, -v[3]);
  v[4] = -1.0;
  berth_sort_by_magnitude(v, 5);
  for (int i = 0; i <= 3; ++i) {
    const double sum = v[i + 1] + v[i];
    v[i] = (v[i + 1] - sum) + v[i];
    v[i + 1] = sum;
    berth_sort_by_magnitude(v + i + 1, 4 - i);
  }
  return v[4] + v[3] + v[2] + v[1] + v[0];
}
template <typename R> struct berth_log_constants;
template <> struct berth_log_constants<float> {
  static constexpr float epsilon = 1.19209290e-7f, ln2 = 0.693147180559945309417f,
                         pi = 3.14159265358979323846f;
};
template <> struct berth_log_constants<double> {
  static constexpr double epsilon = 2.2204460492503131e-16, ln2 = 0.693147180559945309417,
                          pi = 3.14159265358979323846;
};
template <typename C> __device__ __forceinline__ C berth_clog(C z) {
  typedef decltype(z.re) R;
  typedef berth_exp_limits<R> L;
  typedef berth_log_constants<R> K;
  const R x = z.re, y = z.im, nan = (R)berth_quiet_nan(), inf = (R)berth_infinity();
  if (x == (R)0 && y == (R)0) {
    return berth_complex((R)-1 / fabs(x), copysign(signbit(x) ? K::pi : (R)0, y));
  }
  if (x != x || y != y) return berth_complex(isinf(x) || isinf(y) ? inf : nan, nan);
  R big = fabs(x), small = fabs(y);
  if (big < small) {
    const R swap = big;
    big = small;
    small = swap;
  }
  int scale = 0;
  if (big > L::max / (R)2) {
    scale = -1;
    big = scalbn(big, scale);
    small = small >= L::min_normal * (R)2 ? scalbn(small, scale) : (R)0;
  } else if (big < L::min_normal && small < L::min_normal) {
    scale = berth_mantissa_digits<R>::value;
    big = scalbn(big, scale);
    small = scalbn(small, scale);
  }
  R re;
  if (big == (R)1 && scale == 0) {
    re = log1p(small * small) / (R)2;
  } else if (big > (R)1 && big < (R)2 && small < (R)1 && scale == 0) {
    R d2m1 = (big - (R)1) * (big + (R)1);
    if (small >= K::epsilon) d2m1 += small * small;
    re = log1p(d2m1) / (R)2;
  } else if (big < (R)1 && big >= (R)0.5 && small < K::epsilon / (R)2 && scale == 0) {
    re = log1p((big - (R)1) * (big + (R)1)) / (R)2;
  } else if (big < (R)1 && big >= (R)0.5 && scale == 0 && big * big + small * small >= (R)0.5) {
    re = log1p(berth_x2y2m1(big, small)) / (R)2;
  } else {
    re = log(hypot(big, small)) - scale * K::ln2;
  }
  return berth_complex(re, atan2(y, x));
}

// The cpu plugin's power of complex numbers: 1 for w = 0, 0 for z = 0 and
// a real w > 0, else C's cpow: cexp(w clog z).
template <typename C> __device__ __forceinline__ C berth_cpow(C z, C w) {
  typedef decltype(z.re) R;
  if (w.re == (R)0 && w.im == (R)0) return berth_complex((R)1, (R)0);
  if (z.re == (R)0 && z.im == (R)0 && w.im == (R)0 && w.re > (R)0) return berth_complex((R)0, (R)0);
  return berth_cexp(berth_cmul(w, berth_clog(z)));
}

// The cpu plugin's cbrt of complex numbers, std::pow(z, 1/3) of the C++
// library: a positive real z's real cube root by pow, else
// e^(Re(log z) / 3) (cos + i sin)(Im(log z) / 3).
template <typename C> __device__ __forceinline__ C berth_ccbrt(C z) {
  typedef decltype(z.re) R;
  const R third = (R)1 / (R)3;
  if (z.im == (R)0 && z.re > (R)0) return berth_complex((R)pow(z.re, third), (R)0);
  const C t = berth_clog(z);
  const R rho = exp(third * t.re), theta = third * t.im;
  return berth_complex(rho * cos(theta), rho * sin(theta));
}

// The cpu plugin's atan2 of complex numbers (the spec's definition):
// -i log((x + i y) / sqrt(x^2 + y^2)), each step a complex operation.
template <typename C> __device__ __forceinline__ C berth_catan2(C y, C x) {
  typedef decltype(y.re) R;
  const C i = berth_complex((R)0, (R)1);
  const C ratio = berth_cdiv(berth_cadd(x, berth_cmul(i, y)),
                             berth_csqrt(berth_cadd(berth_cmul(x, x), berth_cmul(y, y))));
  return berth_cmul(berth_cneg(i), berth_clog(ratio));
}

// 1 / (1 + e^-z), the cpu plugin's logistic of a complex number.
template <typename C> __device__ __forceinline__ C berth_clogistic(C z) {
  typedef decltype(z.re) R;
  const C one = berth_complex((R)1, (R)0);
  return berth_cdiv(one, berth_cadd(one, berth_cexp(berth_cneg(z))));
}

// next_after on a float's bits (U of MANT mantissa bits): NaN (positive,
// quiet) when either is NaN, y when they are equal, the smallest subnormal
// towards y from a zero, else one step towards y.
template <typename U, int MANT>
__device__ __forceinline__ U berth_next_after_bits(U xb, U yb, bool unordered, bool equal) {
  const U sign = (U)((U)1 << (sizeof(U) * 8 - 1));
  if (unordered) return (U)((U)((U)(~sign) >> MANT << MANT) | (U)((U)1 << (MANT - 1)));
  if (equal) return yb;
  const U x_abs = (U)(xb & (U)~sign);
  if (x_abs == 0) return (U)((yb & sign) | 1u);
  const bool smaller = (xb & sign) != (yb & sign) || x_abs > (U)(yb & (U)~sign);
  return smaller ? (U)(xb - 1u) : (U)(xb + 1u);
}
)cuda";
  return kSpecialFunctions;
}

std::string_view KernelHeader() {
  static const std::string header =
      std::string(KernelPrelude()) + std::string(KernelSpecialFunctions());
  return header;
}

}  // namespace berth::cuda
