// stablehlo.dot_general, stablehlo.dot and stablehlo.triangular_solve on the
// CPU plugin, against naive references computed here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "kernel_test_util.hpp"

namespace berth::testing {
namespace {

std::string Shape(const std::vector<int64_t>& dims, const std::string& type) {
  std::string s = "tensor<";
  for (int64_t d : dims) s += std::to_string(d) + "x";
  return s + type + ">";
}

std::string List(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

struct DotSpec {
  std::vector<int64_t> lhs_dims, rhs_dims;
  std::vector<int64_t> lb, rb, lc, rc;

  std::vector<int64_t> Free(const std::vector<int64_t>& dims, const std::vector<int64_t>& b,
                            const std::vector<int64_t>& c) const {
    std::vector<int64_t> free;
    for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
      if (std::find(b.begin(), b.end(), d) == b.end() && std::find(c.begin(), c.end(), d) == c.end()) {
        free.push_back(d);
      }
    }
    return free;
  }
  std::vector<int64_t> ResultDims() const {
    std::vector<int64_t> out;
    for (int64_t d : lb) out.push_back(lhs_dims[d]);
    for (int64_t d : Free(lhs_dims, lb, lc)) out.push_back(lhs_dims[d]);
    for (int64_t d : Free(rhs_dims, rb, rc)) out.push_back(rhs_dims[d]);
    return out;
  }
  std::string Program(const std::string& in_type, const std::string& out_type) const {
    return "func.func @main(%a: " + Shape(lhs_dims, in_type) + ", %b: " + Shape(rhs_dims, in_type) +
           ") -> " + Shape(ResultDims(), out_type) + " {\n  %r = stablehlo.dot_general %a, %b, " +
           "batching_dims = " + List(lb) + " x " + List(rb) + ", contracting_dims = " + List(lc) +
           " x " + List(rc) + " : (" + Shape(lhs_dims, in_type) + ", " + Shape(rhs_dims, in_type) +
           ") -> " + Shape(ResultDims(), out_type) + "\n  return %r : " +
           Shape(ResultDims(), out_type) + "\n}\n";
  }

  // The spec's definition, element by element; Acc accumulates.
  template <typename Acc, typename T>
  std::vector<Acc> Reference(const std::vector<T>& lhs, const std::vector<T>& rhs) const {
    std::vector<int64_t> lf = Free(lhs_dims, lb, lc), rf = Free(rhs_dims, rb, rc);
    std::vector<int64_t> out_dims = ResultDims();
    std::vector<int64_t> contract_sizes;
    for (int64_t d : lc) contract_sizes.push_back(lhs_dims[d]);
    auto strides = [](const std::vector<int64_t>& dims) {
      std::vector<int64_t> s(dims.size(), 1);
      for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
      return s;
    };
    auto count = [](const std::vector<int64_t>& dims) {
      int64_t n = 1;
      for (int64_t d : dims) n *= d;
      return n;
    };
    std::vector<int64_t> ls = strides(lhs_dims), rs = strides(rhs_dims);
    std::vector<Acc> out(static_cast<size_t>(count(out_dims)));
    std::vector<int64_t> index(out_dims.size()), cindex(contract_sizes.size());
    for (int64_t o = 0; o < count(out_dims); ++o) {
      int64_t rem = o;
      for (size_t d = out_dims.size(); d-- > 0;) {
        index[d] = rem % out_dims[d];
        rem /= out_dims[d];
      }
      int64_t lbase = 0, rbase = 0;
      size_t pos = 0;
      for (size_t i = 0; i < lb.size(); ++i, ++pos) {
        lbase += index[pos] * ls[lb[i]];
        rbase += index[pos] * rs[rb[i]];
      }
      for (int64_t d : lf) lbase += index[pos++] * ls[d];
      for (int64_t d : rf) rbase += index[pos++] * rs[d];
      Acc acc{};
      for (int64_t c = 0; c < count(contract_sizes); ++c) {
        int64_t crem = c, loff = lbase, roff = rbase;
        for (size_t d = contract_sizes.size(); d-- > 0;) {
          int64_t k = crem % contract_sizes[d];
          crem /= contract_sizes[d];
          loff += k * ls[lc[d]];
          roff += k * rs[rc[d]];
        }
        acc = static_cast<Acc>(acc + static_cast<Acc>(lhs[loff]) * static_cast<Acc>(rhs[roff]));
      }
      out[o] = acc;
    }
    return out;
  }
};

template <typename T>
std::vector<T> Random(size_t n, int seed, double lo = -1, double hi = 1) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(dist(random));
  return v;
}

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Runs `spec` on random f32 data and compares with the double reference.
void ExpectF32DotMatches(const DotSpec& spec, double tolerance) {
  std::vector<float> a = Random<float>(Count(spec.lhs_dims), 1);
  std::vector<float> b = Random<float>(Count(spec.rhs_dims), 2);
  BERTH_RUN(out, spec.Program("f32", "f32"),
            {Literal::Of<float>(a, spec.lhs_dims), Literal::Of<float>(b, spec.rhs_dims)});
  EXPECT_EQ(out[0].dims, spec.ResultDims());
  std::vector<double> want = spec.Reference<double>(a, b);
  std::vector<float> got = out[0].Values<float>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], tolerance) << i;
}

