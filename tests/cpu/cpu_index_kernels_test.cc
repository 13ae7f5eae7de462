// The cpu plugin's indexing kernels: slice, dynamic_slice,
// dynamic_update_slice, real_dynamic_slice, gather, dynamic_gather,
// torch_index_select and scatter. Gather and scatter results are checked
// against direct transcriptions of the spec's index formulas.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>

#include "kernel_test_util.hpp"

namespace berth::testing {
namespace {

// ------------------------------------------------------------------- slices

TEST(SliceKernelTest, StridedSliceTakesEveryStrideElement) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<3x4xi32>) -> (tensor<2x2xi32>, tensor<3x4xi32>, tensor<0x4xi32>) {
    %0 = stablehlo.slice %a [0:3:2, 1:4:2] : (tensor<3x4xi32>) -> tensor<2x2xi32>
    %1 = stablehlo.slice %a [0:3, 0:4] : (tensor<3x4xi32>) -> tensor<3x4xi32>
    %2 = stablehlo.slice %a [1:1, 0:4] : (tensor<3x4xi32>) -> tensor<0x4xi32>
    return %0, %1, %2 : tensor<2x2xi32>, tensor<3x4xi32>, tensor<0x4xi32> })",
                 {Literal::Of<int32_t>(Iota<int32_t>(12), {3, 4})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(1, 3, 9, 11));
  EXPECT_EQ(out[1].Values<int32_t>(), Iota<int32_t>(12));
  EXPECT_TRUE(out[2].Values<int32_t>().empty());
}

TEST(SliceKernelTest, DynamicSliceClampsStartIndicesSoTheSliceFits) {
  const char* program = R"(func.func @main(%a: tensor<3x3xi64>, %i: tensor<i64>, %j: tensor<i64>) -> tensor<2x2xi64> {
    %0 = stablehlo.dynamic_slice %a, %i, %j, sizes = [2, 2] : (tensor<3x3xi64>, tensor<i64>, tensor<i64>) -> tensor<2x2xi64>
    return %0 : tensor<2x2xi64> })";
  Literal a = Literal::Of<int64_t>(Iota<int64_t>(9), {3, 3});
  auto in_range = RunProgram(program, {a, Literal::Of<int64_t>({1}, {}), Literal::Of<int64_t>({0}, {})});
  ASSERT_EQ(in_range.size(), 1u);
  EXPECT_THAT(in_range[0].Values<int64_t>(), ElementsAre(3, 4, 6, 7));
  auto high = RunProgram(program, {a, Literal::Of<int64_t>({3}, {}), Literal::Of<int64_t>({INT64_MAX}, {})});
  ASSERT_EQ(high.size(), 1u);
  EXPECT_THAT(high[0].Values<int64_t>(), ElementsAre(4, 5, 7, 8));
  auto low = RunProgram(program, {a, Literal::Of<int64_t>({-5}, {}), Literal::Of<int64_t>({INT64_MIN}, {})});
  ASSERT_EQ(low.size(), 1u);
  EXPECT_THAT(low[0].Values<int64_t>(), ElementsAre(0, 1, 3, 4));
}

TEST(SliceKernelTest, DynamicSliceClampsHugeUnsignedIndices) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<4xf16>, %i: tensor<ui64>) -> tensor<2xf16> {
    %0 = stablehlo.dynamic_slice %a, %i, sizes = [2] : (tensor<4xf16>, tensor<ui64>) -> tensor<2xf16>
    return %0 : tensor<2xf16> })", {Literal::Raw<uint16_t>(ElementType::kF16, {1, 2, 3, 4}, {4}),
                                   Literal::Of<uint64_t>({~0ull}, {})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].Values<uint16_t>(), ElementsAre(3, 4));
}

