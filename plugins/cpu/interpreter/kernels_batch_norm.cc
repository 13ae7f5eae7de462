// stablehlo.batch_norm_inference, batch_norm_training and batch_norm_grad,
// per the spec's decompositions, for every float type.
//
// Every float type computes in f64: the operands are widened, the
// statistics summed in f64 and each result rounded once to its type (for
// f16, bf16 and f32 more accurate than the decomposition's op-by-op
// rounding; for f64 the decomposition itself). As the decompositions do,
// epsilon and the element count per feature are first rounded to the
// operand's type, and batch_norm_training normalizes with the mean and
// variance it returns, rounded to that type, its variance being the mean of
// squares centred on that rounded mean (two passes, no cancellation).
//
// Sums per feature run over fixed segments of the operand whose partial
// sums are then added in segment order: the same bits whatever the number
// of threads. This file is built once, for the baseline ISA (it is not one
// of the hot kernels of isa/), so every CPU gives the same bits too.
#include <algorithm>
#include <cmath>

#include "interpreter/data_movement.hpp"
#include "interpreter/parallel.hpp"
#include "interpreter/reduction.hpp"

namespace berth::cpu {
namespace {

using stablehlo::OpKind;

// Elements per segment of a sum (at least one feature's worth of columns).
constexpr int64_t kSegmentElements = 1 << 13;
// Elements per task of an elementwise pass.
constexpr int64_t kMinParallelElements = 1 << 14;

// The operand seen as [outer, features, inner] around the feature dim.
struct FeatureLayout {
  int64_t outer = 1;
  int64_t features = 0;
  int64_t inner = 1;
  int64_t total() const { return outer * features * inner; }
};

// Walks flat element indices from `begin`, tracking the feature of each.
class FeatureCursor {
 public:
  FeatureCursor(const FeatureLayout& layout, int64_t begin)
      : layout_(layout), i_(begin % layout.inner), f_(begin / layout.inner % layout.features) {}
  int64_t feature() const { return f_; }
  void Next() {
    if (++i_ < layout_.inner) return;
    i_ = 0;
    if (++f_ == layout_.features) f_ = 0;
  }

