// stablehlo.convolution (and dynamic_conv) on the CPU plugin against a
// direct convolution written here from the spec: pad and dilate the lhs
// with zeros, take each window, reverse it where asked, and take its dot
// product with the kernel. The reference sums in the order the plugin
// documents (window positions in row-major order, then input features, one
// fma chain from +0), so floats are compared bit for bit, on every ISA
// variant (meson.build runs this binary once per variant); integers are
// exact. Seeded random cases cover every layout permutation family,
// strides, padding (negative too), both dilations, reversal, feature and
// batch groups, 1-D to 3-D, sizes around vector widths, empty tensors and
// every element type; failures name the case's program.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "kernel_test_util.hpp"
#include "reduction_reference.hpp"

namespace berth::testing {
namespace {

// One convolution: sizes, window attributes and layouts. A layout lists,
// in canonical order, which dim of the tensor holds each role:
// lhs_perm = [batch, spatial..., feature], rhs_perm = [spatial..., input
// feature, output feature], out_perm = [batch, spatial..., feature].
struct ConvCase {
  int64_t spatial = 2;
  int64_t batch = 1, features = 1, out_features = 1;
  std::vector<int64_t> in_size, window;
  std::vector<int64_t> strides, lhs_dilation, rhs_dilation;
  std::vector<std::pair<int64_t, int64_t>> padding;
  std::vector<bool> reversal;
  int64_t feature_groups = 1, batch_groups = 1;
  std::vector<int64_t> lhs_perm, rhs_perm, out_perm;
  bool generic = false;  // the generic op form instead of the pretty one

  int64_t rank() const { return spatial + 2; }
  int64_t groups() const { return feature_groups * batch_groups; }
  int64_t kernel_in() const { return features / feature_groups; }
  int64_t out_batch() const { return batch / batch_groups; }

  // Fills defaults: no strides, dilations, padding or reversal; canonical
  // layouts ([b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]).
  static ConvCase Plain(std::vector<int64_t> in_size, std::vector<int64_t> window, int64_t batch,
                        int64_t features, int64_t out_features) {
    ConvCase c;
    c.spatial = static_cast<int64_t>(in_size.size());
    c.in_size = std::move(in_size);
    c.window = std::move(window);
    c.batch = batch;
    c.features = features;
    c.out_features = out_features;
    c.strides.assign(c.spatial, 1);
    c.lhs_dilation.assign(c.spatial, 1);
    c.rhs_dilation.assign(c.spatial, 1);
    c.padding.assign(c.spatial, {0, 0});
    c.reversal.assign(c.spatial, false);
    c.lhs_perm.resize(c.rank());
    std::iota(c.lhs_perm.begin(), c.lhs_perm.end(), 0);
    c.rhs_perm = c.lhs_perm;
    c.out_perm = c.lhs_perm;
    return c;
  }

  // The spec's number of windows along spatial dim i.
  int64_t OutSize(size_t i) const {
    int64_t dilated = in_size[i] == 0 ? 0 : (in_size[i] - 1) * lhs_dilation[i] + 1;
    int64_t padded = dilated + padding[i].first + padding[i].second;
    int64_t dilated_window = window[i] == 0 ? 0 : (window[i] - 1) * rhs_dilation[i] + 1;
    if (padded <= 0 || dilated_window > padded) return 0;
    return (padded - dilated_window) / strides[i] + 1;
  }

  // Canonical sizes of each tensor, then laid out by its perm.
  std::vector<int64_t> LhsCanonical() const {
    std::vector<int64_t> dims = {batch};
    dims.insert(dims.end(), in_size.begin(), in_size.end());
    dims.push_back(features);
    return dims;
  }
  std::vector<int64_t> RhsCanonical() const {
    std::vector<int64_t> dims = window;
    dims.push_back(kernel_in());
    dims.push_back(out_features);
    return dims;
  }
  std::vector<int64_t> OutCanonical() const {
    std::vector<int64_t> dims = {out_batch()};
    for (size_t i = 0; i < static_cast<size_t>(spatial); ++i) dims.push_back(OutSize(i));
    dims.push_back(out_features);
    return dims;
  }
  static std::vector<int64_t> Layout(const std::vector<int64_t>& canonical,
                                     const std::vector<int64_t>& perm) {
    std::vector<int64_t> dims(canonical.size());
    for (size_t j = 0; j < perm.size(); ++j) dims[static_cast<size_t>(perm[j])] = canonical[j];
    return dims;
  }
  std::vector<int64_t> LhsDims() const { return Layout(LhsCanonical(), lhs_perm); }
  std::vector<int64_t> RhsDims() const { return Layout(RhsCanonical(), rhs_perm); }
  std::vector<int64_t> OutDims() const { return Layout(OutCanonical(), out_perm); }

  // "[b, 0, 1, f]" from a perm whose first and last roles are lettered.
  static std::string Labels(const std::vector<int64_t>& perm, size_t first_spatial,
                            const std::string& a, const std::string& b, size_t a_at, size_t b_at) {
    std::vector<std::string> labels(perm.size());
    for (size_t j = 0; j < perm.size(); ++j) {
      std::string label = j == a_at ? a : j == b_at ? b : std::to_string(j - first_spatial);
      labels[static_cast<size_t>(perm[j])] = label;
    }
    std::string s = "[";
    for (size_t d = 0; d < labels.size(); ++d) s += (d ? ", " : "") + labels[d];
    return s + "]";
  }
  std::string DimNumbers() const {
    size_t s = static_cast<size_t>(spatial);
    return Labels(lhs_perm, 1, "b", "f", 0, s + 1) + "x" + Labels(rhs_perm, 0, "i", "o", s, s + 1) +
           "->" + Labels(out_perm, 1, "b", "f", 0, s + 1);
  }

