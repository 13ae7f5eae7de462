// Randomized reductions on the CPU plugin against a scalar reference
// computed here (reduction_reference.hpp): stablehlo.reduce,
// reduce_window, all_reduce and scatter, with every element type and every
// reducer body, over all dims, leading, trailing and non-adjacent dims, with
// sizes around multiples of 8, 16, 32 and 64 lanes and values that overflow.
// Seeded: a failure names the case and its program. meson.build runs this
// once per ISA variant the machine can execute (BERTH_CPU_ISA).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "kernel_test_util.hpp"
#include "reduction_reference.hpp"
#include "sanitizer.hpp"

namespace berth::testing {
namespace {

// At most this many elements per random input (fewer under the sanitizers,
// where this test took 65 s instead of 3.4: the dims still come from
// kLaneSizes, only fewer of the large ones fit together).
constexpr int64_t kMaxElements = SanitizerScaled<int64_t>(1 << 15, 1 << 11);

std::vector<int64_t> RandomDims(size_t rank, std::mt19937_64& random) {
  std::vector<int64_t> dims(rank);
  const size_t n = std::size(testing::kLaneSizes);
  for (int attempt = 0;; ++attempt) {
    int64_t total = 1;
    for (int64_t& d : dims) {
      // Mostly lane-sized dims; short ones beside long ones.
      d = random() % 3 == 0 ? 1 + static_cast<int64_t>(random() % 4)
                            : testing::kLaneSizes[random() % n];
      total *= d;
    }
    if (total <= kMaxElements || attempt > 20) break;
  }
  return dims;
}

// The reduced-dims patterns of a rank: all, none, leading, trailing, one in
// the middle, non-adjacent.
std::vector<std::vector<int64_t>> DimPatterns(size_t rank) {
  std::vector<std::vector<int64_t>> patterns;
  std::vector<int64_t> all(rank);
  std::iota(all.begin(), all.end(), 0);
  patterns.push_back(all);
  patterns.push_back({});
  for (size_t k = 1; k < rank; ++k) {
    patterns.push_back(std::vector<int64_t>(all.begin(), all.begin() + static_cast<long>(k)));
    patterns.push_back(std::vector<int64_t>(all.begin() + static_cast<long>(k), all.end()));
  }
  if (rank >= 3) {
    patterns.push_back({1});
    patterns.push_back({0, 2});
  }
  if (rank >= 4) {
    patterns.push_back({1, 3});
    patterns.push_back({0, 3});
  }
  return patterns;
}

std::string List(const std::vector<int64_t>& v) {
  std::string text;
  for (size_t i = 0; i < v.size(); ++i) text += (i ? ", " : "") + std::to_string(v[i]);
  return text;
}

// `array<i64: 1, 2>`, or `array<i64>` when empty.
std::string I64Array(const std::vector<int64_t>& v) {
  return v.empty() ? "array<i64>" : "array<i64: " + List(v) + ">";
}

std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
  return strides;
}

// The body region of a reduce-like op: `op` of its two arguments. With
// `two_ops` the result goes through a second op that changes nothing (the
// body is then not recognized and runs per element).
template <typename T>
std::string Body(Reducer r, bool two_ops) {
  const std::string t = std::string("tensor<") + testing::TypeName<T>() + ">";
  std::string body = "    ^bb0(%p: " + t + ", %q: " + t + "):\n";
  body += std::string("      %0 = stablehlo.") + testing::OpName(r) + " %p, %q : " + t + "\n";
  if (two_ops) {
    body += std::string("      %1 = stablehlo.") + (testing::kIsFloatElem<T> ? "maximum" : "or") +
            " %0, %0 : " + t + "\n";
    body += "      stablehlo.return %1 : " + t + "\n";
  } else {
    body += "      stablehlo.return %0 : " + t + "\n";
  }
  return body;
}

template <typename T>
void ExpectSame(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t wrong = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!testing::SameValue(got[i], want[i])) {
      if (++wrong <= 3) {
        ADD_FAILURE() << what << "\nelement " << i << ": got " << testing::ValueText(got[i])
                      << ", expected " << testing::ValueText(want[i]);
      }
    }
  }
  EXPECT_EQ(wrong, 0u) << what;
}