TEST(CpuDotGeneralTest, SmallMatmul) {
  DotSpec spec{{2, 3}, {3, 2}, {}, {}, {1}, {0}};
  BERTH_RUN(out, spec.Program("f32", "f32"),
            {Literal::Of<float>({1, 2, 3, 4, 5, 6}, {2, 3}),
             Literal::Of<float>({7, 8, 9, 10, 11, 12}, {3, 2})});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(58, 64, 139, 154));
}

TEST(CpuDotGeneralTest, BatchDimsInNonLeadingPositions) {
  // lhs [M=3, B=2, K=4], rhs [K=4, N=5, B=2] -> [B, M, N].
  ExpectF32DotMatches({{3, 2, 4}, {4, 5, 2}, {1}, {2}, {2}, {0}}, 1e-5);
  // Two batch dims listed out of order.
  ExpectF32DotMatches({{2, 3, 4, 5}, {5, 3, 2, 6}, {1, 0}, {1, 2}, {3}, {0}}, 1e-5);
}

TEST(CpuDotGeneralTest, SeveralContractingDimsInAnyOrder) {
  ExpectF32DotMatches({{2, 3, 4}, {4, 3, 5}, {}, {}, {2, 1}, {0, 1}}, 1e-5);
}

TEST(CpuDotGeneralTest, TransposedLayoutsAreUsedInPlace) {
  // lhs [K, M], rhs [N, K].
  ExpectF32DotMatches({{3, 2}, {4, 3}, {}, {}, {0}, {1}}, 1e-5);
  ExpectF32DotMatches({{2, 7, 3}, {2, 4, 7}, {0}, {0}, {1}, {2}}, 1e-5);
}

TEST(CpuDotGeneralTest, NoContractionIsAnOuterProduct) {
  DotSpec spec{{2, 2}, {2, 2}, {}, {}, {}, {}};
  BERTH_RUN(out, spec.Program("i64", "i64"),
            {Literal::Of<int64_t>({1, 2, 3, 4}, {2, 2}), Literal::Of<int64_t>({1, 0, 0, 1}, {2, 2})});
  EXPECT_THAT(out[0].Values<int64_t>(),
              ElementsAre(1, 0, 0, 1, 2, 0, 0, 2, 3, 0, 0, 3, 4, 0, 0, 4));
}

TEST(CpuDotGeneralTest, LargeMatmulMatchesReference) {
  ExpectF32DotMatches({{130, 257}, {257, 190}, {}, {}, {1}, {0}}, 1e-3);
}

TEST(CpuDotGeneralTest, BatchesOfSmallAndLargeMatrices) {
  ExpectF32DotMatches({{50, 6, 7}, {50, 7, 5}, {0}, {0}, {2}, {1}}, 1e-5);
  ExpectF32DotMatches({{3, 140, 120}, {3, 120, 130}, {0}, {0}, {2}, {1}}, 1e-3);
}

TEST(CpuDotGeneralTest, F64IsComputedInDouble) {
  DotSpec spec{{4, 33}, {33, 3}, {}, {}, {1}, {0}};
  std::vector<double> a = Random<double>(4 * 33, 3), b = Random<double>(33 * 3, 4);
  BERTH_RUN(out, spec.Program("f64", "f64"),
            {Literal::Of<double>(a, {4, 33}), Literal::Of<double>(b, {33, 3})});
  std::vector<double> want = spec.Reference<double>(a, b);
  std::vector<double> got = out[0].Values<double>();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12);
}