  static std::string Ints(const std::vector<int64_t>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s;
  }
  std::string Bools() const {
    std::string s;
    for (size_t i = 0; i < reversal.size(); ++i) s += (i ? ", " : "") + std::string(reversal[i] ? "true" : "false");
    return s;
  }
  std::string Pads() const {
    std::string s;
    for (size_t i = 0; i < padding.size(); ++i) {
      s += (i ? ", " : "") + std::string("[") + std::to_string(padding[i].first) + ", " +
           std::to_string(padding[i].second) + "]";
    }
    return s;
  }

  static std::string Type(const std::vector<int64_t>& dims, const std::string& element) {
    return "tensor<" + testing::DimsText(dims) + element + ">";
  }

  std::string Program(const std::string& lhs_type, const std::string& rhs_type,
                      const std::string& out_type) const {
    const std::string lt = Type(LhsDims(), lhs_type), rt = Type(RhsDims(), rhs_type),
                      ot = Type(OutDims(), out_type);
    const std::string groups = "batch_group_count = " + std::to_string(batch_groups) +
                               " : i64, feature_group_count = " + std::to_string(feature_groups) +
                               " : i64, precision_config = [#stablehlo<precision DEFAULT>, "
                               "#stablehlo<precision HIGHEST>]";
    std::string op;
    if (generic) {
      op = "\"stablehlo.convolution\"(%a, %b) {window_strides = array<i64" +
           (spatial ? ": " + Ints(strides) : "") + ">, padding = dense<[" + Pads() +
           "]> : tensor<" + std::to_string(spatial) + "x2xi64>, lhs_dilation = array<i64" +
           (spatial ? ": " + Ints(lhs_dilation) : "") + ">, rhs_dilation = array<i64" +
           (spatial ? ": " + Ints(rhs_dilation) : "") + ">, window_reversal = array<i1" +
           (spatial ? ": " + Bools() : "") + ">, dimension_numbers = #stablehlo.conv<" +
           DimNumbers() + ">, " + groups + "}";
    } else {
      op = "stablehlo.convolution(%a, %b) dim_numbers = " + DimNumbers() + ", window = {stride = [" +
           Ints(strides) + "], pad = [" + Pads() + "], lhs_dilate = [" + Ints(lhs_dilation) +
           "], rhs_dilate = [" + Ints(rhs_dilation) + "], reverse = [" + Bools() + "]} {" + groups +
           "}";
    }
    return "func.func @main(%a: " + lt + ", %b: " + rt + ") -> " + ot + " {\n  %r = " + op +
           " : (" + lt + ", " + rt + ") -> " + ot + "\n  return %r : " + ot + "\n}\n";
  }

  int64_t Work() const {
    int64_t n = 1;
    for (int64_t d : OutCanonical()) n *= d;
    for (int64_t w : window) n *= w;
    return n * kernel_in();
  }
};

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) s[d - 1] = s[d] * dims[d];
  return s;
}

// How the reference accumulates each host type: floats in f32 (f64 for
// f64) with one fma per step, integers wrapping in an unsigned type, i1 as
// or over and.
template <typename T>
auto AccumulatorOf() {
  if constexpr (std::is_same_v<T, double>) return double{};
  else if constexpr (testing::kIsFloatElem<T>) return float{};
  else if constexpr (std::is_same_v<T, bool>) return bool{};
  else if constexpr (sizeof(T) < sizeof(unsigned)) return unsigned{};
  else return std::make_unsigned_t<T>{};
}

template <typename T>
struct Accumulate {
  using Calc = typename Elem<T>::Calc;
  using Acc = decltype(AccumulatorOf<T>());
  static Acc Step(Acc acc, T a, T b) {
    if constexpr (testing::kIsFloatElem<T>) {
      return std::fma(static_cast<Acc>(Elem<T>::ToCalc(a)), static_cast<Acc>(Elem<T>::ToCalc(b)), acc);
    } else if constexpr (std::is_same_v<T, bool>) {
      return acc || (a && b);
    } else {
      return static_cast<Acc>(acc + static_cast<Acc>(a) * static_cast<Acc>(b));
    }
  }
  static T Result(Acc acc) {
    if constexpr (testing::kIsFloatElem<T>) return Elem<T>::FromCalc(static_cast<Calc>(acc));
    else return static_cast<T>(acc);
  }
};

// Complex values: each product and the sum in complex<long double>, rounded
// once (the tests compare within a tolerance).
template <typename R>
struct Accumulate<std::complex<R>> {
  using Acc = std::complex<long double>;
  static Acc Step(Acc acc, std::complex<R> a, std::complex<R> b) { return acc + Acc(a) * Acc(b); }
  static std::complex<R> Result(Acc acc) { return std::complex<R>(acc); }
};