// ------------------------------------------------------------------ reduce

template <typename T>
void RandomReduces(std::mt19937_64& random, int* cases) {
  const std::string type = testing::TypeName<T>();
  for (Reducer r : testing::kReducers) {
    if (!testing::Applies<T>(r)) continue;
    for (size_t rank = 1; rank <= 4; ++rank) {
      for (const std::vector<int64_t>& reduced : DimPatterns(rank)) {
        std::vector<int64_t> dims = RandomDims(rank, random);
        int64_t fold = 1;
        for (int64_t d : reduced) fold *= dims[static_cast<size_t>(d)];
        if (fold + 1 > testing::MaxFold<T>(r)) continue;
        std::vector<int64_t> out_dims;
        for (size_t d = 0; d < rank; ++d) {
          if (std::find(reduced.begin(), reduced.end(), static_cast<int64_t>(d)) == reduced.end()) {
            out_dims.push_back(dims[d]);
          }
        }
        int64_t total = 1;
        for (int64_t d : dims) total *= d;
        const bool two_ops = random() % 4 == 0;
        std::vector<T> x = testing::ReductionValues<T>(r, static_cast<size_t>(total), random);
        T init = testing::InitValue<T>(r, random);
        const std::string in_t = "tensor<" + testing::DimsText(dims) + type + ">";
        const std::string out_t = "tensor<" + testing::DimsText(out_dims) + type + ">";
        const std::string scalar_t = "tensor<" + type + ">";
        std::string program = "func.func @main(%x: " + in_t + ") -> " + out_t + " {\n";
        program += "  %init = stablehlo.constant dense<" + testing::ConstantText(init) + "> : " +
                   scalar_t + "\n";
        program += "  %r = \"stablehlo.reduce\"(%x, %init) ({\n" + Body<T>(r, two_ops) +
                   "  }) {dimensions = " + I64Array(reduced) + "} : (" + in_t + ", " +
                   scalar_t + ") -> " + out_t + "\n";
        program += "  return %r : " + out_t + "\n}\n";

        // Reference: for each result, init first, then the reduced elements
        // in lexicographic order.
        const std::vector<int64_t> strides = Strides(dims);
        int64_t num_out = 1;
        for (int64_t d : out_dims) num_out *= d;
        std::vector<T> want(static_cast<size_t>(num_out), init);
        for (int64_t i = 0; i < total; ++i) {
          int64_t o = 0, rest = i;
          for (size_t d = 0; d < rank; ++d) {
            int64_t index = rest / strides[d];
            rest %= strides[d];
            if (std::find(reduced.begin(), reduced.end(), static_cast<int64_t>(d)) == reduced.end()) {
              o = o * dims[d] + index;
            }
          }
          want[static_cast<size_t>(o)] = testing::Combine<T>(r, want[static_cast<size_t>(o)], x[static_cast<size_t>(i)]);
        }
        std::vector<Literal> out = testing::RunProgram(program, {testing::MakeLiteral(x, dims)});
        ASSERT_EQ(out.size(), 1u) << program;
        ExpectSame(testing::LiteralValues<T>(out[0]), want, program);
        ++*cases;
      }
    }
  }
}

TEST(CpuRandomReductionTest, ReduceMatchesAScalarFoldForEveryTypeBodyAndDims) {
  std::mt19937_64 random(20261203);
  int cases = 0;
  testing::ForEveryElementType([&]<typename T>() {
    SCOPED_TRACE(testing::TypeName<T>());
    RandomReduces<T>(random, &cases);
  });
  EXPECT_GT(cases, 1000);
}

// ------------------------------------------------------------ reduce_window