TEST(SliceKernelTest, DynamicUpdateSliceClampsAndKeepsTheRest) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<3x4xi32>, %u: tensor<2x2xi32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<3x4xi32> {
    %0 = stablehlo.dynamic_update_slice %a, %u, %i, %j : (tensor<3x4xi32>, tensor<2x2xi32>, tensor<i32>, tensor<i32>) -> tensor<3x4xi32>
    return %0 : tensor<3x4xi32> })",
                 {Literal::Of<int32_t>(std::vector<int32_t>(12, 0), {3, 4}),
                  Literal::Of<int32_t>({1, 2, 3, 4}, {2, 2}), Literal::Of<int32_t>({5}, {}),
                  Literal::Of<int32_t>({-1}, {})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0));
}

TEST(SliceKernelTest, DynamicUpdateSliceWithFullAndEmptyUpdates) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<2xi1>, %u: tensor<2xi1>, %e: tensor<0xi1>, %i: tensor<i8>) -> (tensor<2xi1>, tensor<2xi1>) {
    %0 = stablehlo.dynamic_update_slice %a, %u, %i : (tensor<2xi1>, tensor<2xi1>, tensor<i8>) -> tensor<2xi1>
    %1 = stablehlo.dynamic_update_slice %a, %e, %i : (tensor<2xi1>, tensor<0xi1>, tensor<i8>) -> tensor<2xi1>
    return %0, %1 : tensor<2xi1>, tensor<2xi1> })",
                 {Literal::Of<bool>({false, true}, {2}), Literal::Of<bool>({true, false}, {2}),
                  Literal::Of<bool>({}, {0}), Literal::Of<int8_t>({1}, {})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(out[0].Values<bool>(), ElementsAre(true, false));
  EXPECT_THAT(out[1].Values<bool>(), ElementsAre(false, true));
}

TEST(SliceKernelTest, RealDynamicSliceReadsBoundsFromOperands) {
  const char* program = R"(func.func @main(%a: tensor<6xf64>, %s: tensor<1xi32>, %l: tensor<1xi32>, %t: tensor<1xi32>) -> tensor<2xf64> {
    %0 = stablehlo.real_dynamic_slice %a, %s, %l, %t : (tensor<6xf64>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<2xf64>
    return %0 : tensor<2xf64> })";
  Literal a = Literal::Of<double>(Iota<double>(6), {6});
  auto out = RunProgram(program, {a, Literal::Of<int32_t>({1}, {1}), Literal::Of<int32_t>({5}, {1}),
                           Literal::Of<int32_t>({2}, {1})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].Values<double>(), ElementsAre(1, 3));
  Status status = RunExpectingError(program, {a, Literal::Of<int32_t>({4}, {1}), Literal::Of<int32_t>({8}, {1}),
                                     Literal::Of<int32_t>({2}, {1})});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("slice [4:8] of dimension 0 is outside [0, 6]"));
}

// ------------------------------------------------------------------- gather

struct GatherCase {
  std::vector<int64_t> operand_dims, index_dims, slice_sizes;
  std::vector<int64_t> offset_dims, collapsed, operand_batching, index_batching, start_index_map;
  int64_t index_vector_dim = 0;
};

std::string Shape(const std::vector<int64_t>& dims, const std::string& element) {
  std::string s = "tensor<";
  for (int64_t d : dims) s += std::to_string(d) + "x";
  return s + element + ">";
}