// The convolution per the spec, element by element, in the result's layout.
template <typename T>
std::vector<T> Reference(const ConvCase& c, const std::vector<T>& lhs, const std::vector<T>& rhs) {
  using A = Accumulate<T>;
  const size_t s = static_cast<size_t>(c.spatial);
  const std::vector<int64_t> lhs_strides = Strides(c.LhsDims()), rhs_strides = Strides(c.RhsDims()),
                             out_strides = Strides(c.OutDims());
  const std::vector<int64_t> out_canonical = c.OutCanonical();
  const int64_t og = c.out_features / c.groups();
  const int64_t cg = c.kernel_in();
  std::vector<T> out(static_cast<size_t>(Count(out_canonical)));
  std::vector<int64_t> index(out_canonical.size(), 0), k(s, 0);
  for (int64_t e = 0; e < Count(out_canonical); ++e) {
    int64_t rest = e;
    for (size_t d = index.size(); d-- > 0;) {
      index[d] = rest % out_canonical[d];
      rest /= out_canonical[d];
    }
    const int64_t n = index[0], f = index[s + 1];
    const int64_t g = f / og;
    const int64_t lhs_batch = c.batch_groups > 1 ? g * c.out_batch() + n : n;
    typename A::Acc acc{};
    std::fill(k.begin(), k.end(), 0);
    for (int64_t t = 0; t < Count(c.window); ++t) {
      // Kernel position k; the reversed window puts window position
      // (window - 1 - k) against it.
      bool valid = true;
      int64_t lhs_offset = lhs_batch * lhs_strides[c.lhs_perm[0]];
      int64_t rhs_offset = f * rhs_strides[c.rhs_perm[s + 1]];
      for (size_t i = 0; i < s; ++i) {
        const int64_t w = c.reversal[i] ? c.window[i] - 1 - k[i] : k[i];
        const int64_t padded = index[i + 1] * c.strides[i] + w * c.rhs_dilation[i];
        const int64_t q = padded - c.padding[i].first;
        const int64_t dilated = c.in_size[i] == 0 ? 0 : (c.in_size[i] - 1) * c.lhs_dilation[i] + 1;
        if (q < 0 || q >= dilated || q % c.lhs_dilation[i] != 0) {
          valid = false;
        } else {
          lhs_offset += q / c.lhs_dilation[i] * lhs_strides[c.lhs_perm[i + 1]];
        }
        rhs_offset += k[i] * rhs_strides[c.rhs_perm[i]];
      }
      for (int64_t ci = 0; ci < cg; ++ci) {
        const int64_t feature = c.feature_groups > 1 ? g * cg + ci : ci;
        T x{};
        if (valid) x = lhs[lhs_offset + feature * lhs_strides[c.lhs_perm[s + 1]]];
        const T y = rhs[rhs_offset + ci * rhs_strides[c.rhs_perm[s]]];
        acc = A::Step(acc, x, y);
      }
      for (size_t i = s; i-- > 0;) {
        if (++k[i] < c.window[i]) break;
        k[i] = 0;
      }
    }
    int64_t out_offset = 0;
    for (size_t j = 0; j < index.size(); ++j) out_offset += index[j] * out_strides[c.out_perm[j]];
    out[out_offset] = A::Result(acc);
  }
  return out;
}

// Random values of T: floats in [-1, 1], integers over their whole range
// (so products wrap), i1 half true.
template <typename T>
std::vector<T> RandomValues(int64_t n, std::mt19937_64& random) {
  std::vector<T> v(static_cast<size_t>(n));
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (size_t i = 0; i < v.size(); ++i) {
    if constexpr (testing::kIsFloatElem<T>) {
      v[i] = Elem<T>::FromCalc(static_cast<typename Elem<T>::Calc>(unit(random)));
    } else if constexpr (std::is_same_v<T, bool>) {
      v[i] = random() % 2 == 0;
    } else {
      v[i] = static_cast<T>(random());
    }
  }
  return v;
}

// Equal values, any NaN equal to any NaN.
template <typename T>
bool Same(T a, T b) {
  if constexpr (std::is_same_v<T, F16> || std::is_same_v<T, BF16>) {
    return a.bits == b.bits || (std::isnan(Elem<T>::ToCalc(a)) && std::isnan(Elem<T>::ToCalc(b)));
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::memcmp(&a, &b, sizeof(T)) == 0 || (std::isnan(a) && std::isnan(b));
  } else {
    return a == b;
  }
}

template <typename T>
std::string Show(T x) {
  if constexpr (testing::kIsFloatElem<T>) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.9g", static_cast<double>(Elem<T>::ToCalc(x)));
    return text;
  } else {
    return std::to_string(static_cast<int64_t>(x));
  }
}

// Runs case `c` on random T operands and compares with the reference.
template <typename T>
void CheckCase(const ConvCase& c, std::mt19937_64& random, const std::string& label) {
  const std::string type = testing::TypeName<T>();
  const std::string program = c.Program(type, type, type);
  SCOPED_TRACE(label + "\n" + program);
  const std::vector<T> lhs = RandomValues<T>(Count(c.LhsDims()), random);
  const std::vector<T> rhs = RandomValues<T>(Count(c.RhsDims()), random);
  Result<std::vector<Literal>> out = testing::CpuRunner::Get().Run(
      program, {testing::MakeLiteral(lhs, c.LhsDims()), testing::MakeLiteral(rhs, c.RhsDims())});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ(out->at(0).dims, c.OutDims());
  const std::vector<T> got = testing::LiteralValues<T>(out->at(0));
  const std::vector<T> want = Reference(c, lhs, rhs);
  ASSERT_EQ(got.size(), want.size());
  int mismatches = 0;
  for (size_t i = 0; i < got.size() && mismatches < 5; ++i) {
    if (!Same<T>(got[i], want[i])) {
      ADD_FAILURE() << "element " << i << ": got " << Show<T>(got[i]) << ", want " << Show<T>(want[i]);
      ++mismatches;
    }
  }
}

// ---------------------------------------------------------------- directed

TEST(CpuConvolutionTest, NhwcMatchesTheSpecExample) {
  // The spec's example: 4x4 input, 3x3 kernel of ones, stride 4, lhs dilation 2.
  ConvCase c = ConvCase::Plain({4, 4}, {3, 3}, 1, 1, 1);
  c.strides = {4, 4};
  c.lhs_dilation = {2, 2};
  const std::vector<int64_t> lhs = {1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17};
  BERTH_RUN(out, c.Program("i64", "i64", "i64"),
            {Literal::Of<int64_t>(lhs, c.LhsDims()), Literal::Of<int64_t>(std::vector<int64_t>(9, 1), c.RhsDims())});
  EXPECT_EQ(out[0].Values<int64_t>(), (std::vector<int64_t>{10, 26, 46, 62}));
}

