// stablehlo.rng_bit_generator and stablehlo.rng on the CPU plugin.
//
// The generators are checked first on their own against Random123's
// published known answers, then the op against them through XLA's layout
// of counters and outputs (xla/hlo/builder/lib/prng.cc, described in
// plugins/cpu/interpreter/kernels_rng.cc) rebuilt here step by step as XLA
// builds it (split shape, iota counters, concatenate, reshape, slice), for
// every output width, odd and even shapes, both state widths and every
// algorithm; and against a known output of XLA's (a state of zeros).
#include <cstring>
#include <random>

#include "elementwise_test_util.hpp"

namespace berth::testing {
namespace {

// ---------------------------------------------------------------- generators

uint32_t Rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

// Threefry-2x32-20 (Salmon et al. 2011): 20 rounds, a key injection after
// every fourth.
std::array<uint32_t, 2> Threefry(std::array<uint32_t, 2> key, std::array<uint32_t, 2> ctr) {
  static const int kR[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  uint32_t x[2] = {ctr[0] + ks[0], ctr[1] + ks[1]};
  for (int round = 0; round < 20; ++round) {
    x[0] += x[1];
    x[1] = Rotl(x[1], kR[round % 8]);
    x[1] ^= x[0];
    if (round % 4 == 3) {
      uint32_t s = static_cast<uint32_t>(round / 4 + 1);
      x[0] += ks[s % 3];
      x[1] += ks[(s + 1) % 3] + s;
    }
  }
  return {x[0], x[1]};
}

// Philox-4x32-10.
std::array<uint32_t, 4> Philox(std::array<uint32_t, 2> key, std::array<uint32_t, 4> ctr) {
  for (int round = 0; round < 10; ++round) {
    uint64_t a = static_cast<uint64_t>(ctr[0]) * 0xD2511F53u;
    uint64_t b = static_cast<uint64_t>(ctr[2]) * 0xCD9E8D57u;
    ctr = {static_cast<uint32_t>(b >> 32) ^ ctr[1] ^ key[0], static_cast<uint32_t>(b),
           static_cast<uint32_t>(a >> 32) ^ ctr[3] ^ key[1], static_cast<uint32_t>(a)};
    key = {key[0] + 0x9E3779B9u, key[1] + 0xBB67AE85u};
  }
  return ctr;
}

TEST(RngReferenceTest, GeneratorsGivePublishedKnownAnswers) {
  // Random123's kat_vectors.
  EXPECT_EQ(Threefry({0, 0}, {0, 0}), (std::array<uint32_t, 2>{0x6b200159, 0x99ba4efe}));
  EXPECT_EQ(Threefry({0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (std::array<uint32_t, 2>{0x1cb996fc, 0xbb002be7}));
  EXPECT_EQ(Threefry({0x13198a2e, 0x03707344}, {0x243f6a88, 0x85a308d3}),
            (std::array<uint32_t, 2>{0xc4923a9c, 0x483df7a0}));
  EXPECT_EQ(Philox({0, 0}, {0, 0, 0, 0}),
            (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(Philox({0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}),
            (std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(Philox({0xa4093822, 0x299f31d0}, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}),
            (std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

// ---------------------------------------------------------------- XLA's layout

// A row-major array of 64-bit words with its dims.
struct Array {
  std::vector<int64_t> dims;
  std::vector<uint64_t> data;
};

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Concatenates arrays of equal dims but `axis` along `axis`.
Array Concatenate(const std::vector<Array>& parts, size_t axis) {
  Array out;
  out.dims = parts[0].dims;
  out.dims[axis] = 0;
  for (const Array& p : parts) out.dims[axis] += p.dims[axis];
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= out.dims[d];
  for (size_t d = axis + 1; d < out.dims.size(); ++d) inner *= out.dims[d];
  for (int64_t o = 0; o < outer; ++o) {
    for (const Array& p : parts) {
      int64_t block = p.dims[axis] * inner;
      out.data.insert(out.data.end(), p.data.begin() + o * block, p.data.begin() + (o + 1) * block);
    }
  }
  return out;
}

// The leading box `dims` of `a` (a slice from 0 with stride 1).
Array Slice(const Array& a, const std::vector<int64_t>& dims) {
  Array out{dims, {}};
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t i = 0; i < Count(dims); ++i) {
    int64_t rest = i, flat = 0;
    for (size_t d = dims.size(); d-- > 0;) {
      index[d] = rest % dims[d];
      rest /= dims[d];
    }
    for (size_t d = 0; d < dims.size(); ++d) flat = flat * a.dims[d] + index[d];
    out.data.push_back(a.data[static_cast<size_t>(flat)]);
  }
  return out;
}

// THREE_FRY bits of `dims` (32-bit elements, or 64-bit ones when `wide`);
// updates the counter.
std::vector<uint64_t> ThreeFryBits(uint64_t key, uint64_t& counter, std::vector<int64_t> dims, bool wide) {
  std::array<uint32_t, 2> k = {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)};
  // Counters: the state plus the iota of every dimension of size >= 2
  // times the product of the sizes after it.
  auto inputs = [&](const std::vector<int64_t>& shape) {
    std::vector<uint64_t> c(static_cast<size_t>(Count(shape)), counter);
    int64_t trailing = 1;
    for (size_t i = shape.size(); i-- > 0;) {
      if (shape[i] < 2) continue;
      int64_t inner = 1;
      for (size_t j = i + 1; j < shape.size(); ++j) inner *= shape[j];
      for (size_t e = 0; e < c.size(); ++e) {
        c[e] += static_cast<uint64_t>((static_cast<int64_t>(e) / inner) % shape[i]) * static_cast<uint64_t>(trailing);
      }
      trailing *= shape[i];
    }
    counter += static_cast<uint64_t>(Count(shape));
    return c;
  };
  if (wide) {
    std::vector<uint64_t> c = inputs(dims);
    for (uint64_t& v : c) {
      auto out = Threefry(k, {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)});
      v = uint64_t{out[0]} | uint64_t{out[1]} << 32;
    }
    return c;
  }
  // SplitShapeIntoHalves.
  std::vector<int64_t> original = dims;
  size_t split = 0;
  std::vector<int64_t> half, concat;
  if (dims.empty()) {
    half = {1};
    concat = {2};
  } else {
    int64_t found = -1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] % 2 == 0) {
        found = static_cast<int64_t>(i);
        break;
      }
    }
    if (found < 0) {
      for (size_t i = 0; i < dims.size(); ++i) {
        if (found < 0 || dims[i] > dims[static_cast<size_t>(found)]) found = static_cast<int64_t>(i);
      }
    }
    split = static_cast<size_t>(found);
    for (size_t i = 0; i < dims.size(); ++i) {
      if (i == split) {
        half.push_back((dims[i] + 1) / 2);
        half.push_back(1);
      } else {
        half.push_back(dims[i]);
      }
    }
  }
  std::vector<uint64_t> c = inputs(half);
  Array out0{half, {}}, out1{half, {}};
  for (uint64_t v : c) {
    auto bits = Threefry(k, {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)});
    out0.data.push_back(bits[0]);
    out1.data.push_back(bits[1]);
  }
  if (original.empty()) return {out0.data[0]};
  // CombineShapePair: concatenate along the new dimension, reshape, slice.
  Array joined = Concatenate({out0, out1}, split + 1);
  std::vector<int64_t> reshaped = original;
  reshaped[split] = (original[split] + 1) / 2 * 2;
  joined.dims = reshaped;
  return Slice(joined, original).data;
}

// PHILOX bits of `n` elements (32- or 64-bit); updates the 128-bit counter.
std::vector<uint64_t> PhiloxBits(uint64_t key, uint64_t& low, uint64_t& high, int64_t n, bool wide) {
  std::array<uint32_t, 2> k = {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)};
  int64_t words = wide ? 2 * n : n;
  int64_t blocks = (words + 3) / 4;
  std::vector<uint32_t> bits[4];
  for (int64_t v = 0; v < blocks; ++v) {
    uint64_t lo = low + static_cast<uint64_t>(v);
    uint64_t hi = high + (lo < low ? 1 : 0);
    auto out = Philox(k, {static_cast<uint32_t>(lo), static_cast<uint32_t>(lo >> 32),
                          static_cast<uint32_t>(hi), static_cast<uint32_t>(hi >> 32)});
    for (int w = 0; w < 4; ++w) bits[w].push_back(out[w]);
  }
  uint64_t new_low = low + static_cast<uint64_t>(blocks);
  high += new_low < low ? 1 : 0;
  low = new_low;
  std::vector<uint64_t> result;
  if (!wide) {
    // Reshape each to [blocks, 1], concatenate along 1, flatten, slice.
    for (int64_t v = 0; v < blocks; ++v) {
      for (int w = 0; w < 4; ++w) result.push_back(bits[w][static_cast<size_t>(v)]);
    }
  } else {
    for (int64_t v = 0; v < blocks; ++v) {
      result.push_back(uint64_t{bits[0][static_cast<size_t>(v)]} | uint64_t{bits[1][static_cast<size_t>(v)]} << 32);
      result.push_back(uint64_t{bits[2][static_cast<size_t>(v)]} | uint64_t{bits[3][static_cast<size_t>(v)]} << 32);
    }
  }
  result.resize(static_cast<size_t>(n));
  return result;
}

// ---------------------------------------------------------------- the op

struct Generated {
  std::vector<uint64_t> state;    // as 64-bit words
  std::vector<uint64_t> values;   // each element's bits
};

// Runs rng_bit_generator with `algorithm` on `state` (ui64, or ui32 pairs
// when `state32`) for an output of `type` with `dims`.
Result<Generated> Generate(const std::string& algorithm, const std::vector<uint64_t>& state, bool state32,
                           const std::string& type, const std::vector<int64_t>& dims) {
  std::string state_type = state32 ? "tensor<" + std::to_string(2 * state.size()) + "xui32>"
                                   : "tensor<" + std::to_string(state.size()) + "xui64>";
  std::string out_type = TensorType(dims, type);
  std::string program = "func.func @main(%s: " + state_type + ") -> (" + state_type + ", " + out_type +
                        ") {\n  %0, %1 = stablehlo.rng_bit_generator %s, algorithm = " + algorithm +
                        " : (" + state_type + ") -> (" + state_type + ", " + out_type +
                        ")\n  return %0, %1 : " + state_type + ", " + out_type + "\n}\n";
  Literal arg;
  if (state32) {
    std::vector<uint32_t> halves;
    for (uint64_t w : state) {
      halves.push_back(static_cast<uint32_t>(w));
      halves.push_back(static_cast<uint32_t>(w >> 32));
    }
    arg = Vec(halves);
  } else {
    arg = Vec(state);
  }
  BERTH_ASSIGN_OR_RETURN(std::vector<Literal> out, CpuRunner::Get().Run(program, {arg}));
  Generated g;
  if (state32) {
    std::vector<uint32_t> halves = out[0].Values<uint32_t>();
    for (size_t i = 0; i + 1 < halves.size(); i += 2) g.state.push_back(uint64_t{halves[i]} | uint64_t{halves[i + 1]} << 32);
  } else {
    g.state = out[0].Values<uint64_t>();
  }
  size_t width = out[1].bytes.size() / static_cast<size_t>(std::max<int64_t>(1, Count(dims)));
  for (int64_t i = 0; i < Count(dims); ++i) {
    uint64_t v = 0;
    std::memcpy(&v, out[1].bytes.data() + static_cast<size_t>(i) * width, width);
    g.values.push_back(v);
  }
  return g;
}

TEST(RngBitGeneratorTest, KnownAnswersThroughTheOp) {
  // One 64-bit THREE_FRY element is the generator's block of counter 1's
  // words (low first): Random123's third threefry answer.
  Result<Generated> t = Generate("THREE_FRY", {0x0370734413198a2eull, 0x85a308d3243f6a88ull}, false, "ui64", {1});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_THAT(t->values, ElementsAre(0x483df7a0c4923a9cull));
  EXPECT_THAT(t->state, ElementsAre(0x0370734413198a2eull, 0x85a308d3243f6a89ull));
  // Four 32-bit PHILOX elements of a 3-word state: one 128-bit block.
  Result<Generated> p = Generate("PHILOX", {0x299f31d0a4093822ull, 0x85a308d3243f6a88ull, 0x0370734413198a2eull},
                                 false, "ui32", {4});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_THAT(p->values, ElementsAre(0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u));
  EXPECT_THAT(p->state, ElementsAre(0x299f31d0a4093822ull, 0x85a308d3243f6a89ull, 0x0370734413198a2eull));
  // XLA's output for a state of zeros and ui32[3, 2] (as published with
  // r-xla's nvl_rng_bit_generator example): the first row is the zero
  // counter's block, then counters 1 and 2; the counter moves by 3.
  Result<Generated> x = Generate("THREE_FRY", {0, 0}, false, "ui32", {3, 2});
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_EQ(x->values[0], 0x6b200159u);
  EXPECT_EQ(x->values[1], 0x99ba4efeu);
  const double published[6] = {1.7973e9, 2.5791e9, 1.3515e9, 3.2358e9, 1.6886e9, 4.2293e9};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(static_cast<double>(x->values[static_cast<size_t>(i)]), published[i], 0.0001e9) << i;
  EXPECT_THAT(x->state, ElementsAre(0u, 3u));
}

TEST(RngBitGeneratorTest, EveryShapeWidthStateAndAlgorithmFollowsXlasLayout) {
  const std::vector<std::vector<int64_t>> shapes = {{}, {1}, {7}, {8}, {3, 2}, {3, 5}, {5, 3, 1}, {2, 0}, {4, 7, 6}, {33}, {9, 1, 3}};
  const std::pair<const char*, int> types[] = {{"ui8", 8}, {"ui16", 16}, {"ui32", 32}, {"ui64", 64},
                                               {"i32", 32}, {"f32", 32}, {"f64", 64}, {"bf16", 16},
                                               {"i8", 8}, {"i64", 64}};
  std::mt19937_64 random(7);
  int runs = 0;
  for (const char* algorithm : {"THREE_FRY", "PHILOX", "DEFAULT"}) {
    for (size_t words : {size_t{2}, size_t{3}}) {
      if (std::string(algorithm) == "THREE_FRY" && words == 3) continue;
      for (bool state32 : {false, true}) {
        for (const auto& [type, bits] : types) {
          for (const std::vector<int64_t>& dims : shapes) {
            std::vector<uint64_t> state;
            for (size_t w = 0; w < words; ++w) state.push_back(random());
            // Counters near the top of their range carry.
            if (random() % 3 == 0) state[1] = ~uint64_t{0} - random() % 4;
            SCOPED_TRACE(std::string(algorithm) + " " + std::to_string(words) + " words" +
                         (state32 ? " (ui32)" : "") + " -> " + TensorType(dims, type));
            Result<Generated> got = Generate(algorithm, state, state32, type, dims);
            ASSERT_TRUE(got.ok()) << got.status().ToString();
            std::vector<uint64_t> expected_state = state;
            std::vector<uint64_t> expected;
            if (std::string(algorithm) == "THREE_FRY") {
              expected = ThreeFryBits(state[0], expected_state[1], dims, bits == 64);
            } else {
              uint64_t low = state[1], high = words == 3 ? state[2] : state[0];
              expected = PhiloxBits(state[0], low, high, Count(dims), bits == 64);
              expected_state[1] = low;
              if (words == 3) expected_state[2] = high;
            }
            for (uint64_t& v : expected) v &= bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
            ASSERT_EQ(got->values, expected);
            ASSERT_EQ(got->state, expected_state);
            ++runs;
          }
        }
      }
    }
  }
  EXPECT_EQ(runs, 5 * 2 * 10 * 11);
}

TEST(RngBitGeneratorTest, SuccessiveCallsContinueTheStream) {
  // 10 ui32 elements from PHILOX use 3 blocks; a second call from the new
  // state starts at the block after them.
  std::vector<uint64_t> state = {42, 7, 0};
  Result<Generated> first = Generate("PHILOX", state, false, "ui32", {10});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  Result<Generated> second = Generate("PHILOX", first->state, false, "ui32", {4});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  Result<Generated> whole = Generate("PHILOX", state, false, "ui32", {16});
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(std::vector<uint64_t>(whole->values.begin() + 12, whole->values.end()), second->values);
}

TEST(RngBitGeneratorTest, RejectsStatesTheAlgorithmCannotUse) {
  Result<Generated> three = Generate("THREE_FRY", {1, 2, 3}, false, "ui32", {4});
  ASSERT_FALSE(three.ok());
  EXPECT_EQ(three.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(three.status().message(), HasSubstr("THREE_FRY takes a state of 2 64-bit words, this one has 3"));
  Result<Generated> four = Generate("PHILOX", {1, 2, 3, 4}, false, "ui32", {4});
  ASSERT_FALSE(four.ok());
  EXPECT_THAT(four.status().message(), HasSubstr("PHILOX takes a state of 2 or 3 64-bit words, this one has 4"));
  Status odd = CpuRunner::Get().Run(R"(
func.func @main(%s: tensor<3xui32>) -> tensor<4xui32> {
  %0, %1 = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<3xui32>) -> (tensor<3xui32>, tensor<4xui32>)
  return %1 : tensor<4xui32>
}
)", {Vec<uint32_t>({1, 2, 3})}).status();
  EXPECT_EQ(odd.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(odd.message(), HasSubstr("a 32-bit initial_state needs an even number of elements"));
  Status pred = CpuRunner::Get().Run(R"(
func.func @main(%s: tensor<2xui64>) -> tensor<4xi1> {
  %0, %1 = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xi1>)
  return %1 : tensor<4xi1>
}
)", {Vec<uint64_t>({1, 2})}).status();
  EXPECT_EQ(pred.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(pred.message(), HasSubstr("output must be integer or floating-point"));
}

// ---------------------------------------------------------------- rng

constexpr uint64_t kRngKey = 0x4245525448524E47ull;  // "BERTHRNG", kernels_rng.cc

std::vector<uint64_t> RngBits(uint64_t stream, int64_t n, bool wide) {
  uint64_t low = 0, high = stream;
  return PhiloxBits(kRngKey, low, high, n, wide);
}

Result<std::vector<Literal>> RunRng(const std::string& body, const std::vector<Literal>& args,
                                    const std::string& params, const std::string& results) {
  return CpuRunner::Get().Run("func.func @main(" + params + ") -> (" + results + ") {\n" + body + "\n}\n", args);
}

TEST(RngTest, UniformFloatsAreTheDocumentedFunctionOfPhiloxBits) {
  const std::string body = R"(  %shape = stablehlo.constant dense<[3, 67]> : tensor<2xi64>
  %0 = stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x67xf32>
  %1 = stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x67xf32>
  return %0, %1 : tensor<3x67xf32>, tensor<3x67xf32>)";
  auto out = RunRng(body, {Scalar(-2.0f), Scalar(3.0f)}, "%a: tensor<f32>, %b: tensor<f32>",
                    "tensor<3x67xf32>, tensor<3x67xf32>");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  for (uint64_t stream : {0u, 1u}) {
    std::vector<float> got = out->at(stream).Values<float>();
    std::vector<uint64_t> bits = RngBits(stream, 201, false);
    for (size_t i = 0; i < got.size(); ++i) {
      float u = static_cast<float>(bits[i] >> 9) * 0x1p-23f;
      float expected = u * 5.0f + -2.0f;
      if (!(expected < 3.0f)) expected = std::nextafter(3.0f, 0.0f);
      ASSERT_EQ(got[i], expected) << "stream " << stream << " element " << i;
      ASSERT_GE(got[i], -2.0f);
      ASSERT_LT(got[i], 3.0f);
    }
  }
  // The same program gives the same numbers every time it runs.
  auto again = RunRng(body, {Scalar(-2.0f), Scalar(3.0f)}, "%a: tensor<f32>, %b: tensor<f32>",
                      "tensor<3x67xf32>, tensor<3x67xf32>");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->at(0).bytes, out->at(0).bytes);
  EXPECT_NE(out->at(0).bytes, out->at(1).bytes);
}

TEST(RngTest, UniformIntegersTakeTheRemainderOfTheRange) {
  auto out = RunRng(R"(  %shape = stablehlo.constant dense<[100]> : tensor<1xi64>
  %0 = stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<100xi32>
  %1 = stablehlo.rng %c, %d, %shape, distribution = UNIFORM : (tensor<i64>, tensor<i64>, tensor<1xi64>) -> tensor<100xi64>
  %2 = stablehlo.rng %b, %a, %shape, distribution = UNIFORM : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<100xi32>
  return %0, %1, %2 : tensor<100xi32>, tensor<100xi64>, tensor<100xi32>)",
                    {Scalar<int32_t>(-5), Scalar<int32_t>(12), Scalar<int64_t>(kMin64), Scalar<int64_t>(kMax64)},
                    "%a: tensor<i32>, %b: tensor<i32>, %c: tensor<i64>, %d: tensor<i64>",
                    "tensor<100xi32>, tensor<100xi64>, tensor<100xi32>");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<int32_t> small = out->at(0).Values<int32_t>();
  std::vector<uint64_t> bits = RngBits(0, 100, false);
  for (size_t i = 0; i < small.size(); ++i) ASSERT_EQ(small[i], -5 + static_cast<int32_t>(bits[i] % 17)) << i;
  std::vector<int64_t> wide = out->at(1).Values<int64_t>();
  std::vector<uint64_t> wide_bits = RngBits(1, 100, true);
  for (size_t i = 0; i < wide.size(); ++i) {
    ASSERT_EQ(static_cast<uint64_t>(wide[i]), static_cast<uint64_t>(kMin64) + wide_bits[i] % ~uint64_t{0}) << i;
  }
  // b <= a: every value is a.
  EXPECT_THAT(out->at(2).Values<int32_t>(), ::testing::Each(12));
}

TEST(RngTest, NormalIsBoxMullerOfPairsOfUniforms) {
  auto out = RunRng(R"(  %shape = stablehlo.constant dense<[20001]> : tensor<1xi64>
  %0 = stablehlo.rng %a, %b, %shape, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<20001xf32>
  return %0 : tensor<20001xf32>)",
                    {Scalar(10.0f), Scalar(2.0f)}, "%a: tensor<f32>, %b: tensor<f32>", "tensor<20001xf32>");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<float> got = out->at(0).Values<float>();
  std::vector<uint64_t> bits = RngBits(0, 20001, false);
  double sum = 0, sum2 = 0;
  for (size_t i = 0; i < got.size(); i += 2) {
    float u0 = std::fmax(static_cast<float>(bits[i] >> 9) * 0x1p-23f, 1e-7f);
    float u1 = i + 1 < got.size() ? static_cast<float>(bits[i + 1] >> 9) * 0x1p-23f : 0.0f;
    float radius = std::sqrt(-2.0f * std::log(u0));
    float angle = 6.28318530717958647692f * u1;
    ASSERT_EQ(got[i], std::sin(angle) * radius * 2.0f + 10.0f) << i;
    if (i + 1 < got.size()) {
      ASSERT_EQ(got[i + 1], std::cos(angle) * radius * 2.0f + 10.0f) << i;
    }
  }
  for (float v : got) {
    sum += v;
    sum2 += (v - 10.0) * (v - 10.0);
  }
  EXPECT_NEAR(sum / got.size(), 10.0, 0.05);
  EXPECT_NEAR(std::sqrt(sum2 / got.size()), 2.0, 0.05);
}

