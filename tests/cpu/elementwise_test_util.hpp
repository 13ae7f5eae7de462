// Helpers for the elementwise kernel tests: typed 1-D literals, one op run
// in generic syntax, and a fixture that runs every test twice, with the plan
// fusing elementwise chains and with each op as its own kernel.
#ifndef BERTH_TESTS_CPU_ELEMENTWISE_TEST_UTIL_HPP_
#define BERTH_TESTS_CPU_ELEMENTWISE_TEST_UTIL_HPP_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "kernel_test_util.hpp"
#include "program_runner.hpp"

namespace berth::testing {

// The integer extremes the wrapping and saturation cases use.
constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();

// The MLIR spelling of a buffer element type.
inline std::string MlirType(ElementType type) {
  switch (type) {
    case ElementType::kPred: return "i1";
    case ElementType::kS8: return "i8";
    case ElementType::kS16: return "i16";
    case ElementType::kS32: return "i32";
    case ElementType::kS64: return "i64";
    case ElementType::kU8: return "ui8";
    case ElementType::kU16: return "ui16";
    case ElementType::kU32: return "ui32";
    case ElementType::kU64: return "ui64";
    case ElementType::kF16: return "f16";
    case ElementType::kBF16: return "bf16";
    case ElementType::kF32: return "f32";
    case ElementType::kF64: return "f64";
    case ElementType::kC64: return "complex<f32>";
    case ElementType::kC128: return "complex<f64>";
    default: return std::string(ElementTypeName(type));  // i4, f8E4M3FN, ...: the same names
  }
}

// "tensor<2x3xf32>".
inline std::string TensorType(const std::vector<int64_t>& dims, const std::string& element) {
  std::string text = "tensor<";
  for (int64_t d : dims) text += std::to_string(d) + "x";
  return text + element + ">";
}

inline std::string TensorType(const Literal& literal) {
  return TensorType(literal.dims, MlirType(literal.type));
}

// A 1-D literal of `values`.
template <typename T>
Literal Vec(const std::vector<T>& values) {
  return Literal::Of<T>(values, {static_cast<int64_t>(values.size())});
}

// A rank-0 literal.
template <typename T>
Literal Scalar(T value) {
  return Literal::Of<T>({value}, {});
}

// 1-D f16 / bf16 literals from bit patterns.
inline Literal F16(const std::vector<uint16_t>& bits) {
  return Literal::Raw<uint16_t>(ElementType::kF16, bits, {static_cast<int64_t>(bits.size())});
}
inline Literal BF16(const std::vector<uint16_t>& bits) {
  return Literal::Raw<uint16_t>(ElementType::kBF16, bits, {static_cast<int64_t>(bits.size())});
}

inline uint32_t Bits(float value) { return std::bit_cast<uint32_t>(value); }
inline uint64_t Bits(double value) { return std::bit_cast<uint64_t>(value); }
inline float F32Bits(uint32_t bits) { return std::bit_cast<float>(bits); }
inline double F64Bits(uint64_t bits) { return std::bit_cast<double>(bits); }

inline constexpr float kInfF = std::numeric_limits<float>::infinity();
inline constexpr double kInfD = std::numeric_limits<double>::infinity();
inline const float kNaNF = std::numeric_limits<float>::quiet_NaN();
inline const double kNaND = std::numeric_limits<double>::quiet_NaN();

// Bit patterns of a float vector, to compare signed zeros and NaNs exactly.
template <typename T>
auto BitsOf(const std::vector<T>& values) {
  std::vector<decltype(Bits(T{}))> out;
  for (T v : values) out.push_back(Bits(v));
  return out;
}

// Parameter: whether the plan fuses elementwise ops.
class ElementwiseTest : public ::testing::TestWithParam<bool> {
 protected:
  CompileOptions Options() const {
    CompileOptions options;
    options.options["fuse_elementwise"] = GetParam();
    return options;
  }

  Result<std::vector<Literal>> Compute(const std::string& program,
                                       const std::vector<Literal>& args) const {
    return CpuRunner::Get().Run(program, args, Options());
  }

  // The program applying op `name` (generic syntax, `attrs` inside {...})
  // to `args`, giving element type `out` with dims `out_dims` (default: the
  // dims of the argument of highest rank).
  static std::string OpProgram(const std::string& name, const std::vector<Literal>& args,
                               const std::string& out, const std::string& attrs = "",
                               std::optional<std::vector<int64_t>> out_dims = std::nullopt) {
    std::vector<int64_t> dims;
    for (const Literal& arg : args) {
      if (arg.dims.size() >= dims.size()) dims = arg.dims;
    }
    if (out_dims) dims = *out_dims;
    std::string result = TensorType(dims, out);
    std::string params, operands, types;
    for (size_t i = 0; i < args.size(); ++i) {
      std::string sep = i == 0 ? "" : ", ";
      params += sep + "%a" + std::to_string(i) + ": " + TensorType(args[i]);
      operands += sep + "%a" + std::to_string(i);
      types += sep + TensorType(args[i]);
    }
    return "func.func @main(" + params + ") -> " + result + " {\n  %0 = \"" + name + "\"(" +
           operands + ")" + (attrs.empty() ? "" : " {" + attrs + "}") + " : (" + types + ") -> " +
           result + "\n  return %0 : " + result + "\n}\n";
  }

  // Runs one op and returns its result (an empty literal after a failure).
  Literal Op(const std::string& name, const std::vector<Literal>& args, const std::string& out,
             const std::string& attrs = "",
             std::optional<std::vector<int64_t>> out_dims = std::nullopt) const {
    std::string program = OpProgram(name, args, out, attrs, out_dims);
    Result<std::vector<Literal>> result = Compute(program, args);
    if (!result.ok()) {
      ADD_FAILURE() << result.status().ToString() << "\nin\n" << program;
      return Literal();
    }
    return std::move(result).value().at(0);
  }

  // The op's result values as T.
  template <typename T>
  std::vector<T> Values(const std::string& name, const std::vector<Literal>& args,
                        const std::string& out, const std::string& attrs = "",
                        std::optional<std::vector<int64_t>> out_dims = std::nullopt) const {
    return Op(name, args, out, attrs, out_dims).template Values<T>();
  }
};

inline std::string FusionName(const ::testing::TestParamInfo<bool>& info) {
  return info.param ? "Fused" : "Alone";
}

}  // namespace berth::testing

#endif  // BERTH_TESTS_CPU_ELEMENTWISE_TEST_UTIL_HPP_