TEST(CpuConvolutionTest, EveryIsaComputesTheDocumentedFmaChain) {
  // NHWC 3x3, padding 1, channels across vector widths: f32 bit for bit.
  std::mt19937_64 random(1);
  for (int64_t channels : {1, 7, 8, 9, 17, 33}) {
    ConvCase c = ConvCase::Plain({9, 7}, {3, 3}, 2, channels, channels + 2);
    c.padding = {{1, 1}, {1, 1}};
    CheckCase<float>(c, random, "channels " + std::to_string(channels));
    CheckCase<double>(c, random, "channels " + std::to_string(channels));
  }
}

TEST(CpuConvolutionTest, NchwAndOihwLayouts) {
  std::mt19937_64 random(2);
  ConvCase c = ConvCase::Plain({6, 5}, {3, 2}, 3, 5, 9);
  c.lhs_perm = {0, 2, 3, 1};  // [b, f, 0, 1]
  c.rhs_perm = {2, 3, 1, 0};  // [o, i, 0, 1]
  c.out_perm = {0, 2, 3, 1};  // [b, f, 0, 1]
  c.padding = {{0, 1}, {2, 0}};
  CheckCase<float>(c, random, "NCHW");
  c.generic = true;
  CheckCase<float>(c, random, "NCHW generic form");
}

TEST(CpuConvolutionTest, StridesPaddingAndDilations) {
  std::mt19937_64 random(3);
  ConvCase c = ConvCase::Plain({11, 8}, {3, 2}, 2, 3, 4);
  c.strides = {2, 3};
  c.padding = {{2, 1}, {0, 3}};
  c.lhs_dilation = {2, 1};
  c.rhs_dilation = {1, 3};
  CheckCase<float>(c, random, "strided, padded, dilated");
  c.padding = {{-2, -1}, {-1, 1}};
  CheckCase<float>(c, random, "negative padding");
  c.padding = {{-3, 5}, {4, -4}};
  CheckCase<int32_t>(c, random, "negative and positive padding");
}

TEST(CpuConvolutionTest, LongRowsAlongTheLastSpatialDim) {
  // Unit stride and no base dilation along the last spatial dim, with its
  // padding (negative too), reversal and window dilation, the other dims
  // strided, dilated and padded.
  std::mt19937_64 random(13);
  ConvCase c = ConvCase::Plain({6, 19}, {2, 4}, 2, 5, 9);
  c.strides = {2, 1};
  c.lhs_dilation = {2, 1};
  c.rhs_dilation = {1, 2};
  c.padding = {{3, 1}, {-1, 3}};
  c.reversal = {false, true};
  CheckCase<float>(c, random, "long rows");
  c.padding = {{-2, 2}, {4, -2}};
  c.reversal = {true, false};
  CheckCase<double>(c, random, "long rows, other padding");
  c.lhs_perm = {0, 2, 3, 1};  // [b, f, 0, 1]
  c.out_perm = {0, 2, 3, 1};
  CheckCase<float>(c, random, "long rows, NCHW");
  ConvCase three = ConvCase::Plain({3, 4, 23}, {2, 1, 3}, 1, 3, 4);
  three.padding = {{1, 0}, {0, 0}, {1, 1}};
  CheckCase<float>(three, random, "3-D, long last dim");
  // Few rows, deep and wide: one product at a time; NCHW (features first).
  ConvCase deep = ConvCase::Plain({3, 20}, {3, 3}, 1, 300, 70);
  deep.padding = {{1, 1}, {1, 1}};
  deep.lhs_perm = {0, 2, 3, 1};
  CheckCase<float>(deep, random, "deep, long rows, NCHW");
  // Many rows, NCHW: chunks concurrently, depth over several GEMM blocks.
  ConvCase many = ConvCase::Plain({30, 30}, {3, 3}, 2, 64, 40);
  many.padding = {{1, 1}, {1, 1}};
  many.lhs_perm = {0, 2, 3, 1};
  many.rhs_perm = {2, 3, 1, 0};
  many.out_perm = {0, 2, 3, 1};
  CheckCase<float>(many, random, "many rows, NCHW");
}

TEST(CpuConvolutionTest, WindowReversalFlipsTheKernel) {
  // 1-D: [1, 2, 3] with kernel [1, 10]: without reversal 1*1 + 2*10, with
  // reversal the window is read backwards: 1*10 + 2*1.
  ConvCase c = ConvCase::Plain({3}, {2}, 1, 1, 1);
  BERTH_RUN(plain, c.Program("i32", "i32", "i32"),
            {Literal::Of<int32_t>({1, 2, 3}, c.LhsDims()), Literal::Of<int32_t>({1, 10}, c.RhsDims())});
  EXPECT_EQ(plain[0].Values<int32_t>(), (std::vector<int32_t>{21, 32}));
  c.reversal = {true};
  BERTH_RUN(reversed, c.Program("i32", "i32", "i32"),
            {Literal::Of<int32_t>({1, 2, 3}, c.LhsDims()), Literal::Of<int32_t>({1, 10}, c.RhsDims())});
  EXPECT_EQ(reversed[0].Values<int32_t>(), (std::vector<int32_t>{12, 23}));

  std::mt19937_64 random(4);
  ConvCase d = ConvCase::Plain({7, 6}, {3, 4}, 2, 3, 5);
  d.reversal = {true, false};
  d.padding = {{1, 2}, {2, 1}};
  d.rhs_dilation = {2, 1};
  CheckCase<float>(d, random, "reversed dim 0");
  d.reversal = {true, true};
  CheckCase<double>(d, random, "reversed dims 0 and 1");
}