template <typename T>
void RandomReduceWindows(std::mt19937_64& random, int* cases) {
  const std::string type = testing::TypeName<T>();
  for (Reducer r : testing::kReducers) {
    if (!testing::Applies<T>(r)) continue;
    for (int trial = 0; trial < 6; ++trial) {
      const size_t rank = 1 + random() % 3;
      std::vector<int64_t> dims = RandomDims(rank, random);
      std::vector<int64_t> window(rank), stride(rank), base(rank), dilation(rank), low(rank),
          high(rank), out_dims(rank);
      int64_t fold = 1;
      bool empty = false;
      for (size_t d = 0; d < rank; ++d) {
        window[d] = 1 + static_cast<int64_t>(random() % std::min<int64_t>(dims[d] + 1, 9));
        stride[d] = 1 + static_cast<int64_t>(random() % 3);
        base[d] = random() % 4 == 0 ? 2 : 1;
        dilation[d] = random() % 4 == 0 ? 2 : 1;
        low[d] = static_cast<int64_t>(random() % 3);
        high[d] = static_cast<int64_t>(random() % 3);
        const int64_t padded = (dims[d] - 1) * base[d] + 1 + low[d] + high[d];
        const int64_t span = (window[d] - 1) * dilation[d] + 1;
        out_dims[d] = padded < span ? 0 : (padded - span) / stride[d] + 1;
        empty = empty || out_dims[d] == 0;
        fold *= window[d];
      }
      if (empty || fold + 1 > testing::MaxFold<T>(r)) continue;
      int64_t total = 1, num_out = 1;
      for (size_t d = 0; d < rank; ++d) {
        total *= dims[d];
        num_out *= out_dims[d];
      }
      std::vector<T> x = testing::ReductionValues<T>(r, static_cast<size_t>(total), random);
      T init = testing::InitValue<T>(r, random);
      const std::string in_t = "tensor<" + testing::DimsText(dims) + type + ">";
      const std::string out_t = "tensor<" + testing::DimsText(out_dims) + type + ">";
      const std::string scalar_t = "tensor<" + type + ">";
      std::vector<int64_t> padding;
      for (size_t d = 0; d < rank; ++d) {
        padding.push_back(low[d]);
        padding.push_back(high[d]);
      }
      std::string program = "func.func @main(%x: " + in_t + ") -> " + out_t + " {\n";
      program += "  %init = stablehlo.constant dense<" + testing::ConstantText(init) + "> : " +
                 scalar_t + "\n";
      program += "  %r = \"stablehlo.reduce_window\"(%x, %init) ({\n" + Body<T>(r, false) + "  }) {\n";
      program += "    window_dimensions = array<i64: " + List(window) + ">,\n";
      program += "    window_strides = array<i64: " + List(stride) + ">,\n";
      program += "    base_dilations = array<i64: " + List(base) + ">,\n";
      program += "    window_dilations = array<i64: " + List(dilation) + ">,\n";
      program += "    padding = dense<[";
      for (size_t d = 0; d < rank; ++d) {
        program += std::string(d ? ", " : "") + "[" + std::to_string(low[d]) + ", " +
                   std::to_string(high[d]) + "]";
      }
      program += "]> : tensor<" + std::to_string(rank) + "x2xi64>\n";
      program += "  } : (" + in_t + ", " + scalar_t + ") -> " + out_t + "\n";
      program += "  return %r : " + out_t + "\n}\n";

      // Reference: init, then every window position in lexicographic order;
      // padding and base-dilation holes hold the init value.
      const std::vector<int64_t> in_strides = Strides(dims);
      std::vector<T> want(static_cast<size_t>(num_out));
      std::vector<int64_t> o(rank, 0), w(rank, 0);
      for (int64_t oi = 0; oi < num_out; ++oi) {
        int64_t rest = oi;
        for (size_t d = rank; d-- > 0;) {
          o[d] = rest % out_dims[d];
          rest /= out_dims[d];
        }
        T acc = init;
        for (int64_t wi = 0; wi < fold; ++wi) {
          int64_t wrest = wi;
          for (size_t d = rank; d-- > 0;) {
            w[d] = wrest % window[d];
            wrest /= window[d];
          }
          bool valid = true;
          int64_t offset = 0;
          for (size_t d = 0; d < rank; ++d) {
            int64_t p = o[d] * stride[d] + w[d] * dilation[d] - low[d];
            if (p < 0 || p % base[d] != 0 || p / base[d] >= dims[d]) {
              valid = false;
              break;
            }
            offset += (p / base[d]) * in_strides[d];
          }
          acc = testing::Combine<T>(r, acc, valid ? x[static_cast<size_t>(offset)] : init);
        }
        want[static_cast<size_t>(oi)] = acc;
      }
      std::vector<Literal> out = testing::RunProgram(program, {testing::MakeLiteral(x, dims)});
      ASSERT_EQ(out.size(), 1u) << program;
      ExpectSame(testing::LiteralValues<T>(out[0]), want, program);
      ++*cases;
    }
  }
}