TEST(CpuDotGeneralTest, IntegerProductsAreExactAndWrap) {
  DotSpec spec{{3, 40}, {40, 2}, {}, {}, {1}, {0}};
  std::mt19937_64 random(11);
  std::vector<int64_t> a(120), b(80);
  for (int64_t& x : a) x = static_cast<int64_t>(random());
  for (int64_t& x : b) x = static_cast<int64_t>(random());
  BERTH_RUN(out, spec.Program("i64", "i64"),
            {Literal::Of<int64_t>(a, {3, 40}), Literal::Of<int64_t>(b, {40, 2})});
  std::vector<uint64_t> ua(a.begin(), a.end()), ub(b.begin(), b.end());
  std::vector<uint64_t> want = spec.Reference<uint64_t>(ua, ub);
  std::vector<int64_t> got = out[0].Values<int64_t>();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(static_cast<uint64_t>(got[i]), want[i]);

  DotSpec small{{1, 2}, {2, 1}, {}, {}, {1}, {0}};
  BERTH_RUN(out32, small.Program("i32", "i32"),
            {Literal::Of<int32_t>({65536, std::numeric_limits<int32_t>::min()}, {1, 2}),
             Literal::Of<int32_t>({65536, -1}, {2, 1})});
  // 2^32 wraps to 0; INT_MIN * -1 wraps to INT_MIN.
  EXPECT_THAT(out32[0].Values<int32_t>(), ElementsAre(std::numeric_limits<int32_t>::min()));
  BERTH_RUN(out8, small.Program("ui8", "ui8"),
            {Literal::Of<uint8_t>({16, 255}, {1, 2}), Literal::Of<uint8_t>({16, 255}, {2, 1})});
  EXPECT_THAT(out8[0].Values<uint8_t>(), ElementsAre(1));  // (256 + 65025) mod 256
}

TEST(CpuDotGeneralTest, NarrowIntegersAccumulateInTheResultType) {
  DotSpec spec{{3}, {3}, {}, {}, {0}, {0}};
  BERTH_RUN(out, spec.Program("i8", "i32"),
            {Literal::Of<int8_t>({100, 100, -128}, {3}), Literal::Of<int8_t>({100, 100, 127}, {3})});
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(20000 - 128 * 127));
}

TEST(CpuDotGeneralTest, I1IsOrOverAnd) {
  DotSpec spec{{2, 3}, {3, 2}, {}, {}, {1}, {0}};
  BERTH_RUN(out, spec.Program("i1", "i1"),
            {Literal::Of<bool>({true, false, false, false, false, false}, {2, 3}),
             Literal::Of<bool>({false, true, true, true, true, true}, {3, 2})});
  EXPECT_THAT(out[0].Values<bool>(), ElementsAre(false, true, false, false));
}

TEST(CpuDotGeneralTest, F32OperandsWithF64Result) {
  DotSpec spec{{2, 2, 2}, {2, 2, 2}, {0}, {0}, {2}, {1}};
  BERTH_RUN(out, spec.Program("f32", "f64"),
            {Literal::Of<float>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}),
             Literal::Of<float>({1, 0, 0, 1, 1, 0, 0, 1}, {2, 2, 2})});
  EXPECT_THAT(out[0].Values<double>(), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8));
}

TEST(CpuDotGeneralTest, HalfTypesAccumulateInF32AndRoundOnce) {
  // bf16: 256 + 1 + 1 = 258 exactly in f32, representable in bf16.
  DotSpec spec{{3}, {3}, {}, {}, {0}, {0}};
  uint16_t one = testing::ToBf16(1);
  BERTH_RUN(out, spec.Program("bf16", "bf16"),
            {Literal::Raw<uint16_t>(ElementType::kBF16, {testing::ToBf16(256), one, one}, {3}),
             Literal::Raw<uint16_t>(ElementType::kBF16, {one, one, one}, {3})});
  EXPECT_EQ(testing::FromBf16(out[0].Values<uint16_t>()[0]), 258.0f);
  // f16: 1*1 + 2*1 + 3*1 = 6 (0x3C00, 0x4000, 0x4200 -> 0x4600).
  BERTH_RUN(outh, spec.Program("f16", "f16"),
            {Literal::Raw<uint16_t>(ElementType::kF16, {0x3C00, 0x4000, 0x4200}, {3}),
             Literal::Raw<uint16_t>(ElementType::kF16, {0x3C00, 0x3C00, 0x3C00}, {3})});
  EXPECT_THAT(outh[0].Values<uint16_t>(), ElementsAre(0x4600));
}