 private:
  const FeatureLayout& layout_;
  int64_t i_;
  int64_t f_;
};

// Per feature f, the sum of term(e, f) over the elements e of feature f, in
// an order fixed by the layout alone.
template <typename Term>
std::vector<double> SumPerFeature(const FeatureLayout& layout, ThreadPool* pool, Term&& term) {
  const int64_t features = layout.features;
  std::vector<double> sums(static_cast<size_t>(features), 0.0);
  const int64_t total = layout.total();
  if (total == 0) return sums;
  const int64_t segment = std::max(kSegmentElements, features);
  const int64_t segments = (total + segment - 1) / segment;
  std::vector<double> partial(static_cast<size_t>(segments * features), 0.0);
  ParallelFor(pool, segments, 1, [&](int64_t begin, int64_t end) {
    for (int64_t s = begin; s < end; ++s) {
      double* part = partial.data() + s * features;
      const int64_t e0 = s * segment, e1 = std::min(total, e0 + segment);
      FeatureCursor cursor(layout, e0);
      for (int64_t e = e0; e < e1; ++e, cursor.Next()) part[cursor.feature()] += term(e, cursor.feature());
    }
  });
  for (int64_t s = 0; s < segments; ++s) {
    for (int64_t f = 0; f < features; ++f) sums[f] += partial[s * features + f];
  }
  return sums;
}

// out[e] = value(e, f) for every element e (of feature f).
template <typename Value>
void ForEachElement(const FeatureLayout& layout, ThreadPool* pool, double* out, Value&& value) {
  ParallelFor(pool, layout.total(), kMinParallelElements, [&](int64_t begin, int64_t end) {
    FeatureCursor cursor(layout, begin);
    for (int64_t e = begin; e < end; ++e, cursor.Next()) out[e] = value(e, cursor.feature());
  });
}

// What every batch_norm op reads: the operand's type and layout, epsilon
// and the count per feature (both rounded to the operand's type), and the
// operands widened to f64.
struct BatchNormInputs {
  ElementType type = ElementType::kF32;
  FeatureLayout layout;
  double epsilon = 0;
  double count = 0;
  std::vector<Tensor> wide;  // call.operands in f64
};

// `v` rounded to `type` (as stablehlo.convert does) and widened back.
Result<double> RoundTo(double v, ElementType type) {
  BERTH_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(ElementType::kF64, {}));
  *t.data<double>() = v;
  BERTH_ASSIGN_OR_RETURN(Tensor narrow, ConvertTensor(t, type, nullptr));
  BERTH_ASSIGN_OR_RETURN(Tensor wide, ConvertTensor(narrow, ElementType::kF64, nullptr));
  return *wide.data<double>();
}

Result<BatchNormInputs> ReadInputs(const KernelCall& call, size_t operands) {
  if (call.operands.size() != operands) {
    return InvalidArgumentError("takes " + std::to_string(operands) + " operands");
  }
  const Tensor& x = call.operands[0];
  BatchNormInputs in;
  in.type = x.type();
  if (!stablehlo::IsFloat(in.type) || !IsSupportedElementType(in.type)) {
    return UnsupportedElementType(in.type, call.op.name());
  }
  std::optional<int64_t> feature_index = call.op.GetInt("feature_index");
  if (!feature_index || *feature_index < 0 || *feature_index >= x.rank()) {
    return InvalidArgumentError("feature_index must lie in [0, " + std::to_string(x.rank()) + ")");
  }
  std::optional<double> epsilon = call.op.GetFloat("epsilon");
  if (!epsilon) return InvalidArgumentError("needs a float epsilon");
  const size_t f = static_cast<size_t>(*feature_index);
  in.layout.features = x.dims()[f];
  for (size_t d = 0; d < f; ++d) in.layout.outer *= x.dims()[d];
  for (size_t d = f + 1; d < x.dims().size(); ++d) in.layout.inner *= x.dims()[d];
  for (size_t i = 0; i < operands; ++i) {
    const Tensor& t = call.operands[i];
    if (t.type() != in.type) {
      return InvalidArgumentError("operand #" + std::to_string(i) + " is " + t.TypeString() +
                                  ", not of the operand's element type");
    }
    const bool full = i == 0 || (call.op.kind() == OpKind::kBatchNormGrad && i == 4);
    if (full ? t.dims() != x.dims()
             : t.rank() != 1 || t.dims()[0] != in.layout.features) {
      return InvalidArgumentError("operand #" + std::to_string(i) + " is " + t.TypeString() +
                                  (full ? ", not of the operand's shape"
                                        : ", not a vector of one value per feature"));
    }
    BERTH_ASSIGN_OR_RETURN(Tensor wide, ConvertTensor(t, ElementType::kF64, call.ctx.pool()));
    in.wide.push_back(std::move(wide));
  }
  // epsilon is an f32 constant, converted to the operand's type.
  BERTH_ASSIGN_OR_RETURN(double epsilon_f32, RoundTo(*epsilon, ElementType::kF32));
  BERTH_ASSIGN_OR_RETURN(in.epsilon, RoundTo(epsilon_f32, in.type));
  const int64_t per_feature = in.layout.features == 0 ? 0 : in.layout.total() / in.layout.features;
  BERTH_ASSIGN_OR_RETURN(in.count, RoundTo(static_cast<double>(per_feature), in.type));
  return in;
}

// Rounds f64 `values` (of `dims`) to result `index` of the op.
Status PushResult(KernelCall& call, size_t index, const Tensor& values) {
  ElementType type = call.op.result(index)->type().element_type();
  BERTH_RETURN_IF_ERROR(CheckResultDims(call, index, values.dims()));
  BERTH_ASSIGN_OR_RETURN(Tensor result, ConvertTensor(values, type, call.ctx.pool()));
  call.results.push_back(std::move(result));
  return OkStatus();
}

Result<Tensor> Vector(const std::vector<double>& values) {
  BERTH_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(ElementType::kF64,
                                                    {static_cast<int64_t>(values.size())}));
  std::copy(values.begin(), values.end(), t.data<double>());
  return t;
}

// scale * ((x - mean) / sqrt(variance + epsilon)) + offset, per element.
Result<Tensor> Normalize(const BatchNormInputs& in, const Tensor& x, const double* scale,
                         const double* offset, const double* mean, const double* variance,
                         ThreadPool* pool) {
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(ElementType::kF64, x.dims()));
  std::vector<double> stddev(static_cast<size_t>(in.layout.features));
  for (size_t f = 0; f < stddev.size(); ++f) stddev[f] = std::sqrt(variance[f] + in.epsilon);
  const double* xs = x.data<double>();
  ForEachElement(in.layout, pool, out.data<double>(), [&](int64_t e, int64_t f) {
    return scale[f] * ((xs[e] - mean[f]) / stddev[f]) + offset[f];
  });
  return out;
}

// (operand, scale, offset, mean, variance) -> result.
Status BatchNormInference(KernelCall& call) {
  BERTH_ASSIGN_OR_RETURN(BatchNormInputs in, ReadInputs(call, 5));
  const std::vector<Tensor>& w = in.wide;
  BERTH_ASSIGN_OR_RETURN(Tensor out, Normalize(in, w[0], w[1].data<double>(), w[2].data<double>(),
                                               w[3].data<double>(), w[4].data<double>(),
                                               call.ctx.pool()));
  return PushResult(call, 0, out);
}