TEST(CpuRandomReductionTest, ReduceWindowMatchesAScalarFoldForEveryTypeAndBody) {
  std::mt19937_64 random(1203);
  int cases = 0;
  testing::ForEveryElementType([&]<typename T>() {
    SCOPED_TRACE(testing::TypeName<T>());
    RandomReduceWindows<T>(random, &cases);
  });
  EXPECT_GT(cases, 250);
}

// --------------------------------------------------------------- all_reduce

template <typename T>
void RandomAllReduces(std::mt19937_64& random, int* cases) {
  const std::string type = testing::TypeName<T>();
  for (Reducer r : testing::kReducers) {
    if (!testing::Applies<T>(r)) continue;
    for (int trial = 0; trial < 3; ++trial) {
      const int64_t replicas = 2 + static_cast<int64_t>(random() % 7);  // 2..8 devices
      if (replicas > testing::MaxFold<T>(r)) continue;
      const int64_t size = testing::kLaneSizes[random() % std::size(testing::kLaneSizes)] *
                           (random() % 2 == 0 ? 1 : 4);
      // Replicas in random groups of random sizes.
      std::vector<int64_t> order(static_cast<size_t>(replicas));
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), random);
      const int64_t groups = (random() % 2 == 0 || replicas % 2 != 0) ? 1 : 2;
      const int64_t per_group = replicas / groups;
      std::string group_text;
      for (int64_t g = 0; g < groups; ++g) {
        group_text += std::string(g ? ", " : "") + "[";
        for (int64_t i = 0; i < per_group; ++i) {
          group_text += std::string(i ? ", " : "") + std::to_string(order[static_cast<size_t>(g * per_group + i)]);
        }
        group_text += "]";
      }
      const std::string t = "tensor<" + std::to_string(size) + "x" + type + ">";
      std::string program = "func.func @main(%x: " + t + ") -> " + t + " {\n";
      program += "  %r = \"stablehlo.all_reduce\"(%x) ({\n" + Body<T>(r, random() % 4 == 0) + "  }) {";
      program += "replica_groups = dense<[" + group_text + "]> : tensor<" + std::to_string(groups) + "x" +
                 std::to_string(per_group) + "xi64>} : (" + t + ") -> " + t + "\n";
      program += "  return %r : " + t + "\n}\n";
      std::vector<std::vector<T>> inputs;
      std::vector<std::vector<Literal>> args;
      for (int64_t d = 0; d < replicas; ++d) {
        inputs.push_back(testing::ReductionValues<T>(r, static_cast<size_t>(size), random));
        args.push_back({testing::MakeLiteral(inputs.back(), {size})});
      }
      CompileOptions options;
      options.num_replicas = replicas;
      Result<std::vector<std::vector<Literal>>> out =
          testing::CpuRunner::Get().RunAll(program, args, options);
      ASSERT_TRUE(out.ok()) << out.status().ToString() << "\n" << program;
      ASSERT_EQ(out->size(), static_cast<size_t>(replicas));
      for (int64_t g = 0; g < groups; ++g) {
        // Reference: the group's operands combined in group order.
        std::vector<T> want = inputs[static_cast<size_t>(order[static_cast<size_t>(g * per_group)])];
        for (int64_t i = 1; i < per_group; ++i) {
          const std::vector<T>& in = inputs[static_cast<size_t>(order[static_cast<size_t>(g * per_group + i)])];
          for (int64_t e = 0; e < size; ++e) want[static_cast<size_t>(e)] = testing::Combine<T>(r, want[static_cast<size_t>(e)], in[static_cast<size_t>(e)]);
        }
        for (int64_t i = 0; i < per_group; ++i) {
          const size_t replica = static_cast<size_t>(order[static_cast<size_t>(g * per_group + i)]);
          ExpectSame(testing::LiteralValues<T>((*out)[replica][0]), want,
                     program + "(replica " + std::to_string(replica) + ")");
        }
      }
      ++*cases;
    }
  }
}

