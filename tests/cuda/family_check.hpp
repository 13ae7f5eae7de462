// Checking a kernel family's results against the cpu plugin's: seeded
// random arguments and an element-by-element comparison that names the op,
// its line, the operands and both results of each mismatch. Shared by the
// host-compiled kernels' test and the GPU's.
#ifndef BERTH_TESTS_CUDA_FAMILY_CHECK_HPP_
#define BERTH_TESTS_CUDA_FAMILY_CHECK_HPP_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "berth/stablehlo/ir.hpp"
#include "program_runner.hpp"

namespace berth::cuda::testing {

using stablehlo::ElementType;

inline size_t ElementBytes(ElementType type) { return stablehlo::StorageBytes(type); }

// i2, i4, ui2, ui4 and the f4/f6/f8 formats: one element per byte.
inline bool IsNarrowElement(ElementType type) {
  return type != ElementType::kI1 && stablehlo::StorageBytes(type) == 1 &&
         (stablehlo::BitWidth(type) < 8 || stablehlo::IsFloat(type));
}

inline bool IsComplexElement(ElementType type) {
  return type == ElementType::kComplex64 || type == ElementType::kComplex128;
}

inline bool IsFloatElement(ElementType type) {
  return type == ElementType::kF16 || type == ElementType::kBF16 || type == ElementType::kF32 ||
         type == ElementType::kF64;
}

// Random storage for `count` elements of `type` (a complex number's parts
// each as a random float); `finite`: floats only of the ordinary kinds.
inline std::vector<std::byte> RandomElements(ElementType type, size_t count, std::mt19937_64& rng,
                                             bool finite = false) {
  if (IsComplexElement(type))
    return RandomElements(stablehlo::ComplexComponentType(type), 2 * count, rng, finite);
  if (IsNarrowElement(type)) {
    // Every bit pattern of the width; integers sign- or zero-extended.
    const int bits = stablehlo::BitWidth(type);
    std::vector<std::byte> bytes(count);
    for (std::byte& b : bytes) {
      uint8_t v = static_cast<uint8_t>(rng() & ((1u << bits) - 1));
      if (stablehlo::IsSignedInteger(type) && (v >> (bits - 1)))
        v = static_cast<uint8_t>(v | (0xffu << bits));
      b = static_cast<std::byte>(v);
    }
    return bytes;
  }
  const size_t size = ElementBytes(type);
  std::vector<std::byte> bytes(count * size);
  std::uniform_int_distribution<int> pick(0, 9);
  std::uniform_int_distribution<int> small(-4, 9);
  for (size_t i = 0; i < count; ++i) {
    uint64_t bits = rng();
    const int kind = finite && IsFloatElement(type) ? pick(rng) % 5 : pick(rng);
    if (type == ElementType::kI1) {
      bits &= 1;
    } else if (!IsFloatElement(type)) {
      if (kind < 4)
        bits = static_cast<uint64_t>(static_cast<int64_t>(small(rng)));  // small, shifts, divisors
      if (kind == 4) bits = uint64_t{1} << (size * 8 - 1);               // the signed minimum
      if (kind == 5) bits = (uint64_t{1} << (size * 8 - 1)) - 1;         // the signed maximum
    } else if (kind < 5) {
      // Ordinary values: small integers and halves, moderate magnitudes.
      double value = kind < 2 ? small(rng) * 0.5
                              : std::ldexp(std::uniform_real_distribution<double>(-2, 2)(rng),
                                           static_cast<int>(rng() % 40) - 20);
      if (kind == 4)
        value = std::ldexp(static_cast<double>(static_cast<int64_t>(rng())),
                           -static_cast<int>(rng() % 40));
      if (type == ElementType::kF64) {
        std::memcpy(&bits, &value, 8);
      } else {
        const float f = static_cast<float>(value);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        // f16/bf16: a float that is exactly one (truncate the bits for bf16;
        // for f16 use the value's float bits only when representable).
        if (type == ElementType::kBF16) b >>= 16;
        if (type == ElementType::kF16) {
          b = static_cast<uint32_t>(rng());                     // bit patterns suffice
          if (finite && (b & 0x7c00) == 0x7c00) b &= ~0x4000u;  // not inf or NaN
        }
        bits = b;
      }
    }
    std::memcpy(bytes.data() + i * size, &bits, size);  // little-endian: the low bytes
  }
  return bytes;
}

// Distance in ulps between two finite floats of the same sign (as ordered bit patterns).
inline int64_t OrderedBits(ElementType type, const std::byte* p) {
  int64_t value = 0;
  const size_t size = ElementBytes(type);
  uint64_t bits = 0;
  std::memcpy(&bits, p, size);
  const uint64_t sign = uint64_t{1} << (size * 8 - 1);
  value = (bits & sign) ? -static_cast<int64_t>(bits & (sign - 1)) : static_cast<int64_t>(bits);
  return value;
}

inline bool IsNan(ElementType type, const std::byte* p) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, ElementBytes(type));
  switch (type) {
    case ElementType::kF16: return (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0;
    case ElementType::kBF16: return (bits & 0x7f80) == 0x7f80 && (bits & 0x7f) != 0;
    case ElementType::kF32: return (bits & 0x7f800000) == 0x7f800000 && (bits & 0x7fffff) != 0;
    case ElementType::kF64:
      return (bits & 0x7ff0000000000000) == 0x7ff0000000000000 && (bits & 0xfffffffffffff) != 0;
    default: return false;
  }
}