TEST(CpuDotGeneralTest, EmptyContractionGivesZerosAndEmptyFreeDimsGiveEmpty) {
  const char* program = R"(
func.func @main() -> (tensor<2x3xf32>, tensor<0x2xi32>) {
  %a = stablehlo.constant dense<> : tensor<2x0xf32>
  %b = stablehlo.constant dense<> : tensor<0x3xf32>
  %c = stablehlo.constant dense<> : tensor<0x3xi32>
  %d = stablehlo.constant dense<1> : tensor<3x2xi32>
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0]
      : (tensor<2x0xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
  %s = stablehlo.dot_general %c, %d, contracting_dims = [1] x [0]
      : (tensor<0x3xi32>, tensor<3x2xi32>) -> tensor<0x2xi32>
  return %r, %s : tensor<2x3xf32>, tensor<0x2xi32>
}
)";
  BERTH_RUN(out, program, {});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(0, 0, 0, 0, 0, 0));
  EXPECT_EQ(out[1].dims, (std::vector<int64_t>{0, 2}));
}

TEST(CpuDotGeneralTest, PrecisionConfigAndAlgorithmAreAccepted) {
  const char* program = R"(
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0],
      precision = [HIGHEST, DEFAULT],
      algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32,
                   lhs_component_count = 1, rhs_component_count = 1,
                   num_primitive_operations = 1, allow_imprecise_accumulation = false>
      : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
)";
  BERTH_RUN(out, program,
            {Literal::Of<float>({1, 2, 3, 4}, {2, 2}), Literal::Of<float>({1, 1, 1, 1}, {2, 2})});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(3, 3, 7, 7));
}

TEST(CpuDotTest, LegacyDotOfVectorsAndMatrices) {
  const char* program = R"(
func.func @main(%v: tensor<3xf32>, %m: tensor<3x2xf32>, %n: tensor<2x3xf32>)
    -> (tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>) {
  %vv = stablehlo.dot %v, %v : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  %vm = stablehlo.dot %v, %m : (tensor<3xf32>, tensor<3x2xf32>) -> tensor<2xf32>
  %mv = stablehlo.dot %n, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  %mm = "stablehlo.dot"(%n, %m) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %vv, %vm, %mv, %mm : tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>
}
)";
  BERTH_RUN(out, program,
            {Literal::Of<float>({1, 2, 3}, {3}), Literal::Of<float>({1, 2, 3, 4, 5, 6}, {3, 2}),
             Literal::Of<float>({1, 2, 3, 4, 5, 6}, {2, 3})});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(14));
  EXPECT_THAT(out[1].Values<float>(), ElementsAre(22, 28));
  EXPECT_THAT(out[2].Values<float>(), ElementsAre(14, 32));
  EXPECT_THAT(out[3].Values<float>(), ElementsAre(22, 28, 49, 64));
}

// ---------------------------------------------------------- triangular_solve

// Solves t * x = b (t dense n x n, b n x m, row-major) by Gaussian
// elimination with partial pivoting.
std::vector<double> DirectSolve(std::vector<double> t, std::vector<double> b, int n, int m) {
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int r = col + 1; r < n; ++r) {
      if (std::abs(t[r * n + col]) > std::abs(t[pivot * n + col])) pivot = r;
    }
    for (int c = 0; c < n; ++c) std::swap(t[col * n + c], t[pivot * n + c]);
    for (int c = 0; c < m; ++c) std::swap(b[col * m + c], b[pivot * m + c]);
    for (int r = 0; r < n; ++r) {
      if (r == col) continue;
      double f = t[r * n + col] / t[col * n + col];
      for (int c = 0; c < n; ++c) t[r * n + c] -= f * t[col * n + c];
      for (int c = 0; c < m; ++c) b[r * m + c] -= f * b[col * m + c];
    }
  }
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < m; ++c) b[r * m + c] /= t[r * n + r];
  }
  return b;
}

struct SolveCase {
  bool left, lower, unit;
  const char* transpose;
};

// triangular_solve of %a (`a_type`) and %b (`b_type`, the result's type
// too) with `solve`'s attributes.
std::string TriangularSolveProgram(const std::string& a_type, const std::string& b_type,
                                   const SolveCase& solve = {true, true, false, "NO_TRANSPOSE"}) {
  auto flag = [](bool value) { return std::string(value ? "true" : "false"); };
  return "func.func @main(%a: " + a_type + ", %b: " + b_type + ") -> " + b_type +
         " {\n  %r = \"stablehlo.triangular_solve\"(%a, %b) {left_side = " + flag(solve.left) +
         ", lower = " + flag(solve.lower) + ", unit_diagonal = " + flag(solve.unit) +
         ", transpose_a = #stablehlo<transpose " + solve.transpose + ">} : (" + a_type + ", " + b_type + ") -> " +
         b_type + "\n  return %r : " + b_type + "\n}\n";
}