std::string List(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

bool Has(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Calls f(index) for every index of `dims` in row-major order.
void ForEachIndex(const std::vector<int64_t>& dims, const std::function<void(const std::vector<int64_t>&)>& f) {
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  std::vector<int64_t> idx(dims.size(), 0);
  while (true) {
    f(idx);
    size_t k = dims.size();
    while (k > 0 && ++idx[k - 1] == dims[k - 1]) idx[--k] = 0;
    if (k == 0) return;
  }
}

int64_t Offset(const std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
  std::vector<int64_t> s = Strides(dims);
  int64_t o = 0;
  for (size_t i = 0; i < idx.size(); ++i) o += idx[i] * s[i];
  return o;
}

// The start index vector for batch position `batch` (spec: start_indices[bi0,
// ..., :, ..., biN] or [start_indices[batch]]).
std::vector<int64_t> StartIndex(const std::vector<int64_t>& indices, const std::vector<int64_t>& index_dims,
                                int64_t ivd, const std::vector<int64_t>& batch) {
  std::vector<int64_t> out;
  std::vector<int64_t> full = batch;
  if (ivd < static_cast<int64_t>(index_dims.size())) {
    full.insert(full.begin() + ivd, 0);
    for (int64_t j = 0; j < index_dims[ivd]; ++j) {
      full[ivd] = j;
      out.push_back(indices[Offset(full, index_dims)]);
    }
  } else {
    out.push_back(indices[Offset(full, index_dims)]);
  }
  return out;
}

// Spec gather, element by element. Returns result dims and values.
std::pair<std::vector<int64_t>, std::vector<int64_t>> ReferenceGather(const GatherCase& c,
                                                                      const std::vector<int64_t>& operand,
                                                                      const std::vector<int64_t>& indices) {
  int64_t s = static_cast<int64_t>(c.index_dims.size());
  std::vector<int64_t> batch_sizes, offset_sizes, out_dims;
  for (int64_t d = 0; d < s; ++d) {
    if (d != c.index_vector_dim) batch_sizes.push_back(c.index_dims[d]);
  }
  for (size_t d = 0; d < c.operand_dims.size(); ++d) {
    if (!Has(c.collapsed, d) && !Has(c.operand_batching, d)) offset_sizes.push_back(c.slice_sizes[d]);
  }
  size_t rank = batch_sizes.size() + offset_sizes.size();
  for (size_t d = 0, b = 0, o = 0; d < rank; ++d) {
    out_dims.push_back(Has(c.offset_dims, d) ? offset_sizes[o++] : batch_sizes[b++]);
  }
  std::vector<int64_t> out;
  ForEachIndex(out_dims, [&](const std::vector<int64_t>& ri) {
    std::vector<int64_t> batch, offset;
    for (size_t d = 0; d < rank; ++d) (Has(c.offset_dims, d) ? offset : batch).push_back(ri[d]);
    std::vector<int64_t> start = StartIndex(indices, c.index_dims, c.index_vector_dim, batch);
    std::vector<int64_t> operand_index(c.operand_dims.size(), 0);
    for (size_t d = 0, o = 0; d < c.operand_dims.size(); ++d) {
      for (size_t j = 0; j < c.start_index_map.size(); ++j) {
        if (c.start_index_map[j] == static_cast<int64_t>(d)) {
          operand_index[d] += std::clamp(start[j], int64_t{0}, c.operand_dims[d] - c.slice_sizes[d]);
        }
      }
      for (size_t i = 0; i < c.operand_batching.size(); ++i) {
        if (c.operand_batching[i] == static_cast<int64_t>(d)) {
          int64_t ds = c.index_batching[i];
          operand_index[d] += batch[ds - (ds < c.index_vector_dim ? 0 : 1)];
        }
      }
      if (!Has(c.collapsed, d) && !Has(c.operand_batching, d)) operand_index[d] += offset[o++];
    }
    out.push_back(operand[Offset(operand_index, c.operand_dims)]);
  });
  return {out_dims, out};
}

std::string GatherProgram(const GatherCase& c, const std::vector<int64_t>& out_dims, bool dynamic) {
  std::string operand = Shape(c.operand_dims, "i64"), index = Shape(c.index_dims, "i32"),
              result = Shape(out_dims, "i64");
  std::string sizes_type = Shape({static_cast<int64_t>(c.slice_sizes.size())}, "i64");
  std::string p = "func.func @main(%a: " + operand + ", %i: " + index + ", %s: " + sizes_type + ") -> " + result + " {\n";
  p += std::string("  %0 = \"stablehlo.") + (dynamic ? "dynamic_gather\"(%a, %i, %s)" : "gather\"(%a, %i)") + " {\n";
  p += "    dimension_numbers = #stablehlo.gather<offset_dims = [" + List(c.offset_dims) +
       "], collapsed_slice_dims = [" + List(c.collapsed) + "], operand_batching_dims = [" +
       List(c.operand_batching) + "], start_indices_batching_dims = [" + List(c.index_batching) +
       "], start_index_map = [" + List(c.start_index_map) + "], index_vector_dim = " +
       std::to_string(c.index_vector_dim) + ">,\n";
  p += "    slice_sizes = array<i64: " + List(c.slice_sizes) + ">, indices_are_sorted = false\n  } : (" +
       operand + ", " + index + (dynamic ? ", " + sizes_type : "") + ") -> " + result + "\n";
  p += "  return %0 : " + result + "\n}\n";
  return p;
}

// Runs the gather of `c` on iota operand data and `indices`, comparing with
// the reference.
void ExpectGatherMatchesReference(const GatherCase& c, const std::vector<int64_t>& indices,
                                  bool dynamic = false) {
  int64_t n = 1;
  for (int64_t d : c.operand_dims) n *= d;
  std::vector<int64_t> operand = Iota<int64_t>(static_cast<size_t>(n), 100);
  auto [dims, expect] = ReferenceGather(c, operand, indices);
  std::vector<int32_t> indices32(indices.begin(), indices.end());
  auto out = RunProgram(GatherProgram(c, dims, dynamic),
                 {Literal::Of<int64_t>(operand, c.operand_dims), Literal::Of<int32_t>(indices32, c.index_dims),
                  Literal::Of<int64_t>(c.slice_sizes, {static_cast<int64_t>(c.slice_sizes.size())})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dims, dims);
  EXPECT_EQ(out[0].Values<int64_t>(), expect);
}

TEST(GatherKernelTest, EmbeddingLookupClampsOutOfRangeRows) {
  GatherCase c{{5, 3}, {4, 1}, {1, 3}, {1}, {0}, {}, {}, {0}, 1};
  ExpectGatherMatchesReference(c, {2, -2, 9, 4});
  // Clamping by hand: -2 -> row 0, 9 -> row 4.
  auto [dims, values] = ReferenceGather(c, Iota<int64_t>(15), {2, -2, 9, 4});
  EXPECT_THAT(values, ElementsAre(6, 7, 8, 0, 1, 2, 12, 13, 14, 12, 13, 14));
}

TEST(GatherKernelTest, IndexVectorInTheMiddleAndSwappedStartIndexMap) {
  GatherCase c{{3, 4, 2}, {2, 3, 2}, {1, 2, 2}, {2, 3}, {0}, {}, {}, {1, 0}, 2};
  ExpectGatherMatchesReference(c, {0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 0, 9});
}

TEST(GatherKernelTest, BatchingDimensionsPairOperandAndIndices) {
  GatherCase c{{2, 3, 4, 2}, {2, 2, 3, 2}, {1, 1, 2, 2}, {3, 4}, {1}, {0}, {1}, {2, 1}, 3};
  ExpectGatherMatchesReference(c, {0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 0, 9, 0, 0, 2, 1, 2, 2, 1, 2, 0, 1, 1, 0});
}

TEST(GatherKernelTest, ImplicitIndexVectorDimensionGathersScalars) {
  GatherCase c{{6}, {2, 2}, {1}, {}, {0}, {}, {}, {0}, 2};
  ExpectGatherMatchesReference(c, {5, 0, -1, 3});
}

TEST(GatherKernelTest, IndexVectorFirstWithOffsetDimsAroundTheBatch) {
  GatherCase c{{4, 5}, {2, 3}, {2, 2}, {0, 2}, {}, {}, {}, {0, 1}, 0};
  ExpectGatherMatchesReference(c, {0, 3, 7, 1, 4, -2});
}

TEST(GatherKernelTest, BatchingWithoutCollapsedDimsAndEmptyIndices) {
  GatherCase batching{{3, 5}, {3, 2}, {1, 2}, {2}, {}, {0}, {0}, {1}, 2};
  ExpectGatherMatchesReference(batching, {0, 4, 1, 2, 3, 3});
  GatherCase empty{{5, 3}, {0, 1}, {1, 3}, {1}, {0}, {}, {}, {0}, 1};
  ExpectGatherMatchesReference(empty, {});
}

TEST(GatherKernelTest, DynamicGatherTakesSliceSizesFromAnOperand) {
  GatherCase c{{3, 4, 2}, {2, 3, 2}, {1, 2, 2}, {2, 3}, {0}, {}, {}, {1, 0}, 2};
  ExpectGatherMatchesReference(c, {0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 0, 9}, /*dynamic=*/true);
}

TEST(GatherKernelTest, ManyRowsMatchTheReference) {
  GatherCase c{{1000, 64}, {5000, 1}, {1, 64}, {1}, {0}, {}, {}, {0}, 1};
  std::vector<int64_t> indices(5000);
  std::mt19937 rng(3);
  for (int64_t& i : indices) i = static_cast<int64_t>(rng() % 1100) - 50;
  ExpectGatherMatchesReference(c, indices);
}

TEST(GatherKernelTest, TorchIndexSelectWithBatchDims) {
  // result[b, i, q] = input[b, index[b, i], q]; out-of-range clamps.
  auto out = RunProgram(R"(func.func @main(%a: tensor<2x3x2xf32>, %i: tensor<2x2xi32>) -> tensor<2x2x2xf32> {
    %0 = "stablehlo.torch_index_select"(%a, %i) {dim = 1 : i64, batch_dims = 1 : i64}
        : (tensor<2x3x2xf32>, tensor<2x2xi32>) -> tensor<2x2x2xf32>
    return %0 : tensor<2x2x2xf32> })",
                 {Literal::Of<float>(Iota<float>(12), {2, 3, 2}), Literal::Of<int32_t>({2, 0, 1, 7}, {2, 2})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(4, 5, 0, 1, 8, 9, 10, 11));
}

// ------------------------------------------------------------------ scatter

struct ScatterCase {
  std::vector<int64_t> input_dims, index_dims, update_dims;
  std::vector<int64_t> update_window_dims, inserted, input_batching, index_batching, to_operand;
  int64_t index_vector_dim = 0;
};

// Spec scatter of one input, element by element in row-major update order;
// out-of-bounds result indices are skipped.
std::vector<int64_t> ReferenceScatter(const ScatterCase& c, std::vector<int64_t> input,
                                      const std::vector<int64_t>& indices, const std::vector<int64_t>& updates,
                                      const std::function<int64_t(int64_t, int64_t)>& combine) {
  ForEachIndex(c.update_dims, [&](const std::vector<int64_t>& ui) {
    std::vector<int64_t> scatter, window;
    for (size_t d = 0; d < ui.size(); ++d) (Has(c.update_window_dims, d) ? window : scatter).push_back(ui[d]);
    std::vector<int64_t> start = StartIndex(indices, c.index_dims, c.index_vector_dim, scatter);
    std::vector<int64_t> ri(c.input_dims.size(), 0);
    for (size_t d = 0, w = 0; d < c.input_dims.size(); ++d) {
      for (size_t j = 0; j < c.to_operand.size(); ++j) {
        if (c.to_operand[j] == static_cast<int64_t>(d)) ri[d] += start[j];
      }
      for (size_t i = 0; i < c.input_batching.size(); ++i) {
        if (c.input_batching[i] == static_cast<int64_t>(d)) {
          int64_t ds = c.index_batching[i];
          ri[d] += scatter[ds - (ds < c.index_vector_dim ? 0 : 1)];
        }
      }
      if (!Has(c.inserted, d) && !Has(c.input_batching, d)) ri[d] += window[w++];
    }
    for (size_t d = 0; d < ri.size(); ++d) {
      if (ri[d] < 0 || ri[d] >= c.input_dims[d]) return;
    }
    int64_t& slot = input[Offset(ri, c.input_dims)];
    slot = combine(slot, updates[Offset(ui, c.update_dims)]);
  });
  return input;
}

std::string ScatterProgram(const ScatterCase& c, const std::string& body, const std::string& element) {
  std::string input = Shape(c.input_dims, element), index = Shape(c.index_dims, "i64"),
              update = Shape(c.update_dims, element);
  std::string p = "func.func @main(%a: " + input + ", %i: " + index + ", %u: " + update + ") -> " + input + " {\n";
  p += "  %0 = \"stablehlo.scatter\"(%a, %i, %u) ({\n  ^bb0(%x: tensor<" + element + ">, %y: tensor<" + element + ">):\n";
  p += body + "\n  }) {\n";
  p += "    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [" + List(c.update_window_dims) +
       "], inserted_window_dims = [" + List(c.inserted) + "], input_batching_dims = [" + List(c.input_batching) +
       "], scatter_indices_batching_dims = [" + List(c.index_batching) + "], scatter_dims_to_operand_dims = [" +
       List(c.to_operand) + "], index_vector_dim = " + std::to_string(c.index_vector_dim) + ">,\n";
  p += "    indices_are_sorted = false, unique_indices = false\n  } : (" + input + ", " + index + ", " + update +
       ") -> " + input + "\n";
  p += "  return %0 : " + input + "\n}\n";
  return p;
}

constexpr char kAddBody[] = "    %s = stablehlo.add %x, %y : tensor<i64>\n    stablehlo.return %s : tensor<i64>";
constexpr char kReplaceBody[] = "    stablehlo.return %y : tensor<i64>";
// Not a recognized body: runs through the region, per element.
constexpr char kMultiplyAddBody[] =
    "    %m = stablehlo.multiply %x, %y : tensor<i64>\n    %s = stablehlo.add %m, %y : tensor<i64>\n"
    "    stablehlo.return %s : tensor<i64>";

void ExpectScatterMatchesReference(const ScatterCase& c, const std::vector<int64_t>& indices,
                                   const std::string& body, const std::function<int64_t(int64_t, int64_t)>& combine) {
  int64_t n = 1, m = 1;
  for (int64_t d : c.input_dims) n *= d;
  for (int64_t d : c.update_dims) m *= d;
  std::vector<int64_t> input = Iota<int64_t>(static_cast<size_t>(n), 1);
  std::vector<int64_t> updates = Iota<int64_t>(static_cast<size_t>(m), 1000);
  std::vector<int64_t> expect = ReferenceScatter(c, input, indices, updates, combine);
  auto out = RunProgram(ScatterProgram(c, body, "i64"), {Literal::Of<int64_t>(input, c.input_dims),
                                                 Literal::Of<int64_t>(indices, c.index_dims),
                                                 Literal::Of<int64_t>(updates, c.update_dims)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].Values<int64_t>(), expect);
}

const auto kAdd = [](int64_t a, int64_t b) { return a + b; };
const auto kReplace = [](int64_t, int64_t b) { return b; };
const auto kMultiplyAdd = [](int64_t a, int64_t b) { return a * b + b; };

TEST(ScatterKernelTest, AddAccumulatesRepeatedIndicesAndSkipsOutOfRange) {
  ScatterCase c{{5}, {5, 1}, {5}, {}, {0}, {}, {}, {0}, 1};
  auto out = RunProgram(ScatterProgram(c, kAddBody, "i64"),
                 {Literal::Of<int64_t>(std::vector<int64_t>(5, 0), {5}), Literal::Of<int64_t>({1, 3, 1, 7, -1}, {5, 1}),
                  Literal::Of<int64_t>({10, 20, 30, 40, 50}, {5})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].Values<int64_t>(), ElementsAre(0, 40, 0, 20, 0));
}

TEST(ScatterKernelTest, ReplaceWithRepeatedIndicesKeepsTheLastUpdate) {
  ScatterCase c{{4}, {3, 1}, {3}, {}, {0}, {}, {}, {0}, 1};
  auto out = RunProgram(ScatterProgram(c, kReplaceBody, "i64"),
                 {Literal::Of<int64_t>({1, 2, 3, 4}, {4}), Literal::Of<int64_t>({2, 0, 2}, {3, 1}),
                  Literal::Of<int64_t>({7, 8, 9}, {3})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].Values<int64_t>(), ElementsAre(8, 2, 9, 4));
}

TEST(ScatterKernelTest, GeneralBodyRunsPerElementInUpdateOrder) {
  ScatterCase c{{3, 4}, {3, 1}, {3, 4}, {1}, {0}, {}, {}, {0}, 1};
  ExpectScatterMatchesReference(c, {1, 1, 2}, kMultiplyAddBody, kMultiplyAdd);
}

TEST(ScatterKernelTest, PartlyOutOfBoundsWindowsUpdateOnlyTheirInBoundsElements) {
  // Windows of 2x2 starting at (1, 3), (-1, 0), (2, 2) and (5, 5).
  ScatterCase c{{3, 4}, {4, 2}, {4, 2, 2}, {1, 2}, {}, {}, {}, {0, 1}, 1};
  std::vector<int64_t> indices = {1, 3, -1, 0, 2, 2, 5, 5};
  ExpectScatterMatchesReference(c, indices, kAddBody, kAdd);
  ExpectScatterMatchesReference(c, indices, kMultiplyAddBody, kMultiplyAdd);
}

TEST(ScatterKernelTest, BatchingDimensionsPairInputAndIndices) {
  ScatterCase c{{2, 3, 4, 2}, {2, 2, 3, 2}, {2, 2, 3, 2, 2}, {3, 4}, {1}, {0}, {1}, {2, 1}, 3};
  std::vector<int64_t> indices = {0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 0, 9, 0, 0, 2, 1, 2, 2, 1, 2, 0, 1, 1, 0};
  ExpectScatterMatchesReference(c, indices, kAddBody, kAdd);
  ExpectScatterMatchesReference(c, indices, kReplaceBody, kReplace);
}

TEST(ScatterKernelTest, IndexVectorFirstAndWindowBeforeTheScatterDimension) {
  // Index vectors run along dimension 0 of the indices; the update window
  // (dimension 1 of the input, 2 of its 3 elements) is update dimension 0.
  ScatterCase c{{4, 3, 5}, {2, 3}, {2, 3}, {0}, {0, 2}, {}, {}, {0, 2}, 0};
  ExpectScatterMatchesReference(c, {0, 3, -1, 1, 4, 2}, kAddBody, kAdd);
}

TEST(ScatterKernelTest, ManyUpdatesIntoFewBins) {
  ScatterCase c{{1000}, {100000, 1}, {100000}, {}, {0}, {}, {}, {0}, 1};
  std::vector<int64_t> indices(100000);
  std::mt19937 rng(5);
  for (int64_t& i : indices) i = static_cast<int64_t>(rng() % 1010) - 5;
  ExpectScatterMatchesReference(c, indices, kAddBody, kAdd);
}

TEST(ScatterKernelTest, VariadicScatterCombinesEachInputWithItsUpdate) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<3xi32>, %b: tensor<3xf32>, %i: tensor<2x1xi32>, %u: tensor<2xi32>, %v: tensor<2xf32>)
      -> (tensor<3xi32>, tensor<3xf32>) {
    %0:2 = "stablehlo.scatter"(%a, %b, %i, %u, %v) ({
    ^bb0(%x0: tensor<i32>, %x1: tensor<f32>, %y0: tensor<i32>, %y1: tensor<f32>):
      %s = stablehlo.add %x0, %y0 : tensor<i32>
      %p = stablehlo.multiply %y1, %x1 : tensor<f32>
      stablehlo.return %s, %p : tensor<i32>, tensor<f32>
    }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}
      : (tensor<3xi32>, tensor<3xf32>, tensor<2x1xi32>, tensor<2xi32>, tensor<2xf32>) -> (tensor<3xi32>, tensor<3xf32>)
    return %0#0, %0#1 : tensor<3xi32>, tensor<3xf32> })",
                 {Literal::Of<int32_t>({1, 2, 3}, {3}), Literal::Of<float>({1, 2, 3}, {3}),
                  Literal::Of<int32_t>({2, 2}, {2, 1}), Literal::Of<int32_t>({10, INT32_MAX}, {2}),
                  Literal::Of<float>({0.5f, -4}, {2})});
  ASSERT_EQ(out.size(), 2u);
  // Integer addition wraps: 3 + 10 + INT32_MAX.
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(1, 2, static_cast<int32_t>(13u + INT32_MAX)));
  EXPECT_THAT(out[1].Values<float>(), ElementsAre(1, 2, -6));
}