inline std::string Hex(ElementType type, const std::byte* p) {
  if (IsComplexElement(type)) {
    const ElementType part = stablehlo::ComplexComponentType(type);
    return "(" + Hex(part, p) + ", " + Hex(part, p + ElementBytes(part)) + ")";
  }
  uint64_t bits = 0;
  std::memcpy(&bits, p, ElementBytes(type));
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(bits));
  return text;
}

// Small integers in [-8, 8] as `type`'s storage (exact in every type).
inline std::vector<std::byte> SmallElements(ElementType type, size_t count, std::mt19937_64& rng) {
  if (IsComplexElement(type))
    return SmallElements(stablehlo::ComplexComponentType(type), 2 * count, rng);
  if (IsNarrowElement(type)) return RandomElements(type, count, rng);
  const size_t size = ElementBytes(type);
  std::vector<std::byte> bytes(count * size);
  for (size_t i = 0; i < count; ++i) {
    const int value = static_cast<int>(rng() % 17) - 8;
    uint64_t bits = static_cast<uint64_t>(static_cast<int64_t>(value));
    if (type == ElementType::kF64) {
      const double d = value;
      std::memcpy(&bits, &d, 8);
    } else if (type == ElementType::kF32 || type == ElementType::kBF16) {
      const float f = static_cast<float>(value);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      bits = type == ElementType::kBF16 ? b >> 16 : b;  // small integers are exact in bf16
    } else if (type == ElementType::kF16) {
      // Sign, exponent and the 10 mantissa bits of a small integer.
      const int magnitude = value < 0 ? -value : value;
      int exponent = 0;
      while ((2 << exponent) <= magnitude) ++exponent;
      bits = magnitude == 0 ? 0
                            : static_cast<uint64_t>(((exponent + 15) << 10) |
                                                    ((magnitude << (10 - exponent)) & 0x3ff));
      if (value < 0) bits |= 0x8000;
    } else if (type == ElementType::kI1) {
      bits &= 1;
    }
    std::memcpy(bytes.data() + i * size, &bits, size);
  }
  return bytes;
}

// A literal for every parameter of `block`, its storage made by
// `elements(type, count)`.
template <typename Elements>
std::vector<berth::testing::Literal> ArgumentsOf(const stablehlo::Block& block, Elements elements) {
  std::vector<berth::testing::Literal> args;
  for (const stablehlo::Value* arg : block.arguments()) {
    const stablehlo::Type type = arg->type();
    berth::testing::Literal literal;
    literal.type = stablehlo::ToBufferType(type.element_type());
    literal.dims.assign(type.shape().begin(), type.shape().end());
    literal.bytes = elements(type.element_type(), static_cast<size_t>(type.NumElements()));
    args.push_back(std::move(literal));
  }
  return args;
}