TEST(RngTest, EachLoopIterationDrawsAFreshStream) {
  auto out = RunRng(R"(  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %init = stablehlo.constant dense<0.0> : tensor<3x4xf64>
  %r:2 = stablehlo.while(%i = %zero, %acc = %init) : tensor<i64>, tensor<3x4xf64>
   cond {
    %c = stablehlo.constant dense<2> : tensor<i64>
    %lt = stablehlo.compare LT, %i, %c : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %shape = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
    %lo = stablehlo.constant dense<0.0> : tensor<f64>
    %hi = stablehlo.constant dense<1.0> : tensor<f64>
    %x = stablehlo.rng %lo, %hi, %shape, distribution = UNIFORM : (tensor<f64>, tensor<f64>, tensor<2xi64>) -> tensor<3x4xf64>
    %next = stablehlo.add %i, %one : tensor<i64>
    %sum = stablehlo.add %acc, %x : tensor<3x4xf64>
    stablehlo.return %next, %sum : tensor<i64>, tensor<3x4xf64>
  }
  return %r#1 : tensor<3x4xf64>)", {}, "", "tensor<3x4xf64>");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<double> got = out->at(0).Values<double>();
  std::vector<uint64_t> first = RngBits(0, 12, true), second = RngBits(1, 12, true);
  for (size_t i = 0; i < got.size(); ++i) {
    double a = static_cast<double>(first[i] >> 12) * 0x1p-52;
    double b = static_cast<double>(second[i] >> 12) * 0x1p-52;
    ASSERT_EQ(got[i], (0.0 + (a * 1.0 + 0.0)) + (b * 1.0 + 0.0)) << i;
  }
}

}  // namespace
}  // namespace berth::testing