TEST(ScatterKernelTest, VariadicBodyMixingOperandsRunsThroughTheRegion) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>, %i: tensor<2x1xi32>, %u: tensor<2xi32>, %v: tensor<2xi32>)
      -> (tensor<2xi32>, tensor<2xi32>) {
    %0:2 = "stablehlo.scatter"(%a, %b, %i, %u, %v) ({
    ^bb0(%x0: tensor<i32>, %x1: tensor<i32>, %y0: tensor<i32>, %y1: tensor<i32>):
      %s = stablehlo.add %x1, %y0 : tensor<i32>
      stablehlo.return %s, %x0 : tensor<i32>, tensor<i32>
    }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}
      : (tensor<2xi32>, tensor<2xi32>, tensor<2x1xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
    return %0#0, %0#1 : tensor<2xi32>, tensor<2xi32> })",
                 {Literal::Of<int32_t>({1, 2}, {2}), Literal::Of<int32_t>({10, 20}, {2}),
                  Literal::Of<int32_t>({1, 1}, {2, 1}), Literal::Of<int32_t>({100, 200}, {2}),
                  Literal::Of<int32_t>({0, 0}, {2})});
  ASSERT_EQ(out.size(), 2u);
  // Step 1 at index 1: (x0, x1) = (2, 20) -> (120, 2); step 2: (120, 2) -> (202, 120).
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(1, 202));
  EXPECT_THAT(out[1].Values<int32_t>(), ElementsAre(10, 120));
}

