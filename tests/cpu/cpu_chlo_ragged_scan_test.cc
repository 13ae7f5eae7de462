// chlo.ragged_dot in its three modes (against an element-by-element
// reference computed here from the op's definition, over unusual dimension
// orders, per-batch group sizes, sizes that leave rows out or run past the
// end, f32, f16 and i32), and chlo.scan (forwards and in reverse, several
// inputs, outputs and carries, a scan of length 0).
#include <random>

#include "elementwise_test_util.hpp"

namespace berth::testing {
namespace {

struct RaggedCase {
  std::vector<int64_t> lhs, rhs, sizes_dims;
  std::vector<int64_t> lb, rb, lc, rc, lr, rg;
  std::vector<int64_t> sizes;
};

std::string List(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

bool Has(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::vector<int64_t> Free(int64_t rank, const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                          const std::vector<int64_t>& c = {}) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Has(a, d) && !Has(b, d) && !Has(c, d)) out.push_back(d);
  }
  return out;
}

// The definition, element by element: returns the result's dims and values.
std::pair<std::vector<int64_t>, std::vector<double>> Reference(const RaggedCase& c, const std::vector<double>& lhs,
                                                               const std::vector<double>& rhs) {
  const std::vector<int64_t> lf = Free(static_cast<int64_t>(c.lhs.size()), c.lb, c.lc);
  const std::vector<int64_t> rf = Free(static_cast<int64_t>(c.rhs.size()), c.rb, c.rc, c.rg);
  const int64_t lr = c.lr[0];
  const int mode = Has(c.lb, lr) ? 3 : Has(c.lc, lr) ? 2 : 1;
  const int64_t groups = c.sizes_dims.back();
  std::vector<int64_t> out_dims;
  if (mode == 2) out_dims.push_back(groups);
  for (int64_t d : c.lb) out_dims.push_back(c.lhs[static_cast<size_t>(d)]);
  for (int64_t d : lf) out_dims.push_back(c.lhs[static_cast<size_t>(d)]);
  for (int64_t d : rf) out_dims.push_back(c.rhs[static_cast<size_t>(d)]);
  std::vector<int64_t> k_dims;
  for (int64_t d : c.lc) k_dims.push_back(c.lhs[static_cast<size_t>(d)]);
  auto unflatten = [](int64_t flat, const std::vector<int64_t>& dims) {
    std::vector<int64_t> index(dims.size());
    for (size_t d = dims.size(); d-- > 0;) {
      index[d] = flat % dims[d];
      flat /= dims[d];
    }
    return index;
  };
  auto flatten = [](const std::vector<int64_t>& index, const std::vector<int64_t>& dims) {
    int64_t flat = 0;
    for (size_t d = 0; d < dims.size(); ++d) flat = flat * dims[d] + index[d];
    return flat;
  };
  // Group j's range along the ragged dim for batch coordinates `batch`.
  auto range = [&](const std::vector<int64_t>& batch, int64_t j) {
    int64_t row = 0;
    if (c.sizes_dims.size() > 1) {
      std::vector<int64_t> bdims;
      for (int64_t d : c.lb) bdims.push_back(c.lhs[static_cast<size_t>(d)]);
      row = flatten(batch, bdims);
    }
    int64_t start = 0, limit = c.lhs[static_cast<size_t>(lr)];
    for (int64_t i = 0; i < j; ++i) start = std::min(limit, start + std::max<int64_t>(0, c.sizes[static_cast<size_t>(row * groups + i)]));
    int64_t end = std::min(limit, start + std::max<int64_t>(0, c.sizes[static_cast<size_t>(row * groups + j)]));
    return std::pair<int64_t, int64_t>{start, end};
  };
  std::vector<double> out(static_cast<size_t>(Count(out_dims)), 0.0);
  for (int64_t o = 0; o < Count(out_dims); ++o) {
    std::vector<int64_t> at = unflatten(o, out_dims);
    size_t p = 0;
    int64_t j = mode == 2 ? at[p++] : -1;
    std::vector<int64_t> batch(at.begin() + static_cast<std::ptrdiff_t>(p), at.begin() + static_cast<std::ptrdiff_t>(p + c.lb.size()));
    p += c.lb.size();
    std::vector<int64_t> li(c.lhs.size()), ri(c.rhs.size());
    for (size_t i = 0; i < c.lb.size(); ++i) {
      li[static_cast<size_t>(c.lb[i])] = batch[i];
      ri[static_cast<size_t>(c.rb[i])] = batch[i];
    }
    for (int64_t d : lf) li[static_cast<size_t>(d)] = at[p++];
    for (int64_t d : rf) ri[static_cast<size_t>(d)] = at[p++];
    if (mode == 1) {
      j = -1;
      for (int64_t g = 0; g < groups; ++g) {
        auto [s, e] = range(batch, g);
        if (li[static_cast<size_t>(lr)] >= s && li[static_cast<size_t>(lr)] < e) j = g;
      }
      if (j < 0) continue;
      ri[static_cast<size_t>(c.rg[0])] = j;
    }
    if (mode == 3) {
      auto [s, e] = range({}, groups - 1);
      if (li[static_cast<size_t>(lr)] >= e) continue;
    }
    double sum = 0;
    for (int64_t kk = 0; kk < Count(k_dims); ++kk) {
      std::vector<int64_t> k = unflatten(kk, k_dims);
      bool skip = false;
      for (size_t i = 0; i < c.lc.size(); ++i) {
        li[static_cast<size_t>(c.lc[i])] = k[i];
        ri[static_cast<size_t>(c.rc[i])] = k[i];
        if (mode == 2 && c.lc[i] == lr) {
          auto [s, e] = range(batch, j);
          skip = k[i] < s || k[i] >= e;
        }
      }
      if (skip) continue;
      sum += lhs[static_cast<size_t>(flatten(li, c.lhs))] * rhs[static_cast<size_t>(flatten(ri, c.rhs))];
    }
    out[static_cast<size_t>(o)] = sum;
  }
  return {out_dims, out};
}

std::string RaggedProgram(const RaggedCase& c, const std::string& type, const std::vector<int64_t>& out_dims) {
  std::string lt = TensorType(c.lhs, type), rt = TensorType(c.rhs, type);
  std::string st = TensorType(c.sizes_dims, "i64"), ot = TensorType(out_dims, type);
  return "func.func @main(%l: " + lt + ", %r: " + rt + ", %s: " + st + ") -> " + ot + " {\n" +
         "  %0 = \"chlo.ragged_dot\"(%l, %r, %s) {ragged_dot_dimension_numbers = #chlo.ragged_dot<" +
         "lhs_batching_dimensions = " + List(c.lb) + ", rhs_batching_dimensions = " + List(c.rb) +
         ", lhs_contracting_dimensions = " + List(c.lc) + ", rhs_contracting_dimensions = " + List(c.rc) +
         ", lhs_ragged_dimensions = " + List(c.lr) + ", rhs_group_dimensions = " + List(c.rg) + ">} : (" +
         lt + ", " + rt + ", " + st + ") -> " + ot + "\n  return %0 : " + ot + "\n}\n";
}

const RaggedCase kCases[] = {
    // Mode 1 as the upstream test: [m, k] x [g, k, n].
    {{11, 5}, {3, 5, 7}, {3}, {}, {}, {1}, {1}, {0}, {0}, {4, 4, 3}},
    // Rows past the groups, an empty group, sizes past the end.
    {{11, 5}, {3, 5, 7}, {3}, {}, {}, {1}, {1}, {0}, {0}, {2, 0, 5}},
    {{11, 5}, {3, 5, 7}, {3}, {}, {}, {1}, {1}, {0}, {0}, {4, 100, -3}},
    // Mode 1, batched, per-batch sizes; the ragged dim not first, the rhs
    // group dim last, another lhs free dim after the ragged one.
    {{6, 2, 3, 2}, {2, 3, 4, 3}, {2, 3}, {1}, {0}, {2}, {1}, {0}, {3}, {1, 2, 3, 3, 3, 0}},
    // Mode 2: the contracting dim is ragged; result [g, b, m, n].
    {{2, 4, 10}, {2, 10, 3}, {2, 3}, {0}, {0}, {2}, {1}, {2}, {}, {3, 3, 4, 10, 0, 2}},
    // Mode 2 with a second contracting dim and shared sizes.
    {{3, 6, 2}, {2, 6, 5}, {3}, {}, {}, {1, 2}, {1, 0}, {1}, {}, {1, 2, 2}},
    // Mode 3: the batch dim is ragged; batches past the groups give 0.
    {{5, 2, 3}, {5, 3, 2}, {2}, {0}, {0}, {2}, {1}, {0}, {}, {2, 1}},
};

TEST(CpuRaggedDotTest, EveryModeMatchesTheDefinition) {
  std::mt19937_64 random(17);
  std::uniform_int_distribution<int> value(-8, 8);
  for (const RaggedCase& c : kCases) {
    std::vector<double> lhs(static_cast<size_t>(Count(c.lhs))), rhs(static_cast<size_t>(Count(c.rhs)));
    for (double& v : lhs) v = value(random) / 4.0;
    for (double& v : rhs) v = value(random) / 4.0;
    auto [dims, expected] = Reference(c, lhs, rhs);
    Literal sizes = Literal::Of<int64_t>(c.sizes, c.sizes_dims);
    for (const char* type : {"f32", "f64", "f16", "i32"}) {
      SCOPED_TRACE(std::string(type) + " lhs " + List(c.lhs) + " rhs " + List(c.rhs) + " sizes " + List(c.sizes));
      Literal l, r;
      std::string t = type;
      if (t == "f32") {
        l = Literal::Of<float>(std::vector<float>(lhs.begin(), lhs.end()), c.lhs);
        r = Literal::Of<float>(std::vector<float>(rhs.begin(), rhs.end()), c.rhs);
      } else if (t == "f64") {
        l = Literal::Of<double>(lhs, c.lhs);
        r = Literal::Of<double>(rhs, c.rhs);
      } else if (t == "f16") {
        // Quarters of small integers are exact in f16, as are these sums.
        auto to_f16 = [](double v) {
          if (v == 0) return uint16_t{0};
          uint16_t sign = v < 0 ? 0x8000 : 0;
          int e;
          double m = std::frexp(std::fabs(v), &e);
          return static_cast<uint16_t>(sign | ((e + 14) << 10) | (static_cast<int>(m * 2048) & 0x3FF));
        };
        std::vector<uint16_t> lh, rh;
        for (double v : lhs) lh.push_back(to_f16(v));
        for (double v : rhs) rh.push_back(to_f16(v));
        l = Literal::Raw<uint16_t>(ElementType::kF16, lh, c.lhs);
        r = Literal::Raw<uint16_t>(ElementType::kF16, rh, c.rhs);
      } else {
        std::vector<int32_t> li, ri;
        for (double v : lhs) li.push_back(static_cast<int32_t>(v * 4));
        for (double v : rhs) ri.push_back(static_cast<int32_t>(v * 4));
        l = Literal::Of<int32_t>(li, c.lhs);
        r = Literal::Of<int32_t>(ri, c.rhs);
      }
      Result<std::vector<Literal>> out = CpuRunner::Get().Run(RaggedProgram(c, type, dims), {l, r, sizes});
      ASSERT_TRUE(out.ok()) << out.status().ToString() << "\n" << RaggedProgram(c, type, dims);
      ASSERT_EQ(out->at(0).dims, dims);
      std::vector<double> got;
      if (t == "f32") for (float v : out->at(0).Values<float>()) got.push_back(v);
      else if (t == "f64") got = out->at(0).Values<double>();
      else if (t == "i32") for (int32_t v : out->at(0).Values<int32_t>()) got.push_back(v / 16.0);
      else for (uint16_t h : out->at(0).Values<uint16_t>()) {
        int e = (h >> 10) & 0x1F, m = h & 0x3FF;
        double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
        got.push_back(h & 0x8000 ? -v : v);
      }
      // The operands are quarters of small integers: every product and sum
      // here is exact in each type.
      ASSERT_EQ(got, expected);
    }
  }
}

TEST(CpuScanTest, CumulativeSumsForwardsAndInReverseAlongAnyDimension) {
  Result<std::vector<Literal>> out = CpuRunner::Get().Run(R"(
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<2xf32>) {
  %init = stablehlo.constant dense<0.0> : tensor<2xf32>
  %0:2 = chlo.scan(%x) inits(%init) dimension=1 {
  ^bb0(%a: tensor<2xf32>, %c: tensor<2xf32>):
    %s = stablehlo.add %a, %c : tensor<2xf32>
    stablehlo.return %s, %s : tensor<2xf32>, tensor<2xf32>
  } : (tensor<2x3xf32>, tensor<2xf32>) -> (tensor<2x3xf32>, tensor<2xf32>)
  %1:2 = chlo.scan(%x) inits(%init) dimension=1 attributes {is_reverse = true} {
  ^bb0(%a: tensor<2xf32>, %c: tensor<2xf32>):
    %s = stablehlo.add %a, %c : tensor<2xf32>
    stablehlo.return %s, %s : tensor<2xf32>, tensor<2xf32>
  } : (tensor<2x3xf32>, tensor<2xf32>) -> (tensor<2x3xf32>, tensor<2xf32>)
  return %0#0, %0#1, %1#0, %1#1 : tensor<2x3xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<2xf32>
}
)", {Literal::Of<float>({1, 2, 3, 4, 5, 6}, {2, 3})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_THAT(out->at(0).Values<float>(), ElementsAre(1, 3, 6, 4, 9, 15));
  EXPECT_THAT(out->at(1).Values<float>(), ElementsAre(6, 15));
  EXPECT_THAT(out->at(2).Values<float>(), ElementsAre(6, 5, 3, 15, 11, 6));
  EXPECT_THAT(out->at(3).Values<float>(), ElementsAre(6, 15));
}