TEST(CpuTriangularSolveTest, AllVariantsMatchADirectSolve) {
  constexpr int n = 4, m = 3;
  // The triangle in use is well conditioned; the other one holds values that
  // must be ignored, and with unit_diagonal so does the diagonal.
  std::vector<double> a(n * n);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) a[r * n + c] = r == c ? 2.0 + r : 0.25 * (r + 1) - 0.1 * c;
  }
  std::vector<double> b = Random<double>(n * m, 9, -2, 2);
  for (bool left : {true, false}) {
    for (bool lower : {true, false}) {
      for (bool unit : {false, true}) {
        for (const char* transpose : {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}) {
          SCOPED_TRACE(std::string(left ? "left " : "right ") + (lower ? "lower " : "upper ") +
                       (unit ? "unit " : "") + transpose);
          // The effective matrix: the chosen triangle, unit diagonal if asked.
          std::vector<double> t(n * n, 0.0);
          for (int r = 0; r < n; ++r) {
            for (int c = 0; c < n; ++c) {
              bool in = lower ? c <= r : c >= r;
              if (in) t[r * n + c] = (unit && r == c) ? 1.0 : a[r * n + c];
            }
          }
          std::vector<double> op = t;
          if (std::string(transpose) != "NO_TRANSPOSE") {
            for (int r = 0; r < n; ++r) {
              for (int c = 0; c < n; ++c) op[r * n + c] = t[c * n + r];
            }
          }
          std::vector<int64_t> b_dims = left ? std::vector<int64_t>{n, m} : std::vector<int64_t>{m, n};
          std::vector<double> want;
          if (left) {
            want = DirectSolve(op, b, n, m);
          } else {
            // x op = b  <=>  op^T x^T = b^T; b here is read as m x n.
            std::vector<double> opt(n * n), bt(n * m);
            for (int r = 0; r < n; ++r) {
              for (int c = 0; c < n; ++c) opt[r * n + c] = op[c * n + r];
            }
            for (int r = 0; r < m; ++r) {
              for (int c = 0; c < n; ++c) bt[c * m + r] = b[r * n + c];
            }
            std::vector<double> xt = DirectSolve(opt, bt, n, m);
            want.resize(m * n);
            for (int r = 0; r < m; ++r) {
              for (int c = 0; c < n; ++c) want[r * n + c] = xt[c * m + r];
            }
          }
          std::string bt = Shape(b_dims, "f64");
          std::string program =
              TriangularSolveProgram("tensor<4x4xf64>", bt, {left, lower, unit, transpose});
          std::vector<double> a_in = a;
          if (unit) {
            for (int r = 0; r < n; ++r) a_in[r * n + r] = 77.0;
          }
          BERTH_RUN(out, program, {Literal::Of<double>(a_in, {n, n}), Literal::Of<double>(b, b_dims)});
          std::vector<double> got = out[0].Values<double>();
          ASSERT_EQ(got.size(), want.size());
          for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-10) << i;
        }
      }
    }
  }
}

TEST(CpuTriangularSolveTest, BatchedF32) {
  const std::string program = TriangularSolveProgram("tensor<2x2x2xf32>", "tensor<2x2x1xf32>");
  // [[2, 0], [1, 4]] x = [2, 9] -> [1, 2]; [[1, 0], [3, 2]] x = [3, 13] -> [3, 2].
  BERTH_RUN(out, program,
            {Literal::Of<float>({2, 99, 1, 4, 1, 99, 3, 2}, {2, 2, 2}),
             Literal::Of<float>({2, 9, 3, 13}, {2, 2, 1})});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(1, 2, 3, 2));
}

TEST(CpuTriangularSolveTest, SingularMatrixGivesInfinitiesNotACrash) {
  const std::string program = TriangularSolveProgram("tensor<2x2xf32>", "tensor<2x1xf32>");
  BERTH_RUN(out, program,
            {Literal::Of<float>({0, 0, 1, 1}, {2, 2}), Literal::Of<float>({1, 1}, {2, 1})});
  EXPECT_TRUE(std::isinf(out[0].Values<float>()[0]));
}

TEST(CpuTriangularSolveTest, IntegerOperandsAreRejected) {
  const std::string program = TriangularSolveProgram("tensor<2x2xi32>", "tensor<2x1xi32>");
  Status status = testing::RunStatus(
      program, {Literal::Of<int32_t>({1, 0, 0, 1}, {2, 2}), Literal::Of<int32_t>({1, 1}, {2, 1})});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
  EXPECT_THAT(status.message(), HasSubstr("floating-point"));
}

}  // namespace
}  // namespace berth::testing