TEST(CpuConvolutionTest, FeatureGroupsIncludingDepthwise) {
  std::mt19937_64 random(5);
  ConvCase c = ConvCase::Plain({8, 9}, {3, 3}, 2, 12, 18);
  c.feature_groups = 3;
  c.padding = {{1, 1}, {1, 1}};
  CheckCase<float>(c, random, "3 groups of 4 -> 6");
  ConvCase depthwise = ConvCase::Plain({10, 9}, {3, 3}, 2, 17, 34);
  depthwise.feature_groups = 17;
  depthwise.padding = {{1, 1}, {1, 1}};
  CheckCase<float>(depthwise, random, "depthwise, multiplier 2");
  CheckCase<int16_t>(depthwise, random, "depthwise i16");
  ConvCase plain = ConvCase::Plain({12, 11}, {3, 3}, 3, 64, 64);
  plain.feature_groups = 64;
  plain.padding = {{1, 1}, {1, 1}};
  CheckCase<float>(plain, random, "depthwise 64 channels");
  CheckCase<double>(plain, random, "depthwise 64 channels f64");
  plain.out_features = 192;
  plain.strides = {2, 1};
  plain.reversal = {false, true};
  CheckCase<float>(plain, random, "depthwise, multiplier 3, strided, reversed");
  // Grouped: many groups of a few features run across the groups.
  ConvCase grouped = ConvCase::Plain({9, 8}, {3, 3}, 2, 128, 128);
  grouped.feature_groups = 32;
  grouped.padding = {{1, 1}, {1, 1}};
  CheckCase<float>(grouped, random, "32 groups of 4 -> 4");
  ConvCase uneven = ConvCase::Plain({7, 6}, {2, 3}, 3, 27, 45);
  uneven.feature_groups = 9;
  uneven.padding = {{0, 1}, {2, -1}};
  uneven.strides = {1, 2};
  uneven.reversal = {true, false};
  CheckCase<float>(uneven, random, "9 groups of 3 -> 5");
  CheckCase<double>(uneven, random, "9 groups of 3 -> 5, f64");
  uneven.lhs_perm = {3, 1, 0, 2};
  uneven.rhs_perm = {2, 0, 3, 1};
  uneven.out_perm = {1, 3, 2, 0};
  CheckCase<float>(uneven, random, "9 groups of 3 -> 5, permuted layouts");
  ConvCase wide = ConvCase::Plain({5, 5}, {3, 3}, 2, 16, 256);
  wide.feature_groups = 8;
  CheckCase<float>(wide, random, "8 groups of 2 -> 32 (products per group)");
  ConvCase odd = ConvCase::Plain({9}, {5}, 2, 7, 7);
  odd.feature_groups = 7;
  odd.padding = {{4, -1}};
  odd.lhs_dilation = {2};
  CheckCase<float>(odd, random, "1-D depthwise, 7 channels, base dilation");
}

TEST(CpuConvolutionTest, BatchGroupsSplitTheBatchAcrossOutputFeatures) {
  // The conformance example: 4 batch groups of one element each.
  ConvCase c = ConvCase::Plain({1, 4}, {1, 2}, 4, 1, 4);
  c.lhs_perm = {1, 0, 2, 3};  // [0, b, 1, f]
  c.batch_groups = 4;
  c.strides = {4, 4};
  c.lhs_dilation = {2, 2};
  const std::vector<int64_t> lhs = {1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17};
  BERTH_RUN(out, c.Program("i64", "i64", "i64"),
            {Literal::Of<int64_t>(lhs, c.LhsDims()), Literal::Of<int64_t>(std::vector<int64_t>(8, 1), c.RhsDims())});
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{1, 1, 2, 4}));
  EXPECT_EQ(out[0].Values<int64_t>(), (std::vector<int64_t>{1, 3, 10, 12, 5, 7, 14, 16}));

  std::mt19937_64 random(6);
  ConvCase d = ConvCase::Plain({5, 6}, {2, 3}, 6, 7, 9);
  d.batch_groups = 3;
  CheckCase<float>(d, random, "3 batch groups");
  CheckCase<uint8_t>(d, random, "3 batch groups ui8");
}

TEST(CpuConvolutionTest, OneAndThreeSpatialDims) {
  std::mt19937_64 random(7);
  ConvCase one = ConvCase::Plain({17}, {5}, 3, 9, 8);
  one.strides = {2};
  one.padding = {{2, 2}};
  one.rhs_dilation = {2};
  CheckCase<float>(one, random, "1-D");
  one.lhs_perm = {2, 1, 0};  // [f, 0, b]
  one.rhs_perm = {1, 0, 2};  // [i, 0, o]
  one.out_perm = {1, 2, 0};  // [f, b, 0]
  CheckCase<double>(one, random, "1-D permuted");
  ConvCase three = ConvCase::Plain({5, 6, 4}, {3, 2, 3}, 2, 7, 9);
  three.padding = {{1, 1}, {0, 1}, {1, -1}};
  three.strides = {1, 2, 1};
  three.reversal = {false, true, true};
  CheckCase<float>(three, random, "3-D");
  three.lhs_perm = {4, 2, 0, 3, 1};
  three.rhs_perm = {0, 3, 4, 1, 2};
  three.out_perm = {2, 4, 1, 0, 3};
  CheckCase<float>(three, random, "3-D permuted");
}

TEST(CpuConvolutionTest, NoSpatialDimsIsAMatrixProduct) {
  std::mt19937_64 random(8);
  ConvCase c = ConvCase::Plain({}, {}, 5, 9, 7);
  CheckCase<float>(c, random, "rank 2");
  c.generic = true;
  c.feature_groups = 3;
  c.out_features = 6;
  CheckCase<float>(c, random, "rank 2 with feature groups");
}