TEST(CpuRandomReductionTest, AllReduceMatchesAScalarFoldForEveryTypeAndBody) {
  std::mt19937_64 random(31203);
  int cases = 0;
  testing::ForEveryElementType([&]<typename T>() {
    SCOPED_TRACE(testing::TypeName<T>());
    RandomAllReduces<T>(random, &cases);
  });
  EXPECT_GT(cases, 100);
}

// ------------------------------------------------------------------ scatter

template <typename T>
void RandomScatters(std::mt19937_64& random, int* cases) {
  const std::string type = testing::TypeName<T>();
  for (Reducer r : testing::kReducers) {
    if (!testing::Applies<T>(r)) continue;
    for (int trial = 0; trial < 4; ++trial) {
      // operand [rows, cols], updates [k, cols] at rows indices[k] (some out
      // of bounds: skipped; duplicates: combined).
      const int64_t rows = 1 + static_cast<int64_t>(random() % 40);
      const int64_t cols = testing::kLaneSizes[random() % std::size(testing::kLaneSizes)];
      const int64_t k = 1 + static_cast<int64_t>(random() % 80);
      std::vector<T> operand = testing::ReductionValues<T>(r, static_cast<size_t>(rows * cols), random);
      std::vector<T> updates = testing::ReductionValues<T>(r, static_cast<size_t>(k * cols), random);
      std::vector<int32_t> indices(static_cast<size_t>(k));
      std::vector<int64_t> hits(static_cast<size_t>(rows), 0);
      for (int32_t& i : indices) {
        i = static_cast<int32_t>(random() % static_cast<uint64_t>(rows + 2)) - 1;  // -1 and rows: skipped
        if (i >= 0 && i < rows) ++hits[static_cast<size_t>(i)];
      }
      if (*std::max_element(hits.begin(), hits.end()) + 1 > testing::MaxFold<T>(r)) continue;
      const std::string op_t = "tensor<" + std::to_string(rows) + "x" + std::to_string(cols) + "x" + type + ">";
      const std::string idx_t = "tensor<" + std::to_string(k) + "x1xi32>";
      const std::string up_t = "tensor<" + std::to_string(k) + "x" + std::to_string(cols) + "x" + type + ">";
      std::string program = "func.func @main(%a: " + op_t + ", %i: " + idx_t + ", %u: " + up_t + ") -> " + op_t + " {\n";
      program += "  %r = \"stablehlo.scatter\"(%a, %i, %u) ({\n" + Body<T>(r, random() % 4 == 0) + "  }) {\n";
      program += "    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], "
                 "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>,\n";
      program += "    indices_are_sorted = false, unique_indices = false\n";
      program += "  } : (" + op_t + ", " + idx_t + ", " + up_t + ") -> " + op_t + "\n";
      program += "  return %r : " + op_t + "\n}\n";
      std::vector<T> want = operand;
      for (int64_t u = 0; u < k; ++u) {
        const int32_t row = indices[static_cast<size_t>(u)];
        if (row < 0 || row >= rows) continue;
        for (int64_t c = 0; c < cols; ++c) {
          const size_t at = static_cast<size_t>(row * cols + c);
          want[at] = testing::Combine<T>(r, want[at], updates[static_cast<size_t>(u * cols + c)]);
        }
      }
      std::vector<Literal> out = testing::RunProgram(
          program, {testing::MakeLiteral(operand, {rows, cols}), Literal::Of<int32_t>(indices, {k, 1}),
                    testing::MakeLiteral(updates, {k, cols})});
      ASSERT_EQ(out.size(), 1u) << program;
      ExpectSame(testing::LiteralValues<T>(out[0]), want, program);
      ++*cases;
    }
  }
}

TEST(CpuRandomReductionTest, ScatterCombinesMatchAScalarFoldForEveryTypeAndBody) {
  std::mt19937_64 random(41203);
  int cases = 0;
  testing::ForEveryElementType([&]<typename T>() {
    SCOPED_TRACE(testing::TypeName<T>());
    RandomScatters<T>(random, &cases);
  });
  EXPECT_GT(cases, 150);
}

}  // namespace
}  // namespace berth::testing
