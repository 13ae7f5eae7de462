// stablehlo.batch_norm_inference, batch_norm_training and batch_norm_grad on
// the CPU plugin: the spec's examples exactly, and seeded random shapes,
// feature dims and every float type against the spec's decompositions
// computed here in f64 (epsilon, the count per feature and the training
// statistics rounded to the operand's type as the decompositions do), within
// a tolerance of the type's precision.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "kernel_test_util.hpp"
#include "reduction_reference.hpp"

namespace berth::testing {
namespace {

std::string TensorType(const std::vector<int64_t>& dims, const std::string& element) {
  return "tensor<" + testing::DimsText(dims) + element + ">";
}

// An op of `num_results` results over `operands` of the given types.
std::string Program(const std::string& op, const std::vector<std::string>& operands,
                    const std::vector<std::string>& results, int64_t feature_index,
                    const std::string& epsilon = "1.0e-03") {
  std::string args, names, in_types, out_types, out_names;
  for (size_t i = 0; i < operands.size(); ++i) {
    args += (i ? ", " : "") + std::string("%a") + std::to_string(i) + ": " + operands[i];
    names += (i ? ", " : "") + std::string("%a") + std::to_string(i);
    in_types += (i ? ", " : "") + operands[i];
  }
  for (size_t i = 0; i < results.size(); ++i) {
    out_types += (i ? ", " : "") + results[i];
    out_names += (i ? ", " : "") + std::string("%r#") + std::to_string(i);
  }
  const std::string lhs = results.size() == 1 ? "%r" : "%r:" + std::to_string(results.size());
  if (results.size() == 1) out_names = "%r";
  return "func.func @main(" + args + ") -> (" + out_types + ") {\n  " + lhs +
         " = \"stablehlo." + op + "\"(" + names +
         ") {epsilon = " + epsilon + " : f32, feature_index = " + std::to_string(feature_index) +
         " : i64} : (" + in_types + ") -> (" + out_types + ")\n  return " + out_names + " : " +
         out_types + "\n}\n";
}

// The spec's examples (f64, epsilon 0, feature_index 2).
const std::vector<double> kOperand = {1, 2, 3, 4, 3, 4, 1, 2};

TEST(CpuBatchNormTest, InferenceMatchesTheSpecExample) {
  const std::string x = TensorType({2, 2, 2}, "f64"), v = TensorType({2}, "f64");
  BERTH_RUN(out, Program("batch_norm_inference", {x, v, v, v, v}, {x}, 2, "0.0"),
            {Literal::Of<double>(kOperand, {2, 2, 2}), Literal::Of<double>({1, 1}, {2}),
             Literal::Of<double>({1, 1}, {2}), Literal::Of<double>({2, 3}, {2}),
             Literal::Of<double>({1, 1}, {2})});
  EXPECT_EQ(out[0].Values<double>(), (std::vector<double>{0, 0, 2, 2, 2, 2, 0, 0}));
}

TEST(CpuBatchNormTest, TrainingMatchesTheSpecExample) {
  const std::string x = TensorType({2, 2, 2}, "f64"), v = TensorType({2}, "f64");
  BERTH_RUN(out, Program("batch_norm_training", {x, v, v}, {x, v, v}, 2, "0.0"),
            {Literal::Of<double>(kOperand, {2, 2, 2}), Literal::Of<double>({1, 1}, {2}),
             Literal::Of<double>({1, 1}, {2})});
  EXPECT_EQ(out[0].Values<double>(), (std::vector<double>{0, 0, 2, 2, 2, 2, 0, 0}));
  EXPECT_EQ(out[1].Values<double>(), (std::vector<double>{2, 3}));
  EXPECT_EQ(out[2].Values<double>(), (std::vector<double>{1, 1}));
}

TEST(CpuBatchNormTest, GradMatchesTheSpecExample) {
  const std::string x = TensorType({2, 2, 2}, "f64"), v = TensorType({2}, "f64");
  BERTH_RUN(out, Program("batch_norm_grad", {x, v, v, v, x}, {x, v, v}, 2, "0.0"),
            {Literal::Of<double>(kOperand, {2, 2, 2}), Literal::Of<double>({1, 1}, {2}),
             Literal::Of<double>({2, 3}, {2}), Literal::Of<double>({1, 1}, {2}),
             Literal::Of<double>(std::vector<double>(8, 0.1), {2, 2, 2})});
  for (double g : out[0].Values<double>()) EXPECT_NEAR(g, 0.0, 1e-15);
  for (double g : out[1].Values<double>()) EXPECT_NEAR(g, 0.0, 1e-15);
  for (double g : out[2].Values<double>()) EXPECT_NEAR(g, 0.4, 1e-15);
}

// ---------------------------------------------------------------- reference

struct Layout {
  int64_t outer = 1, features = 0, inner = 1;
  int64_t Feature(int64_t e) const { return e / inner % features; }
  int64_t Total() const { return outer * features * inner; }
};

Layout LayoutOf(const std::vector<int64_t>& dims, int64_t feature_index) {
  Layout l;
  l.features = dims[static_cast<size_t>(feature_index)];
  for (int64_t d = 0; d < feature_index; ++d) l.outer *= dims[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(feature_index) + 1; d < dims.size(); ++d) l.inner *= dims[d];
  return l;
}

// `v` as T would hold it.
template <typename T>
double AsType(double v) {
  if constexpr (std::is_same_v<T, double>) return v;
  else if constexpr (std::is_same_v<T, float>) return static_cast<float>(v);
  else return Elem<T>::ToCalc(Elem<T>::FromCalc(static_cast<float>(v)));
}

template <typename T>
std::vector<double> Wide(const std::vector<T>& v) {
  std::vector<double> out;
  for (T x : v) out.push_back(static_cast<double>(Elem<T>::ToCalc(x)));
  return out;
}

std::vector<double> SumPerFeature(const Layout& l, const std::function<double(int64_t)>& term) {
  std::vector<double> sums(static_cast<size_t>(l.features), 0.0);
  for (int64_t e = 0; e < l.Total(); ++e) sums[l.Feature(e)] += term(e);
  return sums;
}

// Random T values in [lo, hi].
template <typename T>
std::vector<T> RandomValues(int64_t n, std::mt19937_64& random, double lo, double hi) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> v(static_cast<size_t>(n));
  for (T& x : v) x = Elem<T>::FromCalc(static_cast<typename Elem<T>::Calc>(dist(random)));
  return v;
}

// How far a result of T may be from the f64 reference, relative to
// max(1, |reference|): a few roundings of T.
template <typename T>
double Tolerance() {
  if constexpr (std::is_same_v<T, double>) return 1e-12;
  else if constexpr (std::is_same_v<T, float>) return 1e-5;
  else if constexpr (std::is_same_v<T, F16>) return 4e-3;
  else return 3e-2;
}

template <typename T>
void ExpectClose(const Literal& got, const std::vector<double>& want, const std::string& what) {
  std::vector<double> values = Wide(testing::LiteralValues<T>(got));
  ASSERT_EQ(values.size(), want.size()) << what;
  int failures = 0;
  for (size_t i = 0; i < values.size() && failures < 5; ++i) {
    const double tolerance = Tolerance<T>() * std::max(1.0, std::fabs(want[i]));
    if (std::isnan(want[i]) ? !std::isnan(values[i]) : !(std::fabs(values[i] - want[i]) <= tolerance)) {
      ADD_FAILURE() << what << " element " << i << ": got " << values[i] << ", want " << want[i];
      ++failures;
    }
  }
}

// One random case of all three ops on T.
template <typename T>
void CheckRandom(const std::vector<int64_t>& dims, int64_t feature_index, float epsilon,
                 std::mt19937_64& random) {
  const std::string type = testing::TypeName<T>();
  const Layout l = LayoutOf(dims, feature_index);
  const std::vector<int64_t> vec_dims = {l.features};
  const std::string xt = TensorType(dims, type), vt = TensorType(vec_dims, type);
  char eps_text[32];
  std::snprintf(eps_text, sizeof(eps_text), "%.9e", static_cast<double>(epsilon));
  SCOPED_TRACE(type + " " + xt + " feature_index " + std::to_string(feature_index));

  const std::vector<T> x = RandomValues<T>(l.Total(), random, -3, 5);
  const std::vector<T> scale = RandomValues<T>(l.features, random, -2, 2);
  const std::vector<T> offset = RandomValues<T>(l.features, random, -1, 1);
  const std::vector<T> mean = RandomValues<T>(l.features, random, -1, 2);
  const std::vector<T> variance = RandomValues<T>(l.features, random, 0.1, 3);
  const std::vector<T> dy = RandomValues<T>(l.Total(), random, -1, 1);
  const std::vector<double> xw = Wide(x), sw = Wide(scale), ow = Wide(offset), mw = Wide(mean),
                            vw = Wide(variance), dyw = Wide(dy);
  const double eps = AsType<T>(static_cast<double>(epsilon));
  const double count = AsType<T>(static_cast<double>(l.features ? l.Total() / l.features : 0));

  auto normalize = [&](const std::vector<double>& m, const std::vector<double>& v) {
    std::vector<double> y(static_cast<size_t>(l.Total()));
    for (int64_t e = 0; e < l.Total(); ++e) {
      const int64_t f = l.Feature(e);
      y[e] = sw[f] * ((xw[e] - m[f]) / std::sqrt(v[f] + eps)) + ow[f];
    }
    return y;
  };

  // Inference.
  {
    BERTH_RUN(out, Program("batch_norm_inference", {xt, vt, vt, vt, vt}, {xt}, feature_index, eps_text),
              {testing::MakeLiteral(x, dims), testing::MakeLiteral(scale, vec_dims),
               testing::MakeLiteral(offset, vec_dims), testing::MakeLiteral(mean, vec_dims),
               testing::MakeLiteral(variance, vec_dims)});
    ExpectClose<T>(out[0], normalize(mw, vw), "inference");
  }
  // Training.
  {
    std::vector<double> m = SumPerFeature(l, [&](int64_t e) { return xw[e]; });
    for (double& v : m) v = AsType<T>(v / count);
    std::vector<double> var = SumPerFeature(l, [&](int64_t e) {
      const double c = xw[e] - m[l.Feature(e)];
      return c * c;
    });
    for (double& v : var) v = AsType<T>(v / count);
    BERTH_RUN(out, Program("batch_norm_training", {xt, vt, vt}, {xt, vt, vt}, feature_index, eps_text),
              {testing::MakeLiteral(x, dims), testing::MakeLiteral(scale, vec_dims),
               testing::MakeLiteral(offset, vec_dims)});
    ExpectClose<T>(out[1], m, "batch_mean");
    ExpectClose<T>(out[2], var, "batch_var");
    ExpectClose<T>(out[0], normalize(m, var), "output");
  }
  // Grad, term by term as the spec writes it.
  {
    std::vector<double> stddev(static_cast<size_t>(l.features)), var_eps(stddev.size());
    for (size_t f = 0; f < stddev.size(); ++f) {
      var_eps[f] = vw[f] + eps;
      stddev[f] = std::sqrt(var_eps[f]);
    }
    std::vector<double> i2 = SumPerFeature(l, [&](int64_t e) { return dyw[e]; });
    std::vector<double> i3 = SumPerFeature(l, [&](int64_t e) { return dyw[e] * (xw[e] - mw[l.Feature(e)]); });
    std::vector<double> grad_scale = SumPerFeature(l, [&](int64_t e) {
      const int64_t f = l.Feature(e);
      return dyw[e] * ((xw[e] - mw[f]) / stddev[f]);
    });
    std::vector<double> grad_operand(static_cast<size_t>(l.Total()));
    for (int64_t e = 0; e < l.Total(); ++e) {
      const int64_t f = l.Feature(e);
      const double centered = xw[e] - mw[f];
      const double i6 = dyw[e] * count - i2[f] - i3[f] * centered / var_eps[f];
      grad_operand[e] = sw[f] / stddev[f] / count * i6;
    }
    BERTH_RUN(out, Program("batch_norm_grad", {xt, vt, vt, vt, xt}, {xt, vt, vt}, feature_index, eps_text),
              {testing::MakeLiteral(x, dims), testing::MakeLiteral(scale, vec_dims),
               testing::MakeLiteral(mean, vec_dims), testing::MakeLiteral(variance, vec_dims),
               testing::MakeLiteral(dy, dims)});
    ExpectClose<T>(out[0], grad_operand, "grad_operand");
    ExpectClose<T>(out[1], grad_scale, "grad_scale");
    ExpectClose<T>(out[2], i2, "grad_offset");
  }
}

TEST(CpuBatchNormTest, RandomShapesOfEveryFloatType) {
  std::mt19937_64 random(7);
  const int64_t sizes[] = {1, 2, 3, 7, 8, 9, 17};
  for (int i = 0; i < 24; ++i) {
    const size_t rank = 1 + random() % 4;
    std::vector<int64_t> dims(rank);
    for (int64_t& d : dims) d = sizes[random() % std::size(sizes)];
    const int64_t feature_index = static_cast<int64_t>(random() % rank);
    const float epsilon = i % 3 == 0 ? 0.0f : 1e-3f;
    CheckRandom<float>(dims, feature_index, epsilon, random);
    CheckRandom<double>(dims, feature_index, epsilon, random);
    CheckRandom<F16>(dims, feature_index, epsilon, random);
    CheckRandom<BF16>(dims, feature_index, epsilon, random);
    if (HasFailure()) return;
  }
}

TEST(CpuBatchNormTest, LargeOperandsSumInSegments) {
  std::mt19937_64 random(8);
  CheckRandom<float>({33, 64, 17}, 1, 1e-5f, random);   // features in the middle
  CheckRandom<float>({2, 41, 9, 65}, 3, 1e-5f, random);  // features last (NHWC)
  CheckRandom<double>({3, 5000}, 0, 1e-5f, random);     // few features, long rows
  CheckRandom<F16>({2049, 3}, 1, 1e-3f, random);        // a count f16 rounds (2049 -> 2048)
  CheckRandom<BF16>({2, 257}, 0, 1e-3f, random);        // bf16 likewise (257 -> 256)
}

TEST(CpuBatchNormTest, CountPerFeatureIsConvertedToTheOperandType) {
  // As the spec's decomposition does: 65600 elements per feature is inf in
  // f16, so the batch mean of 65600 ones is 65600 / inf = 0, and so is the
  // variance.
  const std::string x = TensorType({65600, 1}, "f16"), v = TensorType({1}, "f16");
  const std::vector<F16> ones(65600, F16{testing::F16Bits(1.0f)});
  BERTH_RUN(out, Program("batch_norm_training", {x, v, v}, {x, v, v}, 1),
            {testing::MakeLiteral(ones, {65600, 1}), testing::MakeLiteral(std::vector<F16>{F16{testing::F16Bits(1.0f)}}, {1}),
             testing::MakeLiteral(std::vector<F16>{F16{0}}, {1})});
  EXPECT_EQ(testing::F16Value(testing::LiteralValues<F16>(out[1])[0].bits), 0.0f);
  EXPECT_EQ(testing::F16Value(testing::LiteralValues<F16>(out[2])[0].bits), 0.0f);
  // The same in f32 counts exactly.
  const std::string y = TensorType({65600, 1}, "f32"), w = TensorType({1}, "f32");
  BERTH_RUN(wide, Program("batch_norm_training", {y, w, w}, {y, w, w}, 1),
            {Literal::Of<float>(std::vector<float>(65600, 1.0f), {65600, 1}), Literal::Of<float>({1}, {1}),
             Literal::Of<float>({0}, {1})});
  EXPECT_EQ(wide[1].Values<float>(), (std::vector<float>{1.0f}));
  EXPECT_EQ(wide[2].Values<float>(), (std::vector<float>{0.0f}));
}

TEST(CpuBatchNormTest, EmptyOperands) {
  // No features: empty statistics.
  const std::string x = TensorType({3, 0}, "f32"), v = TensorType({0}, "f32");
  BERTH_RUN(out, Program("batch_norm_training", {x, v, v}, {x, v, v}, 1),
            {Literal::Of<float>({}, {3, 0}), Literal::Of<float>({}, {0}), Literal::Of<float>({}, {0})});
  EXPECT_TRUE(out[1].Values<float>().empty());
  // Features but no elements: the mean of nothing is 0 / 0.
  const std::string y = TensorType({0, 2}, "f32"), w = TensorType({2}, "f32");
  BERTH_RUN(stats, Program("batch_norm_training", {y, w, w}, {y, w, w}, 1),
            {Literal::Of<float>({}, {0, 2}), Literal::Of<float>({1, 1}, {2}), Literal::Of<float>({0, 0}, {2})});
  for (float m : stats[1].Values<float>()) EXPECT_TRUE(std::isnan(m));
  BERTH_RUN(grad, Program("batch_norm_grad", {y, w, w, w, y}, {y, w, w}, 1),
            {Literal::Of<float>({}, {0, 2}), Literal::Of<float>({1, 1}, {2}), Literal::Of<float>({0, 0}, {2}),
             Literal::Of<float>({1, 1}, {2}), Literal::Of<float>({}, {0, 2})});
  EXPECT_EQ(grad[1].Values<float>(), (std::vector<float>{0, 0}));
  EXPECT_EQ(grad[2].Values<float>(), (std::vector<float>{0, 0}));
}

TEST(CpuBatchNormTest, RejectsMalformedOperandsNamingTheOp) {
  const std::string x = TensorType({2, 3}, "f32"), v = TensorType({3}, "f32");
  struct Bad {
    std::string program, message;
  };
  const std::vector<Bad> cases = {
      {Program("batch_norm_inference", {x, v, v, v, v}, {x}, 2), "feature_index 2 is outside [0, 2)"},
      {Program("batch_norm_inference", {x, v, TensorType({2}, "f32"), v, v}, {x}, 1),
       "operand #2 must be a 1-D tensor of 3 elements"},
      {Program("batch_norm_training", {TensorType({2, 3}, "i32"), TensorType({3}, "i32"), TensorType({3}, "i32")},
               {TensorType({2, 3}, "i32"), TensorType({3}, "i32"), TensorType({3}, "i32")}, 1),
       "operand must be floating-point"},
      {Program("batch_norm_grad", {x, v, v, v, TensorType({3, 2}, "f32")}, {x, v, v}, 1),
       "grad_output must have the operand's type"},
      {Program("batch_norm_training", {x, v, v}, {x, v, TensorType({3}, "f64")}, 1),
       "result #2 must be a 1-D tensor of 3 elements of the operand's type"},
  };
  for (const Bad& bad : cases) {
    Status status = testing::CpuRunner::Get().client().Compile(bad.program).status();
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << bad.program << status.ToString();
    EXPECT_THAT(status.message(), HasSubstr("'stablehlo.batch_norm_")) << bad.program;
    EXPECT_THAT(status.message(), HasSubstr(bad.message)) << bad.program;
  }
}

}  // namespace
}  // namespace berth::testing