TEST(CpuConvolutionTest, OneByOneWindowReadsTheInputInPlace) {
  std::mt19937_64 random(9);
  ConvCase c = ConvCase::Plain({13, 11}, {1, 1}, 3, 17, 33);
  CheckCase<float>(c, random, "1x1");
  c.feature_groups = 17;
  c.out_features = 34;
  CheckCase<float>(c, random, "1x1 depthwise");
  c.feature_groups = 1;
  c.out_features = 33;
  c.batch_groups = 3;
  CheckCase<float>(c, random, "1x1 batch groups");
  CheckCase<int32_t>(c, random, "1x1 batch groups i32");
}

TEST(CpuConvolutionTest, LargeProblemsSplitOverThreadsKeepTheChain) {
  std::mt19937_64 random(10);
  // Many rows: chunks of rows run concurrently; depth 576 spans several
  // GEMM blocks of k.
  ConvCase many = ConvCase::Plain({30, 30}, {3, 3}, 2, 64, 40);
  many.padding = {{1, 1}, {1, 1}};
  CheckCase<float>(many, random, "many rows");
  // Few rows, deep and wide: one product at a time, split by the GEMM.
  ConvCase deep = ConvCase::Plain({4, 4}, {3, 3}, 1, 300, 70);
  deep.padding = {{1, 1}, {1, 1}};
  CheckCase<float>(deep, random, "deep");
  CheckCase<double>(deep, random, "deep f64");
}

TEST(CpuConvolutionTest, EmptyTensors) {
  std::mt19937_64 random(11);
  ConvCase empty_input = ConvCase::Plain({0, 5}, {1, 3}, 2, 3, 4);
  empty_input.padding = {{2, 0}, {0, 0}};
  // An empty sum is 0: no input features (f32 and i32), or a window of size 0.
  const std::pair<ConvCase, std::string> cases[] = {
      {ConvCase::Plain({5, 5}, {3, 3}, 0, 3, 4), "batch 0"},
      {ConvCase::Plain({2, 5}, {3, 3}, 2, 3, 4), "window larger than input"},
      {ConvCase::Plain({5, 5}, {3, 3}, 2, 3, 0), "no output features"},
      {ConvCase::Plain({5, 5}, {3, 3}, 2, 0, 4), "no input features"},
      {ConvCase::Plain({5, 5}, {0, 3}, 2, 3, 4), "window of size 0"},
      {ConvCase::Plain({0, 5}, {0, 3}, 2, 3, 4), "empty input and empty window: no windows"},
      {empty_input, "padding around an empty input"},
  };
  for (const auto& [c, label] : cases) {
    CheckCase<float>(c, random, label);
    if (label == "no input features") CheckCase<int32_t>(c, random, label + " i32");
  }
}

TEST(CpuConvolutionTest, EveryElementType) {
  ConvCase c = ConvCase::Plain({6, 5}, {3, 2}, 2, 6, 9);
  c.padding = {{1, 0}, {-1, 2}};
  c.lhs_dilation = {1, 2};
  c.feature_groups = 3;
  std::mt19937_64 random(12);
  testing::ForEveryElementType([&]<typename T>() { CheckCase<T>(c, random, testing::TypeName<T>()); });
}

TEST(CpuConvolutionTest, NarrowIntegersIntoAWiderResult) {
  // i8 operands, i32 result: the operands are converted first, so the
  // products do not wrap at 8 bits.
  ConvCase c = ConvCase::Plain({3}, {2}, 1, 2, 1);
  const std::string program = c.Program("i8", "i8", "i32");
  BERTH_RUN(out, program,
            {Literal::Of<int8_t>({100, 100, 100, 100, -128, -128}, c.LhsDims()),
             Literal::Of<int8_t>({100, 100, 100, 100}, c.RhsDims())});
  EXPECT_EQ(out[0].Values<int32_t>(), (std::vector<int32_t>{40000, -5600}));
}

TEST(CpuConvolutionTest, HalfOperandsIntoAFloatResult) {
  ConvCase c = ConvCase::Plain({2}, {2}, 1, 1, 1);
  const std::string program = c.Program("f16", "f16", "f32");
  BERTH_RUN(out, program,
            {Literal::Raw<uint16_t>(ElementType::kF16, {testing::F16Bits(65504.0f), testing::F16Bits(65504.0f)}, c.LhsDims()),
             Literal::Raw<uint16_t>(ElementType::kF16, {testing::F16Bits(2.0f), testing::F16Bits(0.5f)}, c.RhsDims())});
  // In f32, 65504 * 2.5 does not overflow as it would in f16.
  EXPECT_EQ(out[0].Values<float>(), (std::vector<float>{163760.0f}));
}

TEST(CpuConvolutionTest, PaddingIsAZeroThatMeetsTheKernel) {
  // The spec pads with zeros and takes the dot product, so an infinite
  // kernel value against padding gives NaN (0 * inf).
  ConvCase c = ConvCase::Plain({2}, {2}, 1, 1, 1);
  c.padding = {{1, 0}};
  const float inf = std::numeric_limits<float>::infinity();
  BERTH_RUN(out, c.Program("f32", "f32", "f32"),
            {Literal::Of<float>({1, 2}, c.LhsDims()), Literal::Of<float>({inf, 1}, c.RhsDims())});
  std::vector<float> values = out[0].Values<float>();
  ASSERT_EQ(values.size(), 2u);
  EXPECT_TRUE(std::isnan(values[0]));
  EXPECT_EQ(values[1], inf);
}

