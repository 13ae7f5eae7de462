// What the cuda code generator's test programs are made with: a builder of
// one-function programs (ProgramBuilder) and a family of them with how
// closely its kernels must match the cpu plugin (KernelFamily). Shared by
// the family headers (elementwise_families.hpp, kernel_families.hpp).
#ifndef BERTH_TESTS_CUDA_PROGRAM_BUILDER_HPP_
#define BERTH_TESTS_CUDA_PROGRAM_BUILDER_HPP_

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace berth::cuda::testing {

inline const std::vector<std::string> kIntTypes = {"i8",  "i16",  "i32",  "i64",
                                                   "ui8", "ui16", "ui32", "ui64"};
inline const std::vector<std::string> kSignedTypes = {"i8", "i16", "i32", "i64"};
inline const std::vector<std::string> kFloatTypes = {"f16", "bf16", "f32", "f64"};

inline std::vector<std::string> Join(std::initializer_list<std::vector<std::string>> lists) {
  std::vector<std::string> all;
  for (const auto& list : lists) all.insert(all.end(), list.begin(), list.end());
  return all;
}

// A function taking one tensor<SHAPExT> per type, applying each op of
// `ops` to each type (generic op syntax) and returning every result.
class ProgramBuilder {
 public:
  explicit ProgramBuilder(std::string shape = "37") : shape_(std::move(shape)) {}

  std::string Tensor(const std::string& type) const {
    return "tensor<" + shape_ + (shape_.empty() ? "" : "x") + type + ">";
  }

  // An argument of `type` (one per type and role), by name.
  std::string Arg(const std::string& type, const std::string& role = "a", bool scalar = false) {
    std::string spelled = type;  // complex<f32> as complex_f32
    std::replace(spelled.begin(), spelled.end(), '<', '_');
    std::erase(spelled, '>');
    const std::string name = "%" + role + "_" + spelled + (scalar ? "_s" : "");
    for (const auto& [n, t] : args_) {
      if (n == name) return name;
    }
    args_.emplace_back(name, scalar ? "tensor<" + type + ">" : Tensor(type));
    return name;
  }

  // `%rN = "stablehlo.OP"(operands) {attrs} : (types) -> result`.
  void Op(const std::string& op, const std::vector<std::string>& operands,
          const std::vector<std::string>& types, const std::string& result,
          const std::string& attrs = "") {
    const std::string name = "%r" + std::to_string(results_.size());
    // "add" is stablehlo.add; a dialect's op is named whole ("chlo.mulhi").
    const std::string full = op.find('.') == std::string::npos ? "stablehlo." + op : op;
    std::string line = "  " + name + " = \"" + full + "\"(";
    for (size_t i = 0; i < operands.size(); ++i) line += (i ? ", " : "") + operands[i];
    line += ")" + (attrs.empty() ? "" : " {" + attrs + "}") + " : (";
    for (size_t i = 0; i < types.size(); ++i) line += (i ? ", " : "") + types[i];
    line += ") -> " + result + "\n";
    body_ += line;
    results_.emplace_back(name, result);
  }

  // Lines of any ops (pretty syntax, regions too) whose value `name` of
  // `type` is returned.
  void Returned(const std::string& lines, const std::string& name, const std::string& type) {
    body_ += lines;
    results_.emplace_back(name, type);
  }

  // A further function (its whole text) after @main, for main to call.
  void Function(const std::string& text) { functions_ += text; }
  // Lines of the body that return nothing themselves (values for later ops).
  void Lines(const std::string& lines) { body_ += lines; }

  // An argument of any tensor type, by its full name ("%x").
  void NamedArg(const std::string& name, const std::string& type) {
    args_.emplace_back(name, type);
  }

  // `%tN = TEXT` (pretty syntax), a value that is not returned; its name.
  // TEXT with several results: `%tN:2 = ...`, read as NAME#0, NAME#1.
  std::string Value(const std::string& text) {
    const std::string name = "%t" + std::to_string(values_++);
    const bool pair =
        text.find(") -> (") != std::string::npos && text.find("reducer") != std::string::npos;
    body_ += "  " + name + (pair ? ":2" : "") + " = " + text + "\n";
    return name;
  }

  void Unary(const std::string& op, const std::string& type) {
    Op(op, {Arg(type)}, {Tensor(type)}, Tensor(type));
  }
  void Binary(const std::string& op, const std::string& type) {
    Op(op, {Arg(type), Arg(type, "b")}, {Tensor(type), Tensor(type)}, Tensor(type));
  }

  std::string Text() const {
    std::string text = "func.func @main(";
    for (size_t i = 0; i < args_.size(); ++i)
      text += (i ? ", " : "") + args_[i].first + ": " + args_[i].second;
    text += ") -> (";
    for (size_t i = 0; i < results_.size(); ++i) text += (i ? ", " : "") + results_[i].second;
    text += ") {\n" + body_ + "  return ";
    for (size_t i = 0; i < results_.size(); ++i) text += (i ? ", " : "") + results_[i].first;
    text += " : ";
    for (size_t i = 0; i < results_.size(); ++i) text += (i ? ", " : "") + results_[i].second;
    return text + "\n}\n" + functions_;
  }

  size_t num_results() const { return results_.size(); }

 private:
  std::string shape_;
  std::vector<std::pair<std::string, std::string>> args_;
  std::vector<std::pair<std::string, std::string>> results_;
  std::string body_;
  std::string functions_;
  int values_ = 0;
};

struct KernelFamily {
  std::string name;
  ProgramBuilder program;
  // How far the host-compiled kernels' floats may be from the cpu plugin's
  // (f16/bf16: half_ulps): 0 but for transcendental functions, whose math
  // libraries differ in the last bits, and sums in another order.
  int64_t ulps = 0;
  int64_t half_ulps = 0;
  // One kernel (the NVRTC test checks that the planner fuses it so).
  bool one_kernel = true;
  // Arguments are small integers (floats too): sums are exact in any order.
  bool small_values = false;
  // Floats are ordinary finite values (no NaN, inf or random bit patterns):
  // long sums stay finite, so their order and rounding show in the bits.
  bool finite_values = false;
  // triangular_solve ops, each on arguments of its own: not compared with
  // the cpu plugin (whose solver sums in another order) but checked against
  // a solve in long double on well-conditioned arguments (family_check.hpp:
  // SolveArguments, CheckSolutions).
  bool solves = false;
  // fft ops, each of an argument: not compared with the cpu plugin (whose
  // kissfft sums in another order) but checked against the transforms
  // computed in long double (fft_check.hpp: TransformArguments,
  // CheckTransforms).
  bool transforms = false;
};

}  // namespace berth::cuda::testing

#endif  // BERTH_TESTS_CUDA_PROGRAM_BUILDER_HPP_