TEST(CpuScanTest, SeveralInputsOutputsAndCarriesOfDifferentTypes) {
  // A running maximum with its position (two inputs, one output, two
  // carries) over a dimension of 7.
  Result<std::vector<Literal>> out = CpuRunner::Get().Run(R"(
func.func @main(%x: tensor<7xi64>, %pos: tensor<7xi32>) -> (tensor<7xi64>, tensor<i64>, tensor<i32>) {
  %lo = stablehlo.constant dense<-9223372036854775808> : tensor<i64>
  %none = stablehlo.constant dense<-1> : tensor<i32>
  %0:3 = chlo.scan(%x, %pos) inits(%lo, %none) dimension=0 {
  ^bb0(%v: tensor<i64>, %p: tensor<i32>, %best: tensor<i64>, %at: tensor<i32>):
    %gt = stablehlo.compare GT, %v, %best : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %b = stablehlo.select %gt, %v, %best : tensor<i1>, tensor<i64>
    %i = stablehlo.select %gt, %p, %at : tensor<i1>, tensor<i32>
    stablehlo.return %b, %b, %i : tensor<i64>, tensor<i64>, tensor<i32>
  } : (tensor<7xi64>, tensor<7xi32>, tensor<i64>, tensor<i32>) -> (tensor<7xi64>, tensor<i64>, tensor<i32>)
  return %0#0, %0#1, %0#2 : tensor<7xi64>, tensor<i64>, tensor<i32>
}
)", {Vec<int64_t>({3, 1, 4, 1, 5, 9, 2}), Vec<int32_t>({0, 1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_THAT(out->at(0).Values<int64_t>(), ElementsAre(3, 3, 4, 4, 5, 9, 9));
  EXPECT_THAT(out->at(1).Values<int64_t>(), ElementsAre(9));
  EXPECT_THAT(out->at(2).Values<int32_t>(), ElementsAre(5));
}

TEST(CpuScanTest, ALengthZeroScanReturnsTheInits) {
  Result<std::vector<Literal>> out = CpuRunner::Get().Run(R"(
func.func @main(%x: tensor<2x0xf32>) -> (tensor<2x0xf32>, tensor<2xf32>) {
  %init = stablehlo.constant dense<[7.0, 8.0]> : tensor<2xf32>
  %0:2 = chlo.scan(%x) inits(%init) dimension=1 {
  ^bb0(%a: tensor<2xf32>, %c: tensor<2xf32>):
    %s = stablehlo.add %a, %c : tensor<2xf32>
    stablehlo.return %s, %s : tensor<2xf32>, tensor<2xf32>
  } : (tensor<2x0xf32>, tensor<2xf32>) -> (tensor<2x0xf32>, tensor<2xf32>)
  return %0#0, %0#1 : tensor<2x0xf32>, tensor<2xf32>
}
)", {Literal::Of<float>({}, {2, 0})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at(0).dims, (std::vector<int64_t>{2, 0}));
  EXPECT_THAT(out->at(1).Values<float>(), ElementsAre(7, 8));
}

}  // namespace
}  // namespace berth::testing