TEST(CpuConvolutionTest, DynamicConvTakesItsPaddingAsAnOperand) {
  ConvCase c = ConvCase::Plain({4, 4}, {3, 3}, 1, 1, 1);
  c.strides = {4, 4};
  c.lhs_dilation = {2, 2};
  const std::string program = R"(
func.func @main(%a: tensor<1x4x4x1xi64>, %b: tensor<3x3x1x1xi64>, %p: tensor<2x2xi32>) -> tensor<1x2x2x1xi64> {
  %r = "stablehlo.dynamic_conv"(%a, %b, %p) {
    window_strides = array<i64: 4, 4>, lhs_dilation = array<i64: 2, 2>,
    rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>,
    dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>,
    batch_group_count = 1 : i64, feature_group_count = 1 : i64
  } : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>, tensor<2x2xi32>) -> tensor<1x2x2x1xi64>
  return %r : tensor<1x2x2x1xi64>
}
)";
  const std::vector<int64_t> lhs = {1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17};
  auto args = [&](std::vector<int32_t> padding) {
    return std::vector<Literal>{Literal::Of<int64_t>(lhs, c.LhsDims()),
                                Literal::Of<int64_t>(std::vector<int64_t>(9, 1), c.RhsDims()),
                                Literal::Of<int32_t>(padding, {2, 2})};
  };
  BERTH_RUN(padded, program, args({1, 1, 1, 1}));
  EXPECT_EQ(padded[0].Values<int64_t>(), (std::vector<int64_t>{1, 5, 10, 14}));
  BERTH_RUN(unpadded, program, args({0, 0, 0, 0}));
  EXPECT_EQ(unpadded[0].Values<int64_t>(), (std::vector<int64_t>{10, 26, 46, 62}));
  // A padding that does not give the declared result shape is an error.
  Status status = testing::RunExpectingError(program, args({3, 3, 3, 3}));
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("stablehlo.dynamic_conv"));
  EXPECT_THAT(status.message(), HasSubstr("would have shape [1, 3, 3, 1]"));
}

// ---------------------------------------------------------------- random

// A random case: spatial rank, layouts, sizes, window attributes, groups;
// its work is bounded so the reference stays quick.
ConvCase RandomCase(std::mt19937_64& random) {
  auto pick = [&](std::initializer_list<int64_t> values) {
    return *(values.begin() + random() % values.size());
  };
  for (;;) {
    const int64_t spatial = pick({1, 2, 2, 3});
    ConvCase c = ConvCase::Plain({}, {}, 1, 1, 1);
    c.spatial = spatial;
    c.in_size.clear();
    c.window.clear();
    c.strides.clear();
    c.lhs_dilation.clear();
    c.rhs_dilation.clear();
    c.padding.clear();
    c.reversal.clear();
    for (int64_t i = 0; i < spatial; ++i) {
      c.in_size.push_back(spatial == 3 ? pick({1, 2, 3, 4, 5}) : pick({1, 2, 3, 5, 7, 8, 9, 12}));
      c.window.push_back(pick({1, 1, 2, 3, 3}));
      c.strides.push_back(pick({1, 1, 2, 3}));
      c.lhs_dilation.push_back(pick({1, 1, 2}));
      c.rhs_dilation.push_back(pick({1, 1, 2}));
      c.padding.emplace_back(pick({-2, -1, 0, 0, 1, 2, 3}), pick({-2, -1, 0, 0, 1, 2, 3}));
      c.reversal.push_back(random() % 4 == 0);
    }
    const int64_t group_kind = random() % 4;  // 0, 1: none; 2: feature groups; 3: batch groups
    const int64_t groups = group_kind >= 2 ? pick({2, 3, 8, 9}) : 1;
    (group_kind == 3 ? c.batch_groups : c.feature_groups) = groups;
    const int64_t cg = pick({1, 2, 3, 7, 8, 9, 17});
    c.features = c.feature_groups * cg;
    c.batch = c.batch_groups * pick({1, 2, 3});
    c.out_features = groups * pick({1, 2, 7, 8, 9, 17, 33});
    const int64_t rank = spatial + 2;
    for (std::vector<int64_t>* perm : {&c.lhs_perm, &c.rhs_perm, &c.out_perm}) {
      perm->resize(static_cast<size_t>(rank));
      std::iota(perm->begin(), perm->end(), 0);
      if (random() % 3 != 0) std::shuffle(perm->begin(), perm->end(), random);
    }
    c.generic = random() % 2 == 0;
    if (c.Work() <= (int64_t{1} << 18)) return c;
  }
}

TEST(CpuConvolutionTest, RandomCasesMatchTheReference) {
  std::mt19937_64 random(20261204);
  for (int i = 0; i < 400; ++i) {
    ConvCase c = RandomCase(random);
    CheckCase<float>(c, random, "f32 case " + std::to_string(i));
    if (HasFailure()) return;
  }
}

TEST(CpuConvolutionTest, RandomCasesOfEveryElementType) {
  std::mt19937_64 random(42);
  for (int i = 0; i < 30; ++i) {
    ConvCase c = RandomCase(random);
    testing::ForEveryElementType([&]<typename T>() {
      CheckCase<T>(c, random, std::string(testing::TypeName<T>()) + " case " + std::to_string(i));
    });
    if (HasFailure()) return;
  }
}