// (operand, scale, offset) -> (output, batch_mean, batch_var).
Status BatchNormTraining(KernelCall& call) {
  BERTH_ASSIGN_OR_RETURN(BatchNormInputs in, ReadInputs(call, 3));
  ThreadPool* pool = call.ctx.pool();
  const std::vector<Tensor>& w = in.wide;
  const double* xs = w[0].data<double>();
  std::vector<double> mean = SumPerFeature(in.layout, pool, [&](int64_t e, int64_t) { return xs[e]; });
  for (double& m : mean) {
    BERTH_ASSIGN_OR_RETURN(m, RoundTo(m / in.count, in.type));
  }
  std::vector<double> variance = SumPerFeature(in.layout, pool, [&](int64_t e, int64_t f) {
    const double centered = xs[e] - mean[f];
    return centered * centered;
  });
  for (double& v : variance) {
    BERTH_ASSIGN_OR_RETURN(v, RoundTo(v / in.count, in.type));
  }
  BERTH_ASSIGN_OR_RETURN(Tensor out, Normalize(in, w[0], w[1].data<double>(), w[2].data<double>(),
                                               mean.data(), variance.data(), pool));
  BERTH_RETURN_IF_ERROR(PushResult(call, 0, out));
  BERTH_ASSIGN_OR_RETURN(Tensor mean_t, Vector(mean));
  BERTH_RETURN_IF_ERROR(PushResult(call, 1, mean_t));
  BERTH_ASSIGN_OR_RETURN(Tensor variance_t, Vector(variance));
  return PushResult(call, 2, variance_t);
}

// (operand, scale, mean, variance, grad_output) -> (grad_operand,
// grad_scale, grad_offset), the spec's formulas (after XLA's
// batchnorm_expander) term by term.
Status BatchNormGrad(KernelCall& call) {
  BERTH_ASSIGN_OR_RETURN(BatchNormInputs in, ReadInputs(call, 5));
  ThreadPool* pool = call.ctx.pool();
  const std::vector<Tensor>& w = in.wide;
  const double* xs = w[0].data<double>();
  const double* scale = w[1].data<double>();
  const double* mean = w[2].data<double>();
  const double* variance = w[3].data<double>();
  const double* dy = w[4].data<double>();
  const size_t features = static_cast<size_t>(in.layout.features);
  std::vector<double> var_eps(features), stddev(features);
  for (size_t f = 0; f < features; ++f) {
    var_eps[f] = variance[f] + in.epsilon;
    stddev[f] = std::sqrt(var_eps[f]);
  }
  std::vector<double> sum_dy = SumPerFeature(in.layout, pool, [&](int64_t e, int64_t) { return dy[e]; });
  std::vector<double> sum_dy_centered = SumPerFeature(
      in.layout, pool, [&](int64_t e, int64_t f) { return dy[e] * (xs[e] - mean[f]); });
  std::vector<double> grad_scale = SumPerFeature(in.layout, pool, [&](int64_t e, int64_t f) {
    return dy[e] * ((xs[e] - mean[f]) / stddev[f]);
  });
  BERTH_ASSIGN_OR_RETURN(Tensor grad_operand, Tensor::Allocate(ElementType::kF64, w[0].dims()));
  const double count = in.count;
  ForEachElement(in.layout, pool, grad_operand.data<double>(), [&](int64_t e, int64_t f) {
    const double centered = xs[e] - mean[f];
    const double i1 = dy[e] * count;
    const double i5 = sum_dy_centered[f] * centered / var_eps[f];
    const double i6 = (i1 - sum_dy[f]) - i5;
    return scale[f] / stddev[f] / count * i6;
  });
  BERTH_RETURN_IF_ERROR(PushResult(call, 0, grad_operand));
  BERTH_ASSIGN_OR_RETURN(Tensor grad_scale_t, Vector(grad_scale));
  BERTH_RETURN_IF_ERROR(PushResult(call, 1, grad_scale_t));
  BERTH_ASSIGN_OR_RETURN(Tensor grad_offset_t, Vector(sum_dy));
  return PushResult(call, 2, grad_offset_t);
}

}  // namespace

void RegisterBatchNormKernels(KernelRegistry& registry) {
  registry.Register({{OpKind::kBatchNormInference, BatchNormInference},
                     {OpKind::kBatchNormTraining, BatchNormTraining},
                     {OpKind::kBatchNormGrad, BatchNormGrad}});
}

}  // namespace berth::cpu