TEST(ScatterKernelTest, BooleanAddIsLogicalOr) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<3xi1>, %i: tensor<2x1xi32>, %u: tensor<2xi1>) -> tensor<3xi1> {
    %0 = "stablehlo.scatter"(%a, %i, %u) ({
    ^bb0(%x: tensor<i1>, %y: tensor<i1>):
      %s = stablehlo.add %x, %y : tensor<i1>
      stablehlo.return %s : tensor<i1>
    }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}
      : (tensor<3xi1>, tensor<2x1xi32>, tensor<2xi1>) -> tensor<3xi1>
    return %0 : tensor<3xi1> })",
                 {Literal::Of<bool>({true, false, false}, {3}), Literal::Of<int32_t>({0, 2}, {2, 1}),
                  Literal::Of<bool>({false, true}, {2})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].Values<bool>(), ElementsAre(true, false, true));
}

TEST(ScatterKernelTest, MaximumPropagatesNaN) {
  BERTH_RUN(out, R"(func.func @main(%a: tensor<3xf32>, %i: tensor<3x1xi32>, %u: tensor<3xf32>) -> tensor<3xf32> {
    %0 = "stablehlo.scatter"(%a, %i, %u) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.maximum %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}
      : (tensor<3xf32>, tensor<3x1xi32>, tensor<3xf32>) -> tensor<3xf32>
    return %0 : tensor<3xf32> })",
                    (std::vector<Literal>{Literal::Of<float>({1, -0.0f, 5}, {3}), Literal::Of<int32_t>({0, 1, 0}, {3, 1}),
                                          Literal::Of<float>({NAN, 0.0f, 7}, {3})}));
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> v = out[0].Values<float>();
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_FALSE(std::signbit(v[1]));
  EXPECT_EQ(v[2], 5);
}

}  // namespace
}  // namespace berth::testing