// Complex operands (both parts uniform in [-1, 1]) against the complex
// reference: each element within the sum's worst-case rounding bound,
// about K eps times the sum of the K terms' magnitudes (each at most 2; K =
// window positions x group features).
template <typename R>
void CheckComplexCase(const ConvCase& c, std::mt19937_64& random, const std::string& label) {
  using C = std::complex<R>;
  const std::string type = testing::TypeName<C>();
  const std::string program = c.Program(type, type, type);
  SCOPED_TRACE(label + "\n" + program);
  std::uniform_real_distribution<R> unit(-1, 1);
  std::vector<C> lhs(static_cast<size_t>(Count(c.LhsDims()))),
      rhs(static_cast<size_t>(Count(c.RhsDims())));
  for (C& v : lhs) v = {unit(random), unit(random)};
  for (C& v : rhs) v = {unit(random), unit(random)};
  Result<std::vector<Literal>> out = testing::CpuRunner::Get().Run(
      program, {testing::MakeLiteral(lhs, c.LhsDims()), testing::MakeLiteral(rhs, c.RhsDims())});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ(out->at(0).dims, c.OutDims());
  const std::vector<C> got = testing::LiteralValues<C>(out->at(0));
  const std::vector<C> want = Reference(c, lhs, rhs);
  ASSERT_EQ(got.size(), want.size());
  const double terms = static_cast<double>(Count(c.window) * c.kernel_in());
  const double tolerance = std::numeric_limits<R>::epsilon() * (2.0 * terms * (terms + 1) + 8);
  int mismatches = 0;
  for (size_t i = 0; i < got.size() && mismatches < 5; ++i) {
    if (!(std::abs(std::complex<double>(got[i]) - std::complex<double>(want[i])) <= tolerance)) {
      ADD_FAILURE() << "element " << i << ": got (" << got[i].real() << ", " << got[i].imag()
                    << "), want (" << want[i].real() << ", " << want[i].imag() << ")";
      ++mismatches;
    }
  }
}

// Random cases (strides, padding, dilations, reversal, groups, layouts) on
// complex<f32> and complex<f64>: four real convolutions of the parts.
TEST(CpuConvolutionTest, RandomComplexCasesMatchTheComplexReference) {
  std::mt19937_64 random(1207);
  for (int i = 0; i < 40; ++i) {
    ConvCase c = RandomCase(random);
    CheckComplexCase<float>(c, random, "complex<f32> case " + std::to_string(i));
    CheckComplexCase<double>(c, random, "complex<f64> case " + std::to_string(i));
    if (HasFailure()) return;
  }
}

// ---------------------------------------------------------------- errors

// The status of compiling a program of one convolution `conv` (the op's text
// up to its type) over operands of types `lhs` and `rhs`.
Status ConvStatus(const std::string& conv, const std::string& lhs, const std::string& rhs,
                  const std::string& out) {
  const std::string program = "func.func @main(%a: " + lhs + ", %b: " + rhs + ") -> " + out +
                              " {\n  %r = " + conv + " : (" + lhs + ", " + rhs + ") -> " + out +
                              "\n  return %r : " + out + "\n}\n";
  return testing::CpuRunner::Get().client().Compile(program).status();
}

TEST(CpuConvolutionTest, RejectsMalformedAttributesNamingTheOp) {
  const std::string lhs = "tensor<1x4x4x2xf32>", rhs = "tensor<3x3x2x4xf32>",
                    out = "tensor<1x2x2x4xf32>";
  const std::string dims = "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]";
  struct Bad {
    std::string conv, out, message;
  };
  const std::vector<Bad> cases = {
      {"stablehlo.convolution(%a, %b) " + dims + ", window = {stride = [0, 1]}", out,
       "window strides and dilations must be positive"},
      {"stablehlo.convolution(%a, %b) " + dims + ", window = {rhs_dilate = [1, -2]}", out,
       "window strides and dilations must be positive"},
      {"stablehlo.convolution(%a, %b) " + dims + ", window = {stride = [1, 1, 1]}", out,
       "one entry per spatial dimension"},
      {"stablehlo.convolution(%a, %b) " + dims + ", window = {pad = [[0, 0]]}", out,
       "padding must be a tensor<2x2xi64>"},
      {"stablehlo.convolution(%a, %b) " + dims + ", window = {reverse = [true]}", out,
       "one entry per spatial dimension"},
      {"stablehlo.convolution(%a, %b) " + dims + " {feature_group_count = 0 : i64}", out,
       "feature_group_count and batch_group_count must be positive"},
      {"stablehlo.convolution(%a, %b) " + dims + " {feature_group_count = 2 : i64, batch_group_count = 2 : i64}",
       out, "cannot both exceed 1"},
      {"stablehlo.convolution(%a, %b) " + dims + " {feature_group_count = 2 : i64}", out,
       "kernel input feature size 2 must be 1"},
      {"stablehlo.convolution(%a, %b) " + dims + " {batch_group_count = 3 : i64}", out,
       "not divisible by batch_group_count"},
      {"stablehlo.convolution(%a, %b) " + dims, "tensor<1x3x2x4xf32>", "expected [1, 2, 2, 4]"},
      {"\"stablehlo.convolution\"(%a, %b) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, "
       "input_feature_dimension = 3, input_spatial_dimensions = [1, 1], kernel_input_feature_dimension = 2, "
       "kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, "
       "output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>}",
       out, "input dimension numbers [0, 3, 1, 1] repeats 1"},
      {"\"stablehlo.convolution\"(%a, %b) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, "
       "input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, "
       "kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 4], output_batch_dimension = 0, "
       "output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>}",
       out, "kernel dimension numbers [2, 3, 0, 4] has 4, outside [0, 4)"},
      {"stablehlo.convolution(%a, %b) " + dims +
           " {precision_config = [#stablehlo<precision DEFAULT>]}",
       out, "precision_config must have 0 or 2 entries"},
  };
  for (const Bad& bad : cases) {
    Status status = ConvStatus(bad.conv, lhs, rhs, bad.out);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << bad.conv << ": " << status.ToString();
    EXPECT_THAT(status.message(), HasSubstr("'stablehlo.convolution' op")) << bad.conv;
    EXPECT_THAT(status.message(), HasSubstr(bad.message)) << bad.conv;
  }
  Status rank = ConvStatus("stablehlo.convolution(%a, %b) " + dims, lhs, "tensor<3x3x2xf32>", out);
  EXPECT_EQ(rank.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(rank.message(), HasSubstr("must have rank 4"));
}

}  // namespace
}  // namespace berth::testing
