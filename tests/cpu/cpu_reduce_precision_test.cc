// stablehlo.reduce_precision for every exponent/mantissa combination up to
// one past each source format's own (f16, bf16, f32, f64), on random bit
// patterns (every exponent, subnormals, NaN, infinities) and rounding ties,
// against a reference in long double arithmetic: round the value to
// `mantissa_bits` bits (ties to even, on the source format's own grid for
// its subnormals; with no mantissa bits, to the even exponent), then +-inf above the target's largest exponent and +-0
// below its smallest normal; NaN stays (inf without mantissa bits).
#include <bit>
#include <cstring>
#include <random>

#include "elementwise_test_util.hpp"

namespace berth::testing {
namespace {

struct Format {
  const char* name;
  ElementType type;
  int exponent_bits;
  int mantissa_bits;
  int width;
};

constexpr Format kFormats[] = {{"f16", ElementType::kF16, 5, 10, 16},
                               {"bf16", ElementType::kBF16, 8, 7, 16},
                               {"f32", ElementType::kF32, 8, 23, 32},
                               {"f64", ElementType::kF64, 11, 52, 64}};

// The value of a bit pattern of `f` (NaN and infinities included).
long double Value(const Format& f, uint64_t bits) {
  const uint64_t sign = bits >> (f.width - 1);
  const uint64_t exponent = (bits >> f.mantissa_bits) & ((uint64_t{1} << f.exponent_bits) - 1);
  const uint64_t fraction = bits & ((uint64_t{1} << f.mantissa_bits) - 1);
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  long double magnitude;
  if (exponent == (uint64_t{1} << f.exponent_bits) - 1) {
    magnitude = fraction ? std::numeric_limits<long double>::quiet_NaN()
                         : std::numeric_limits<long double>::infinity();
  } else if (exponent == 0) {
    magnitude = ldexpl(static_cast<long double>(fraction), 1 - bias - f.mantissa_bits);
  } else {
    magnitude = ldexpl(static_cast<long double>(fraction | (uint64_t{1} << f.mantissa_bits)),
                       static_cast<int>(exponent) - bias - f.mantissa_bits);
  }
  return sign ? -magnitude : magnitude;
}

// reduce_precision of the value of `bits` to (e, m), as a long double.
long double Reference(const Format& f, uint64_t bits, int e, int m) {
  long double x = Value(f, bits);
  if (std::isnan(x)) return m > 0 ? x : copysignl(INFINITY, x);
  if (std::isinf(x) || x == 0) return x;
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  long double r = x;
  if (m < f.mantissa_bits) {
    // The grid of m-bit significands around x: its own binade, or for the
    // source's subnormals the fixed quantum below its smallest normal.
    int exponent = std::max(ilogbl(x), 1 - bias);
    long double quantum = ldexpl(1.0L, exponent - m);
    long double steps = x / quantum;
    r = nearbyintl(steps) * quantum;  // ties to even: the default rounding mode
    // Without mantissa bits a normal value's neighbours 2^E and 2^(E+1)
    // differ in the exponent field: a tie goes to the even field, as the
    // rounding of the bit pattern (XLA's, the reference interpreter's) does.
    if (m == 0 && ilogbl(x) >= 1 - bias && fabsl(steps) - floorl(fabsl(steps)) == 0.5L) {
      bool even = (exponent + bias) % 2 == 0;
      r = copysignl(ldexpl(1.0L, even ? exponent : exponent + 1), x);
    }
  }
  if (e < f.exponent_bits) {
    const int reduced_bias = (1 << (e - 1)) - 1;
    if (fabsl(r) >= ldexpl(1.0L, reduced_bias + 1)) return copysignl(INFINITY, x);
    if (fabsl(r) < ldexpl(1.0L, 1 - reduced_bias)) return copysignl(0.0L, x);
  }
  return r;
}

// `value` as the bits of format `f` (exact, or infinity beyond its range).
uint64_t Encode(const Format& f, long double value) {
  if (f.type == ElementType::kF64) return std::bit_cast<uint64_t>(static_cast<double>(value));
  if (f.type == ElementType::kF32) return std::bit_cast<uint32_t>(static_cast<float>(value));
  // f16 / bf16: the value is exact in the format (or out of its range).
  uint64_t sign = std::signbit(value) ? uint64_t{1} << 15 : 0;
  long double a = fabsl(value);
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  uint64_t inf = ((uint64_t{1} << f.exponent_bits) - 1) << f.mantissa_bits;
  if (std::isnan(a)) return sign | inf | (uint64_t{1} << (f.mantissa_bits - 1));
  if (std::isinf(a) || a >= ldexpl(1.0L, bias + 1)) return sign | inf;
  if (a == 0) return sign;
  int exponent = ilogbl(a);
  if (exponent < 1 - bias) {
    return sign | static_cast<uint64_t>(ldexpl(a, bias - 1 + f.mantissa_bits));
  }
  uint64_t significand = static_cast<uint64_t>(ldexpl(a, f.mantissa_bits - exponent));
  return sign | (static_cast<uint64_t>(exponent + bias) << f.mantissa_bits) |
         (significand & ((uint64_t{1} << f.mantissa_bits) - 1));
}

std::vector<uint64_t> Inputs(const Format& f, size_t n) {
  std::mt19937_64 random(static_cast<uint64_t>(f.width) * 31 + f.mantissa_bits);
  std::vector<uint64_t> bits;
  const uint64_t mask = f.width == 64 ? ~uint64_t{0} : (uint64_t{1} << f.width) - 1;
  const uint64_t one = Encode(f, 1.0L);
  // Ties and near-ties of every target precision, at 1 and in the subnormals.
  for (int m = 0; m <= f.mantissa_bits; ++m) {
    if (m < f.mantissa_bits) {
      uint64_t tie = uint64_t{1} << (f.mantissa_bits - m - 1);
      bits.push_back(one | tie);
      bits.push_back(one | tie | (tie << 1));
      bits.push_back(one | (tie - 1 + (tie == 1)));
      bits.push_back(tie);
      bits.push_back(tie | (tie << 1));
    }
  }
  // The largest finite value, the smallest normal and subnormal, both signs.
  uint64_t inf = ((uint64_t{1} << f.exponent_bits) - 1) << f.mantissa_bits;
  uint64_t sign = uint64_t{1} << (f.width - 1);
  for (uint64_t b : {inf - 1, uint64_t{1} << f.mantissa_bits, uint64_t{1}, inf, inf | 1, uint64_t{0}}) {
    bits.push_back(b);
    bits.push_back(b | sign);
  }
  while (bits.size() < n) {
    uint64_t b = random() & mask;
    // Half of them near 1 in magnitude, where small formats still have range.
    if (random() % 2) b = (b & (sign | ((uint64_t{1} << (f.mantissa_bits + 3)) - 1))) | (one & ~((uint64_t{1} << (f.mantissa_bits + 3)) - 1));
    bits.push_back(b);
  }
  bits.resize(n);
  return bits;
}

TEST(ReducePrecisionTest, EveryExponentAndMantissaWidthMatchesTheReference) {
  for (const Format& f : kFormats) {
    const size_t n = 1031;
    std::vector<uint64_t> in = Inputs(f, n);
    // One program per format: an op per (e, m) on the same operand.
    const std::string t = "tensor<" + std::to_string(n) + "x" + f.name + ">";
    std::string results, body, returns, types;
    std::vector<std::pair<int, int>> combos;
    for (int e = 1; e <= f.exponent_bits + 1; ++e) {
      for (int m = 0; m <= f.mantissa_bits + 1; ++m) {
        std::string r = "%r" + std::to_string(combos.size());
        body += "  " + r + " = stablehlo.reduce_precision %x, format = e" + std::to_string(e) + "m" +
                std::to_string(m) + " : " + t + "\n";
        returns += (combos.empty() ? "" : ", ") + r;
        types += (combos.empty() ? "" : ", ") + t;
        combos.push_back({e, m});
      }
    }
    std::string program = "func.func @main(%x: " + t + ") -> (" + types + ") {\n" + body +
                          "  return " + returns + " : " + types + "\n}\n";
    Literal arg;
    if (f.width == 64) {
      arg = Literal::Raw<uint64_t>(f.type, in, {static_cast<int64_t>(n)});
    } else if (f.width == 32) {
      std::vector<uint32_t> raw(in.begin(), in.end());
      arg = Literal::Raw<uint32_t>(f.type, raw, {static_cast<int64_t>(n)});
    } else {
      std::vector<uint16_t> raw(in.begin(), in.end());
      arg = Literal::Raw<uint16_t>(f.type, raw, {static_cast<int64_t>(n)});
    }
    for (bool fuse : {false, true}) {
      CompileOptions options;
      options.options["fuse_elementwise"] = fuse;
      Result<std::vector<Literal>> out = CpuRunner::Get().Run(program, {arg}, options);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      ASSERT_EQ(out->size(), combos.size());
      for (size_t c = 0; c < combos.size(); ++c) {
        const auto [e, m] = combos[c];
        const Literal& result = out->at(c);
        int failures = 0;
        for (size_t i = 0; i < n; ++i) {
          uint64_t got = 0;
          std::memcpy(&got, result.bytes.data() + i * (f.width / 8), f.width / 8);
          long double expected = Reference(f, in[i], e, m);
          long double value = Value(f, got);
          bool ok = std::isnan(expected) ? got == in[i]  // the operand itself
                                         : got == Encode(f, expected);
          if (!ok && failures++ < 5) {
            ADD_FAILURE() << f.name << " e" << e << "m" << m << (fuse ? " fused" : "") << ": input 0x"
                          << std::hex << in[i] << " gave 0x" << got << std::dec << " ("
                          << static_cast<double>(value) << "), expected "
                          << static_cast<double>(expected);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace berth::testing
