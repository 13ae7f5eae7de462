// batch_norm_inference, batch_norm_training and batch_norm_grad as
// generated kernels in the cpu plugin's arithmetic (kernels_batch_norm.cc):
// every operand widened to double, epsilon and the element count per
// feature rounded to the operand's type first, each result rounded once.
// The sums per feature are the cpu plugin's too: the operand cut into
// segments of max(8192, features) elements in row-major order, each
// feature's terms summed from zero within a segment, the segments' parts
// added in order - here one thread per feature walking its elements in
// order and closing a part where a segment ends. Launches: training 0 the
// means, 1 the variances (centred on the rounded means), 2 the normalized
// elements; grad 0 the three sums, 1 the operand's gradient; inference one,
// per element. Per-feature values in double are kept in the scratch.
#include <cstdio>
#include <string>

#include "codegen/elementwise_codegen.hpp"
#include "codegen/kernel_emitters.hpp"

namespace berth::cuda {

using namespace codegen;  // kernel_emitters.hpp

namespace {

constexpr int64_t kSegmentElements = int64_t{1} << 13;

bool IsBatchNorm(OpKind kind) {
  return kind == OpKind::kBatchNormInference || kind == OpKind::kBatchNormTraining ||
         kind == OpKind::kBatchNormGrad;
}

// The operand as [outer, features, inner] around feature_index.
struct Layout {
  int64_t outer = 1, features = 0, inner = 1;
  int64_t total() const { return outer * features * inner; }
};

Layout LayoutOf(const Operation& op) {
  const stablehlo::Type x = op.operand(0)->type();
  const int64_t feature = *op.GetInt("feature_index");
  Layout layout;
  layout.features = x.dim(feature);
  for (int64_t d = 0; d < feature; ++d) layout.outer *= x.dim(d);
  for (int64_t d = feature + 1; d < x.rank(); ++d) layout.inner *= x.dim(d);
  return layout;
}

// `value` rounded to `type` as convert rounds it, back in double.
double RoundedTo(ElementType type, double value) {
  return stablehlo::DecodeFloat(type, stablehlo::EncodeFloat(type, value));
}

// A double as an exact CUDA C literal.
std::string DoubleLiteral(double value) {
  char text[64];
  std::snprintf(text, sizeof(text), "%a", value);
  return text;
}

// Per feature f, code summing term (an expression of `e`, the element, and
// `f`) over its elements as the cpu plugin does, into double `name`.
std::string FeatureSum(const Layout& layout, const std::vector<std::string>& names,
                       const std::vector<std::string>& terms) {
  const int64_t segment = std::max(kSegmentElements, layout.features);
  std::string code;
  for (size_t t = 0; t < names.size(); ++t)
    code += "      double " + names[t] + " = 0.0, " + names[t] + "_part = 0.0;\n";
  code += "      berth_s64 segment = -1;\n";
  code += "      for (berth_s64 o = 0; o < " + std::to_string(layout.outer) + "LL; ++o) {\n";
  code += "        for (berth_s64 in = 0; in < " + std::to_string(layout.inner) + "LL; ++in) {\n";
  code += "          const berth_s64 e = (o * " + std::to_string(layout.features) + "LL + f) * " +
          std::to_string(layout.inner) + "LL + in;\n";
  code += "          if (e / " + std::to_string(segment) + "LL != segment) {\n";
  for (const std::string& name : names)
    code +=
        "            " + name + " += " + name + "_part;\n            " + name + "_part = 0.0;\n";
  code += "            segment = e / " + std::to_string(segment) + "LL;\n          }\n";
  for (size_t t = 0; t < names.size(); ++t)
    code += "          " + names[t] + "_part += " + terms[t] + ";\n";
  code += "        }\n      }\n";
  for (const std::string& name : names) code += "      " + name + " += " + name + "_part;\n";
  return code;
}

}  // namespace

Status CheckBatchNorm(const Operation& op) {
  if (!IsBatchNorm(op.kind())) return Unsupported(op, "not a batch_norm op");
  const size_t operands = op.kind() == OpKind::kBatchNormTraining ? 3 : 5;
  const size_t results = op.kind() == OpKind::kBatchNormInference ? 1 : 3;
  if (op.num_operands() != operands || op.num_results() != results)
    return Unsupported(op, "not the operands and results of its kind");
  const stablehlo::Type x = op.operand(0)->type();
  const std::optional<int64_t> feature = op.GetInt("feature_index");
  if (!feature || *feature < 0 || *feature >= x.rank() || !op.GetFloat("epsilon"))
    return Unsupported(op, "it needs a feature_index of its operand and an epsilon");
  const ElementType type = x.element_type();
  if (!stablehlo::IsFloat(type)) return Unsupported(op, "its operands must be floats");
  for (const stablehlo::Value* value : op.operands())
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, value->type()));
  for (const stablehlo::Value* value : op.results())
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, value->type()));
  auto fits = [&](const stablehlo::Value* value, bool full) {
    const stablehlo::Type t = value->type();
    return t.element_type() == type &&
           (full ? t == x : t.rank() == 1 && t.dim(0) == x.dim(*feature));
  };
  for (size_t i = 0; i < operands; ++i) {
    const bool full = i == 0 || (op.kind() == OpKind::kBatchNormGrad && i == 4);
    if (!fits(op.operand(i), full))
      return Unsupported(op, "operand #" + std::to_string(i) + " does not fit its operand");
  }
  for (size_t j = 0; j < results; ++j) {
    if (!fits(op.result(j), j == 0))
      return Unsupported(op, "result #" + std::to_string(j) + " does not fit its operand");
  }
  return OkStatus();
}