// Random arguments for every parameter of `block` (small integers with
// `small`, ordinary finite floats with `finite`).
inline std::vector<berth::testing::Literal> RandomArguments(const stablehlo::Block& block,
                                                            uint64_t seed, bool small = false,
                                                            bool finite = false) {
  std::mt19937_64 rng(seed);
  return ArgumentsOf(block, [&](ElementType type, size_t count) {
    return small ? SmallElements(type, count, rng) : RandomElements(type, count, rng, finite);
  });
}

// Whether element `g` of `type` matches `w`: equal bits, or both NaN, or -
// with `tolerance` > 0 - finite floats at most `tolerance` ulps apart; a
// complex number's parts each so.
inline bool ElementMatches(ElementType type, const std::byte* g, const std::byte* w,
                           int64_t tolerance) {
  if (IsComplexElement(type)) {
    const ElementType part = stablehlo::ComplexComponentType(type);
    const size_t half = ElementBytes(part);
    return ElementMatches(part, g, w, tolerance) &&
           ElementMatches(part, g + half, w + half, tolerance);
  }
  const size_t size = ElementBytes(type);
  if (std::memcmp(g, w, size) == 0) return true;
  if (!IsFloatElement(type)) return false;
  if (IsNan(type, g) || IsNan(type, w)) return IsNan(type, g) && IsNan(type, w);
  return tolerance > 0 && std::llabs(OrderedBits(type, g) - OrderedBits(type, w)) <= tolerance;
}

// Compares returned value `returned` of `block` as computed (`got`, dense
// storage) with the cpu plugin's (`want`): ElementMatches with `ulps`
// (`half_ulps` for f16/bf16). Reports up to 20 mismatches; returns their
// count.
inline int CompareReturned(const std::string& family, const stablehlo::Block& block,
                           size_t returned, const std::vector<berth::testing::Literal>& args,
                           const std::vector<std::byte>& got, const std::vector<std::byte>& want,
                           int64_t ulps, int64_t half_ulps) {
  const stablehlo::Value* output = block.terminator()->operand(returned);
  const ElementType type = output->type().element_type();
  EXPECT_EQ(got.size(), want.size()) << family << ": result " << returned;
  if (got.size() != want.size()) return 1;
  const size_t size = ElementBytes(type);
  const stablehlo::Operation* op = output->defining_op();
  int mismatches = 0;
  for (size_t e = 0; e * size < got.size(); ++e) {
    const std::byte* g = got.data() + e * size;
    const std::byte* w = want.data() + e * size;
    const int64_t tolerance =
        type == ElementType::kF16 || type == ElementType::kBF16 ? half_ulps : ulps;
    if (ElementMatches(type, g, w, tolerance)) continue;
    if (++mismatches > 20 || op == nullptr) continue;
    std::string operands;
    for (const stablehlo::Value* operand : op->operands()) {
      if (!operand->IsBlockArgument()) {
        operands += " (computed)";
        continue;
      }
      const berth::testing::Literal& arg = args[operand->index()];
      const size_t arg_size = ElementBytes(operand->type().element_type());
      const size_t at = operand->type().rank() == 0 ? 0 : e;
      operands += " " + Hex(operand->type().element_type(), arg.bytes.data() + at * arg_size);
    }
    ADD_FAILURE() << family << ": " << op->name() << " (line " << op->location().line << ", "
                  << output->type().ToString() << ") element " << e << " of operands" << operands
                  << ": got " << Hex(type, g) << ", the cpu plugin " << Hex(type, w);
  }
  return mismatches;
}

// ---------------------------------------------------------- triangular_solve

// The block argument `value` is, or is a 2-D transpose of (then
// `*transposed`); NULL for anything else.
inline const stablehlo::Value* ArgumentBehind(const stablehlo::Value* value, bool* transposed) {
  *transposed = false;
  if (const stablehlo::Operation* op = value->defining_op()) {
    if (op->kind() != stablehlo::OpKind::kTranspose || value->type().rank() != 2) return nullptr;
    *transposed = true;
    value = op->operand(0);
  }
  return value->IsBlockArgument() ? value : nullptr;
}