int64_t BatchNormThreads(const Operation& op, std::vector<int64_t>& launches,
                         int64_t& scratch_bytes) {
  const Layout layout = LayoutOf(op);
  switch (op.kind()) {
    case OpKind::kBatchNormTraining: launches = {0, 1, 2}; break;
    case OpKind::kBatchNormGrad: launches = {0, 1}; break;
    default: launches.clear(); break;
  }
  scratch_bytes = 2 * layout.features * 8;
  return std::max(layout.total(), layout.features);
}

Result<std::string> codegen::EmitBatchNormKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  BERTH_RETURN_IF_ERROR(CheckBatchNorm(op));
  const Layout layout = LayoutOf(op);
  const ElementType type = op.operand(0)->type().element_type();
  const std::string epsilon =
      DoubleLiteral(RoundedTo(type, RoundedTo(ElementType::kF32, *op.GetFloat("epsilon"))));
  const int64_t per_feature = layout.features == 0 ? 0 : layout.total() / layout.features;
  const std::string count = DoubleLiteral(RoundedTo(type, static_cast<double>(per_feature)));
  // Operand k's element `at` in double.
  std::vector<std::string> params;
  for (const stablehlo::Value* operand : op.operands()) {
    BERTH_ASSIGN_OR_RETURN(std::string param, InputParam(kernel, operand));
    params.push_back(param);
  }
  auto in = [&](size_t k, const std::string& at) {
    return "(double)(" +
           ConvertExpression(type, ElementType::kF64,
                             "(" + Load(type, params[k] + "[" + at + "]") + ")") +
           ")";
  };
  auto rounded = [&](const std::string& value) {  // to the type, in double
    return "(double)(" + ConvertExpression(ElementType::kF64, type, "(" + value + ")") + ")";
  };
  auto store = [&](const std::string& value) {
    return Store(type, ConvertExpression(ElementType::kF64, type, "(" + value + ")"));
  };
  const std::string features = std::to_string(layout.features) + "LL";
  const std::string total = std::to_string(layout.total()) + "LL";
  std::string body;
  body += "    const berth_s64 f_of_i = (i / " + std::to_string(layout.inner) + "LL) % " +
          std::to_string(std::max<int64_t>(layout.features, 1)) + "LL;\n";
  body += "    (void)f_of_i;\n";
  if (op.kind() == OpKind::kBatchNormInference) {
    // scale * ((x - mean) / sqrt(variance + epsilon)) + offset.
    body += "    if (i < " + total + ") {\n      const berth_s64 f = f_of_i;\n";
    body += "      const double stddev = sqrt(" + in(4, "f") + " + " + epsilon + ");\n";
    body += "      out0[i] = " +
            store(in(1, "f") + " * ((" + in(0, "i") + " - " + in(3, "f") + ") / stddev) + " +
                  in(2, "f")) +
            ";\n    }\n";
    return WrapKernel(kernel.name, KernelParams(kernel), body);
  }
  if (op.kind() == OpKind::kBatchNormTraining) {
    // The scratch: the rounded means, then the rounded variances.
    body += "    double* const mean = (double*)scratch;\n";
    body += "    double* const variance = mean + " + features + ";\n";
    body += "    if (pass == 0 && i < " + features + ") {\n      const berth_s64 f = i;\n";
    body += FeatureSum(layout, {"sum"}, {in(0, "e")});
    body += "      mean[f] = " + rounded("sum / " + count) + ";\n";
    body += "      out1[f] = " + store("mean[f]") + ";\n    }\n";
    body += "    if (pass == 1 && i < " + features + ") {\n      const berth_s64 f = i;\n";
    body += FeatureSum(layout, {"sum"},
                       {"(" + in(0, "e") + " - mean[f]) * (" + in(0, "e") + " - mean[f])"});
    body += "      variance[f] = " + rounded("sum / " + count) + ";\n";
    body += "      out2[f] = " + store("variance[f]") + ";\n    }\n";
    body += "    if (pass == 2 && i < " + total + ") {\n      const berth_s64 f = f_of_i;\n";
    body += "      const double stddev = sqrt(variance[f] + " + epsilon + ");\n";
    body += "      out0[i] = " +
            store(in(1, "f") + " * ((" + in(0, "i") + " - mean[f]) / stddev) + " + in(2, "f")) +
            ";\n    }\n";
    return WrapKernel(kernel.name, KernelParams(kernel), body);
  }
  // grad: (operand, scale, mean, variance, grad_output); the scratch: the
  // sums of grad_output and of it times the centred operand.
  body += "    double* const sum_dy = (double*)scratch;\n";
  body += "    double* const sum_dyc = sum_dy + " + features + ";\n";
  body += "    if (pass == 0 && i < " + features + ") {\n      const berth_s64 f = i;\n";
  body += "      const double stddev = sqrt(" + in(3, "f") + " + " + epsilon + ");\n";
  const std::string centered = "(" + in(0, "e") + " - " + in(2, "f") + ")";
  body += FeatureSum(
      layout, {"dy", "dyc", "gs"},
      {in(4, "e"), in(4, "e") + " * " + centered, in(4, "e") + " * (" + centered + " / stddev)"});
  body += "      sum_dy[f] = dy;\n      sum_dyc[f] = dyc;\n";
  body += "      out1[f] = " + store("gs") + ";\n      out2[f] = " + store("dy") + ";\n    }\n";
  body += "    if (pass == 1 && i < " + total + ") {\n      const berth_s64 f = f_of_i;\n";
  body += "      const double var_eps = " + in(3, "f") + " + " + epsilon + ";\n";
  body += "      const double stddev = sqrt(var_eps);\n";
  body += "      const double centered = " + in(0, "i") + " - " + in(2, "f") + ";\n";
  body += "      const double i1 = " + in(4, "i") + " * " + count + ";\n";
  body += "      const double i5 = sum_dyc[f] * centered / var_eps;\n";
  body += "      const double i6 = (i1 - sum_dy[f]) - i5;\n";
  body += "      out0[i] = " + store(in(1, "f") + " / stddev / " + count + " * i6") + ";\n    }\n";
  return WrapKernel(kernel.name, KernelParams(kernel), body);
}

}  // namespace berth::cuda