inline double ElementAsDouble(ElementType type, const std::byte* p) {
  if (type == ElementType::kF64) {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  float f;
  std::memcpy(&f, p, 4);
  return f;
}

inline void StoreDouble(ElementType type, double value, std::byte* p) {
  if (type == ElementType::kF64) {
    std::memcpy(p, &value, 8);
  } else {
    const float f = static_cast<float>(value);
    std::memcpy(p, &f, 4);
  }
}

// Arguments for a family of triangular_solve ops (f32/f64): uniform in
// [-1, 1], with each solved matrix's diagonal made dominant (magnitude
// m + 1 .. m + 2, either sign), so every system is well conditioned.
inline std::vector<berth::testing::Literal> SolveArguments(const stablehlo::Block& block,
                                                           uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<berth::testing::Literal> args =
      ArgumentsOf(block, [&](ElementType type, size_t count) {
        std::vector<std::byte> bytes(count * ElementBytes(type));
        for (size_t e = 0; e < count; ++e)
          StoreDouble(type, uniform(rng), bytes.data() + e * ElementBytes(type));
        return bytes;
      });
  for (const stablehlo::Operation* op : block.operations()) {
    if (op->kind() != stablehlo::OpKind::kTriangularSolve) continue;
    bool transposed = false;
    const stablehlo::Value* a = ArgumentBehind(op->operand(0), &transposed);
    if (a == nullptr) continue;
    const stablehlo::Type type = a->type();
    const int64_t m = type.dim(type.rank() - 1);
    const size_t size = ElementBytes(type.element_type());
    std::vector<std::byte>& bytes = args[a->index()].bytes;
    for (size_t start = 0; start < bytes.size(); start += static_cast<size_t>(m * m) * size) {
      for (int64_t r = 0; r < m; ++r) {
        const double magnitude = static_cast<double>(m) + 1.5 + 0.5 * uniform(rng);
        StoreDouble(type.element_type(), uniform(rng) < 0 ? -magnitude : magnitude,
                    bytes.data() + start + static_cast<size_t>(r * m + r) * size);
      }
    }
  }
  return args;
}

// Checks each returned triangular_solve result of `block` (`results[j]`,
// dense storage) against the system solved again here in long double by
// Gaussian elimination with partial pivoting - on the dense matrix the op
// means (the triangle `lower` names, ones on the diagonal when
// unit_diagonal, transposed as transpose_a says, the other side's system
// transposed), so nothing of the kernel's substitution is shared: each
// element within `tolerance` times the solution's largest magnitude (at
// least 1). Reports up to 20 mismatches; returns their count.
inline int CheckSolutions(const std::string& family, const stablehlo::Block& block,
                          const std::vector<berth::testing::Literal>& args,
                          const std::vector<std::vector<std::byte>>& results) {
  int mismatches = 0;
  for (size_t j = 0; j < block.terminator()->num_operands(); ++j) {
    const stablehlo::Operation* op = block.terminator()->operand(j)->defining_op();
    if (op == nullptr || op->kind() != stablehlo::OpKind::kTriangularSolve) continue;
    bool transposed = false;
    const stablehlo::Value* a_arg = ArgumentBehind(op->operand(0), &transposed);
    const stablehlo::Value* b_arg = op->operand(1);
    if (a_arg == nullptr || !b_arg->IsBlockArgument()) {
      ADD_FAILURE() << family << ": result " << j << " solves values that are not arguments";
      ++mismatches;
      continue;
    }
    const stablehlo::Type b_type = b_arg->type();
    const ElementType type = b_type.element_type();
    const size_t size = ElementBytes(type);
    const int64_t rank = b_type.rank();
    const bool left = op->GetBool("left_side"), lower = op->GetBool("lower"),
               unit = op->GetBool("unit_diagonal");
    const bool transpose = op->transpose_a().value_or(stablehlo::Transpose::kNoTranspose) !=
                           stablehlo::Transpose::kNoTranspose;
    const int64_t m = a_arg->type().dim(rank - 1);
    const int64_t rows = b_type.dim(rank - 2), cols = b_type.dim(rank - 1);
    const int64_t batch = m == 0 ? 0 : b_type.NumElements() / (rows * cols);
    const double tolerance = type == ElementType::kF64 ? 1e-13 : 2e-5;
    for (int64_t bi = 0; bi < batch; ++bi) {
      // The op's a: the argument, or its transpose.
      auto a_at = [&](int64_t r, int64_t c) -> long double {
        const int64_t at = transposed ? c * m + r : r * m + c;
        return ElementAsDouble(type, args[a_arg->index()].bytes.data() +
                                         static_cast<size_t>(bi * m * m + at) * size);
      };
      // T: the triangle as a dense matrix; op(a) = T or its transpose.
      std::vector<long double> t(static_cast<size_t>(m * m), 0.0L);
      for (int64_t r = 0; r < m; ++r) {
        for (int64_t c = 0; c < m; ++c) {
          long double value = (lower ? c <= r : c >= r) ? a_at(r, c) : 0.0L;
          if (r == c && unit) value = 1.0L;
          t[static_cast<size_t>(transpose ? c * m + r : r * m + c)] = value;
        }
      }
      // left: op(a) X = B; right: X op(a) = B, i.e. op(a)^T X^T = B^T.
      const int64_t vectors = left ? cols : rows;
      for (int64_t v = 0; v < vectors; ++v) {
        std::vector<long double> system(static_cast<size_t>(m * (m + 1)));
        for (int64_t r = 0; r < m; ++r) {
          for (int64_t c = 0; c < m; ++c) {
            system[static_cast<size_t>(r * (m + 1) + c)] =
                left ? t[static_cast<size_t>(r * m + c)] : t[static_cast<size_t>(c * m + r)];
          }
          const int64_t at = bi * rows * cols + (left ? r * cols + v : v * cols + r);
          system[static_cast<size_t>(r * (m + 1) + m)] = ElementAsDouble(
              type, args[b_arg->index()].bytes.data() + static_cast<size_t>(at) * size);
        }
        for (int64_t k = 0; k < m; ++k) {  // elimination with partial pivoting
          int64_t pivot = k;
          for (int64_t r = k + 1; r < m; ++r) {
            if (std::fabs(system[static_cast<size_t>(r * (m + 1) + k)]) >
                std::fabs(system[static_cast<size_t>(pivot * (m + 1) + k)]))
              pivot = r;
          }
          for (int64_t c = 0; c <= m; ++c) {
            std::swap(system[static_cast<size_t>(k * (m + 1) + c)],
                      system[static_cast<size_t>(pivot * (m + 1) + c)]);
          }
          for (int64_t r = k + 1; r < m; ++r) {
            const long double f = system[static_cast<size_t>(r * (m + 1) + k)] /
                                  system[static_cast<size_t>(k * (m + 1) + k)];
            for (int64_t c = k; c <= m; ++c) {
              system[static_cast<size_t>(r * (m + 1) + c)] -=
                  f * system[static_cast<size_t>(k * (m + 1) + c)];
            }
          }
        }
        std::vector<long double> x(static_cast<size_t>(m));
        long double largest = 1.0L;
        for (int64_t r = m; r-- > 0;) {
          long double sum = system[static_cast<size_t>(r * (m + 1) + m)];
          for (int64_t c = r + 1; c < m; ++c)
            sum -= system[static_cast<size_t>(r * (m + 1) + c)] * x[static_cast<size_t>(c)];
          x[static_cast<size_t>(r)] = sum / system[static_cast<size_t>(r * (m + 1) + r)];
          largest = std::max(largest, std::fabs(x[static_cast<size_t>(r)]));
        }
        for (int64_t r = 0; r < m; ++r) {
          const int64_t at = bi * rows * cols + (left ? r * cols + v : v * cols + r);
          const double got =
              ElementAsDouble(type, results[j].data() + static_cast<size_t>(at) * size);
          const long double want = x[static_cast<size_t>(r)];
          if (std::fabs(got - want) <= tolerance * largest) continue;
          if (++mismatches > 20) continue;
          ADD_FAILURE() << family << ": triangular_solve (line " << op->location().line << ", "
                        << b_type.ToString() << ") batch " << bi << " vector " << v << " element "
                        << r << ": got " << got << ", the solution is "
                        << static_cast<double>(want);
        }
      }
    }
  }
  return mismatches;
}

}  // namespace berth::cuda::testing

#endif  // BERTH_TESTS_CUDA_FAMILY_CHECK_HPP_
