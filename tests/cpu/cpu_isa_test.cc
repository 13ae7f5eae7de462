// The ISA variants of the cpu plugin's hot kernels (plugins/cpu/isa/),
// called directly: each variant's GEMM is the fma chain over k bit for bit,
// its fma rows are std::fma per element,
// the x86-64-v2 fma emulation is exact, and reductions, conversions and
// elementwise block functions give the same bits in every variant this CPU
// runs. Variants the CPU cannot run are skipped.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "berth/stablehlo/parser.hpp"
#include "interpreter/elementwise.hpp"
#include "isa/exact_fma.hpp"
#include "isa/isa.hpp"
#include "thread_pool.hpp"

namespace berth::cpu {
namespace {

std::vector<const isa::Kernels*> Runnable() {
  std::vector<const isa::Kernels*> variants;
  for (const isa::Kernels* kernels : isa::Built()) {
    if (isa::CpuRuns(kernels->level)) variants.push_back(kernels);
  }
  return variants;
}

template <typename T>
bool SameBits(T a, T b) {
  if (std::isnan(a) && std::isnan(b)) return true;  // the payload may differ
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Random values of every kind: normal numbers over a wide range of
// exponents, subnormals, zeros of both signs, infinities, NaN.
template <typename T>
T AnyValue(std::mt19937_64& random, int exponent_range) {
  switch (random() % 32) {
    case 0: return T(0);
    case 1: return -T(0);
    case 2: return std::numeric_limits<T>::infinity();
    case 3: return -std::numeric_limits<T>::infinity();
    case 4: return std::numeric_limits<T>::quiet_NaN();
    case 5: return std::numeric_limits<T>::denorm_min() * static_cast<T>(random() % 1000);
    default: {
      std::uniform_real_distribution<T> mantissa(-2, 2);
      int exponent = static_cast<int>(random() % (2 * exponent_range + 1)) - exponent_range;
      return std::ldexp(mantissa(random), exponent);
    }
  }
}

// ------------------------------------------------------------- exact fma

TEST(CpuIsaTest, ExactFmaF32MatchesTheCLibraryFma) {
  std::mt19937_64 random(7);
  auto check = [](float a, float b, float c) {
    const isa::exact::D2 r = isa::exact::FmaF32(isa::exact::D2{a, -a}, isa::exact::D2{b, b},
                                                isa::exact::D2{c, -c});
    EXPECT_TRUE(SameBits(static_cast<float>(r[0]), std::fma(a, b, c))) << a << " " << b << " " << c;
    EXPECT_TRUE(SameBits(static_cast<float>(r[1]), std::fma(-a, b, -c))) << a << " " << b << " " << c;
  };
  // Double rounding through double would be wrong here: a*b + c is just
  // below a midpoint between two floats, and rounding to double lands on it.
  check(1.0f + 0x1p-23f, 0x1p-24f - 0x1p-47f, 1.0f + 0x1p-23f);
  check(1.0f + 0x1p-23f, 0x1p-24f + 0x1p-47f, 1.0f);
  // Subnormal results, cancellation to zero, overflow.
  check(0x1p-70f, 0x1p-70f, 0x1p-149f);
  check(3.0f, 1.0f / 3.0f, -1.0f);
  check(0x1p100f, 0x1p100f, 1.0f);
  for (int i = 0; i < 1000000; ++i) {
    float a = AnyValue<float>(random, 60), b = AnyValue<float>(random, 60);
    float c = random() % 2 ? AnyValue<float>(random, 120) : -a * b;
    check(a, b, c);
  }
}

TEST(CpuIsaTest, ExactFmaF64MatchesTheCLibraryFma) {
  std::mt19937_64 random(8);
  auto check = [](double a, double b, double c) {
    const isa::exact::D2 r = isa::exact::FmaF64(isa::exact::D2{a, b}, isa::exact::D2{b, a},
                                                isa::exact::D2{c, c});
    EXPECT_TRUE(SameBits(r[0], std::fma(a, b, c))) << a << " " << b << " " << c;
    EXPECT_TRUE(SameBits(r[1], std::fma(b, a, c))) << a << " " << b << " " << c;
  };
  check(1.0 + 0x1p-52, 1.0 + 0x1p-52, -1.0);                 // the product's low part matters
  check(0x1p-600, 0x1p-600, 0.0);                            // underflows: the C library path
  check(-0x1p-1000, 0x1p-40, 0.0);                           // -0 from an underflowing product
  check(0x1p600, 0x1p600, -1.0);                             // overflow
  check(std::numeric_limits<double>::infinity(), 0.0, 1.0);  // NaN
  for (int i = 0; i < 1000000; ++i) {
    double a = AnyValue<double>(random, random() % 8 == 0 ? 1000 : 60);
    double b = AnyValue<double>(random, random() % 8 == 0 ? 1000 : 60);
    double c = random() % 2 ? AnyValue<double>(random, 120) : -(a * b);
    check(a, b, c);
  }
}

// ------------------------------------------------------------------ GEMM

// C = A . B as the chain c = fma(A(i, p), B(p, j), c) from +0, p in order.
template <typename T>
std::vector<T> ReferenceGemm(const isa::GemmProblem<T>& g) {
  std::vector<T> c(static_cast<size_t>(g.m * g.n));
  for (int64_t i = 0; i < g.m; ++i) {
    for (int64_t j = 0; j < g.n; ++j) {
      T acc = 0;
      for (int64_t p = 0; p < g.k; ++p) {
        acc = std::fma(g.a[i * g.a_row_stride + p * g.a_col_stride],
                       g.b[p * g.b_row_stride + j * g.b_col_stride], acc);
      }
      c[static_cast<size_t>(i * g.n + j)] = acc;
    }
  }
  return c;
}

template <typename T>
void CheckGemms(const isa::Kernels& kernels, ThreadPool* pool) {
  std::mt19937_64 random(11);
  // Sizes around the register tiles (6 and 12 rows, 16 and 32 columns) and
  // the k blocks (256), transposed operands, C column-major.
  const int64_t ms[] = {1, 3, 5, 6, 7, 11, 12, 13, 25, 100, 300};
  const int64_t ns[] = {1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 100, 300};
  const int64_t ks[] = {0, 1, 2, 7, 255, 256, 257, 600};
  int cases = 0;
  for (int trial = 0; trial < 60; ++trial) {
    isa::GemmProblem<T> g;
    g.m = ms[random() % std::size(ms)];
    g.n = ns[random() % std::size(ns)];
    g.k = ks[random() % std::size(ks)];
    if (g.m * g.n * g.k > 4'000'000) continue;
    const bool a_t = random() % 2, b_t = random() % 2, c_t = random() % 4 == 0;
    const bool specials = random() % 4 == 0;
    std::vector<T> a(static_cast<size_t>(g.m * g.k)), b(static_cast<size_t>(g.k * g.n));
    std::uniform_real_distribution<T> dist(-1, 1);
    for (T& x : a) x = specials ? AnyValue<T>(random, 20) : dist(random);
    for (T& x : b) x = specials ? AnyValue<T>(random, 20) : dist(random);
    g.a = a.data();
    g.a_row_stride = a_t ? 1 : g.k;
    g.a_col_stride = a_t ? g.m : 1;
    g.b = b.data();
    g.b_row_stride = b_t ? 1 : g.n;
    g.b_col_stride = b_t ? g.k : 1;
    std::vector<T> c(static_cast<size_t>(g.m * g.n), std::numeric_limits<T>::quiet_NaN());
    g.c = c.data();
    g.c_row_stride = c_t ? 1 : g.n;
    g.c_col_stride = c_t ? g.m : 1;
    Status status;
    if constexpr (std::is_same_v<T, float>) {
      status = kernels.gemm_f32(g, pool);
    } else {
      status = kernels.gemm_f64(g, pool);
    }
    ASSERT_TRUE(status.ok()) << status.ToString();
    std::vector<T> want = ReferenceGemm(g);
    int wrong = 0;
    for (int64_t i = 0; i < g.m; ++i) {
      for (int64_t j = 0; j < g.n; ++j) {
        T got = c[static_cast<size_t>(i * g.c_row_stride + j * g.c_col_stride)];
        T expected = want[static_cast<size_t>(i * g.n + j)];
        if (!SameBits(got, expected) && ++wrong <= 3) {
          ADD_FAILURE() << kernels.name << " " << g.m << "x" << g.k << " . " << g.k << "x" << g.n
                        << (a_t ? " A'" : "") << (b_t ? " B'" : "") << (c_t ? " C'" : "")
                        << ": C(" << i << ", " << j << ") = " << got << ", expected " << expected;
        }
      }
    }
    ++cases;
  }
  EXPECT_GT(cases, 30);
}

TEST(CpuIsaTest, GemmOfEveryVariantIsTheFmaChainBitForBit) {
  ThreadPool pool(2);
  for (const isa::Kernels* kernels : Runnable()) {
    SCOPED_TRACE(kernels->name);
    CheckGemms<float>(*kernels, nullptr);
    CheckGemms<float>(*kernels, &pool);
    CheckGemms<double>(*kernels, &pool);
  }
}

// Each variant's fma rows are k steps of std::fma on each of m rows of n,
// bit for bit.
template <typename T>
void CheckFmaRows(const isa::Kernels& kernels) {
  std::mt19937_64 random(14);
  for (int64_t n : {0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 64, 100}) {
    for (auto [k, m] : {std::pair<int64_t, int64_t>{1, 1}, {3, 1}, {1, 4}, {4, 3}}) {
      std::vector<T> a(static_cast<size_t>(k * n)), b(static_cast<size_t>(k * m * n)),
          c(static_cast<size_t>(m * n));
      for (T& x : a) x = AnyValue<T>(random, 40);
      for (T& x : b) x = AnyValue<T>(random, 40);
      for (size_t i = 0; i < c.size(); ++i) {
        c[i] = random() % 4 == 0 ? -(a[i % a.size()] * b[i]) : AnyValue<T>(random, 80);
      }
      std::vector<T> want = c, got = c;
      for (int64_t i = 0; i < k; ++i) {
        for (int64_t j = 0; j < m; ++j) {
          for (int64_t x = 0; x < n; ++x) {
            T& acc = want[static_cast<size_t>(j * n + x)];
            acc = std::fma(a[static_cast<size_t>(i * n + x)], b[static_cast<size_t>((i * m + j) * n + x)], acc);
          }
        }
      }
      if constexpr (std::is_same_v<T, float>) {
        kernels.fma_rows_f32(a.data(), b.data(), got.data(), k, m, n);
      } else {
        kernels.fma_rows_f64(a.data(), b.data(), got.data(), k, m, n);
      }
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_TRUE(SameBits(got[i], want[i])) << kernels.name << " k " << k << " m " << m << " n " << n
                                               << " element " << i << ": " << got[i] << ", expected "
                                               << want[i];
      }
    }
  }
}

TEST(CpuIsaTest, FmaRowsOfEveryVariantAreStdFmaBitForBit) {
  for (const isa::Kernels* kernels : Runnable()) {
    CheckFmaRows<float>(*kernels);
    CheckFmaRows<double>(*kernels);
  }
}

// --------------------------------------------------- identical across ISAs

TEST(CpuIsaTest, FloatReductionsGiveTheSameBitsInEveryVariant) {
  // Inexact sums: only a fixed order gives the same bits everywhere.
  std::mt19937_64 random(12);
  ThreadPool pool(2);
  for (int64_t n : {1, 7, 15, 16, 17, 63, 64, 65, 1000, 100003}) {
    std::vector<float> in(static_cast<size_t>(n) * 3);
    for (float& x : in) x = AnyValue<float>(random, 10);
    const int64_t dims[] = {3, n};
    for (const char reduced_last : {char{1}, char{0}}) {
      const char reduced[] = {static_cast<char>(1 - reduced_last), reduced_last};
      for (Reducer reducer : {Reducer::kAdd, Reducer::kMultiply, Reducer::kMaximum, Reducer::kMinimum}) {
        std::vector<std::vector<float>> outs;
        for (const isa::Kernels* kernels : Runnable()) {
          std::vector<float> out(static_cast<size_t>(reduced_last ? 3 : n));
          const float init = reducer == Reducer::kMultiply ? 1.0f : 0.0f;
          isa::ReduceLoop loop;
          loop.reducer = reducer;
          loop.type = stablehlo::ElementType::kF32;
          loop.in = in.data();
          loop.out = out.data();
          loop.init = &init;
          loop.dims = dims;
          loop.reduced = reduced;
          ASSERT_TRUE(kernels->reduce(loop, &pool).ok());
          outs.push_back(std::move(out));
        }
        for (size_t v = 1; v < outs.size(); ++v) {
          for (size_t i = 0; i < outs[0].size(); ++i) {
            ASSERT_TRUE(SameBits(outs[v][i], outs[0][i]))
                << Runnable()[v]->name << " vs " << Runnable()[0]->name << ", n " << n
                << ", reducer " << static_cast<int>(reducer) << ", element " << i;
          }
        }
      }
    }
  }
}

// Whether two elements of `type` that differ in bits are both NaN (the
// variants may give NaNs different payloads); F16 and BF16 only when
// `half_nans`.
bool BothNan(stablehlo::ElementType type, const std::byte* x, const std::byte* y, bool half_nans) {
  if (stablehlo::IsComplex(type)) {
    // Each part equal, or NaN in both.
    const stablehlo::ElementType part = stablehlo::ComplexComponentType(type);
    const size_t half = stablehlo::StorageBytes(part);
    for (size_t offset : {size_t{0}, half}) {
      if (std::memcmp(x + offset, y + offset, half) != 0 &&
          !BothNan(part, x + offset, y + offset, half_nans)) {
        return false;
      }
    }
    return true;
  }
  if (type == stablehlo::ElementType::kF32) {
    float fx, fy;
    std::memcpy(&fx, x, 4);
    std::memcpy(&fy, y, 4);
    return std::isnan(fx) && std::isnan(fy);
  }
  if (type == stablehlo::ElementType::kF64) {
    double dx, dy;
    std::memcpy(&dx, x, 8);
    std::memcpy(&dy, y, 8);
    return std::isnan(dx) && std::isnan(dy);
  }
  if (half_nans &&
      (type == stablehlo::ElementType::kF16 || type == stablehlo::ElementType::kBF16)) {
    uint16_t hx, hy;
    std::memcpy(&hx, x, 2);
    std::memcpy(&hy, y, 2);
    const uint16_t exponent = type == stablehlo::ElementType::kF16 ? 0x7C00 : 0x7F80;
    auto is_nan = [&](uint16_t h) {
      return (h & exponent) == exponent && (h & ~(exponent | 0x8000)) != 0;
    };
    return is_nan(hx) && is_nan(hy);
  }
  return false;
}

// Every variant's output in `outs` (`count` elements of `type`, in the
// order of Runnable()) holds the first one's bits, NaN payloads aside (of
// F16 and BF16 too when `half_nans_may_differ`). `what` names the op in
// messages.
void ExpectTheFirstVariantsBits(const std::vector<std::vector<std::byte>>& outs,
                                stablehlo::ElementType type, int64_t count,
                                bool half_nans_may_differ, const std::string& what) {
  const size_t size = stablehlo::StorageBytes(type);
  for (size_t v = 1; v < outs.size(); ++v) {
    for (int64_t i = 0; i < count; ++i) {
      const std::byte* x = outs[v].data() + i * size;
      const std::byte* y = outs[0].data() + i * size;
      if (std::memcmp(x, y, size) == 0) continue;
      ASSERT_TRUE(BothNan(type, x, y, half_nans_may_differ))
          << what << ", element " << i << ": " << Runnable()[v]->name << " differs from "
          << Runnable()[0]->name;
    }
  }
}

TEST(CpuIsaTest, ConversionsGiveTheSameBitsInEveryVariant) {
  using stablehlo::ElementType;
  const ElementType types[] = {ElementType::kI1,   ElementType::kSI8,  ElementType::kSI16,
                               ElementType::kSI32, ElementType::kSI64, ElementType::kUI8,
                               ElementType::kUI16, ElementType::kUI32, ElementType::kUI64,
                               ElementType::kF16,  ElementType::kBF16, ElementType::kF32,
                               ElementType::kF64};
  std::mt19937_64 random(13);
  constexpr int64_t kCount = 4099;
  for (ElementType from : types) {
    const size_t from_size = stablehlo::StorageBytes(from);
    std::vector<std::byte> in(kCount * from_size);
    for (std::byte& b : in) b = static_cast<std::byte>(random());
    if (from == ElementType::kI1) {
      for (std::byte& b : in) b = static_cast<std::byte>(static_cast<uint8_t>(b) & 1);
    }
    for (ElementType to : types) {
      const size_t to_size = stablehlo::StorageBytes(to);
      std::vector<std::vector<std::byte>> outs;
      for (const isa::Kernels* kernels : Runnable()) {
        BlockFn convert = kernels->convert(from, to);
        ASSERT_NE(convert, nullptr);
        ElementwiseNode node;
        node.num_args = 1;
        node.out_type = to;
        const void* args[1] = {in.data()};
        std::vector<std::byte> out(kCount * to_size);
        convert(node, args, out.data(), kCount);
        outs.push_back(std::move(out));
      }
      // NaN results may differ in payload only; compare by value for floats.
      ASSERT_NO_FATAL_FAILURE(
          ExpectTheFirstVariantsBits(outs, to, kCount, /*half_nans_may_differ=*/false,
                                     std::string(stablehlo::ElementTypeName(from)) + " -> " +
                                         std::string(stablehlo::ElementTypeName(to))));
    }
  }
}

// Every elementwise op of a module, made by each variant and run on the
// same random inputs: the same values in every variant.
// Runs the elementwise `op` (one result of `out_type`) as every runnable
// variant makes it on `count` elements of `a` and `b`; every variant must
// give the first one's bits, NaN payloads aside. `in_type` names the
// operands' type in messages.
void ExpectEveryVariantGivesTheSameBits(const stablehlo::Operation& op,
                                        stablehlo::ElementType in_type,
                                        stablehlo::ElementType out_type,
                                        const std::vector<std::byte>& a,
                                        const std::vector<std::byte>& b, int64_t count) {
  const size_t out_size = stablehlo::StorageBytes(out_type);
  std::vector<std::vector<std::byte>> outs;
  for (const isa::Kernels* kernels : Runnable()) {
    elementwise::MakeBlockFn make = kernels->find_elementwise(op);
    ASSERT_NE(make, nullptr) << op.name();
    ElementwiseNode node;
    node.op = &op;
    node.num_args = static_cast<int>(op.num_operands());
    node.out_type = out_type;
    node.compute_out = out_type;
    for (size_t i = 0; i < op.num_operands() && i < 3; ++i) {
      node.arg_type[i] = node.compute_arg[i] = op.operand(i)->type().element_type();
    }
    ASSERT_TRUE(make(op, op.name(), node).ok()) << op.name();
    const void* args[2] = {a.data(), b.data()};
    std::vector<std::byte> out(count * out_size);
    node.fn(node, args, out.data(), count);
    outs.push_back(std::move(out));
  }
  ExpectTheFirstVariantsBits(outs, out_type, count, /*half_nans_may_differ=*/true,
                             std::string(op.name()) + " on " +
                                 std::string(stablehlo::ElementTypeName(in_type)));
}

// Parses `program` (named `file`) and runs every op of its function with one
// result through ExpectEveryVariantGivesTheSameBits on `size` elements of
// operands a and b that `inputs(in_type, a, b)` fills. There must be `count`
// such ops.
template <typename F>
void ExpectEveryOneResultOpGivesTheSameBits(const std::string& program, const char* file,
                                            int64_t size, int count, F&& inputs) {
  Result<stablehlo::Module> module = stablehlo::ParseModule(program, file);
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  int compared = 0;
  for (stablehlo::Operation* op : module->functions()[0]->entry_block().operations()) {
    if (op->num_results() != 1) continue;
    const stablehlo::ElementType in_type = op->operand(0)->type().element_type();
    const stablehlo::ElementType out_type = op->result(0)->type().element_type();
    const size_t in_size = stablehlo::StorageBytes(in_type);
    std::vector<std::byte> a(size * in_size), b(size * in_size);
    inputs(in_type, a, b);
    ASSERT_NO_FATAL_FAILURE(ExpectEveryVariantGivesTheSameBits(*op, in_type, out_type, a, b, size));
    ++compared;
  }
  EXPECT_EQ(compared, count);
}

TEST(CpuIsaTest, ElementwiseOpsGiveTheSameValuesInEveryVariant) {
  const char* ops[] = {"add", "subtract", "multiply", "divide", "remainder", "power", "maximum",
                       "minimum", "atan2"};
  const char* unary[] = {"negate", "abs", "sign", "sqrt", "rsqrt", "cbrt", "exponential",
                         "exponential_minus_one", "log", "log_plus_one", "logistic", "sine",
                         "cosine", "tan", "tanh", "floor", "ceil", "round_nearest_even",
                         "round_nearest_afz"};
  const char* int_ops[] = {"add", "subtract", "multiply", "divide", "remainder", "power",
                           "maximum", "minimum", "and", "or", "xor", "shift_left",
                           "shift_right_arithmetic", "shift_right_logical"};
  const char* int_unary[] = {"negate", "abs", "sign", "not", "popcnt", "count_leading_zeros"};
  std::string program = "func.func @main(";
  std::string body;
  int count = 0;
  auto add = [&](const std::string& op, const std::string& type, bool binary) {
    const std::string t = "tensor<4099x" + type + ">";
    const std::string a = "%a" + std::to_string(count), b = "%b" + std::to_string(count);
    program += std::string(count ? ", " : "") + a + ": " + t + ", " + b + ": " + t;
    body += "  %r" + std::to_string(count) + " = stablehlo." + op + " " + a +
            (binary ? ", " + b : std::string()) + " : " + t + "\n";
    ++count;
  };
  for (const char* type : {"f32", "f64", "f16", "bf16"}) {
    for (const char* op : ops) add(op, type, true);
    for (const char* op : unary) add(op, type, false);
  }
  for (const char* type : {"i8", "i16", "i32", "i64", "ui8", "ui32"}) {
    const bool is_unsigned = type[0] == 'u';
    for (const char* op : int_ops) add(op, type, true);
    for (const char* op : int_unary) {
      // abs, negate and sign are for signed integers.
      if (!is_unsigned || std::string(op) == "not" || std::string(op) == "popcnt" ||
          std::string(op) == "count_leading_zeros") {
        add(op, type, false);
      }
    }
  }
  program += ") {\n" + body + "  return\n}\n";
  std::mt19937_64 random(14);
  ExpectEveryOneResultOpGivesTheSameBits(
      program, "elementwise.mlir", 4099, count,
      [&](stablehlo::ElementType, std::vector<std::byte>& a, std::vector<std::byte>& b) {
        for (std::byte& x : a) x = static_cast<std::byte>(random());
        for (std::byte& x : b) x = static_cast<std::byte>(random());
      });
}

// CHLO's elementwise ops (kernels_elementwise_special.cc), made by each
// variant and run on the same inputs (values of moderate size, where the
// functions do their work, and of every kind): the same bits in every
// variant, NaN payloads aside.
TEST(CpuIsaTest, ChloOpsGiveTheSameBitsInEveryVariant) {
  const char* unary[] = {"erf", "erfc", "erf_inv", "lgamma", "digamma", "bessel_i1e", "asin",
                         "acos", "atan", "sinh", "cosh", "tan", "asinh", "acosh", "atanh",
                         "square", "is_inf", "is_pos_inf", "is_neg_inf"};
  const char* binary[] = {"next_after", "polygamma", "zeta"};
  constexpr int64_t kSize = 1027;
  std::string program = "func.func @main(";
  std::string body;
  int count = 0;
  for (const char* type : {"f32", "f64", "f16", "bf16"}) {
    const std::string t = "tensor<" + std::to_string(kSize) + "x" + type + ">";
    auto add = [&](const std::string& op, int operands, const std::string& result) {
      std::string names, types;
      for (int i = 0; i < operands; ++i) {
        std::string name = "%a" + std::to_string(count) + "_" + std::to_string(i);
        program += std::string(count || i ? ", " : "") + name + ": " + t;
        names += (i ? ", " : "") + name;
        types += (i ? ", " : "") + t;
      }
      body += "  %r" + std::to_string(count) + " = chlo." + op + " " + names + " : " + types +
              " -> " + result + "\n";
      ++count;
    };
    for (const char* op : unary) {
      add(op, 1, std::string(op).starts_with("is_") ? "tensor<" + std::to_string(kSize) + "xi1>" : t);
    }
    for (const char* op : binary) add(op, 2, t);
  }
  program += ") {\n" + body + "  return\n}\n";
  std::mt19937_64 random(19);
  ExpectEveryOneResultOpGivesTheSameBits(
      program, "chlo.mlir", kSize, count,
      [&](stablehlo::ElementType in_type, std::vector<std::byte>& a, std::vector<std::byte>& b) {
        const size_t in_size = stablehlo::StorageBytes(in_type);
        for (int64_t i = 0; i < kSize; ++i) {
          for (std::vector<std::byte>* v : {&a, &b}) {
            std::byte* at = v->data() + i * in_size;
            if (in_type == stablehlo::ElementType::kF64) {
              double x = i % 2 ? AnyValue<double>(random, 8) : AnyValue<double>(random, 300);
              std::memcpy(at, &x, 8);
            } else if (in_type == stablehlo::ElementType::kF32) {
              float x = i % 2 ? AnyValue<float>(random, 8) : AnyValue<float>(random, 120);
              std::memcpy(at, &x, 4);
            } else {
              for (size_t k = 0; k < in_size; ++k) at[k] = static_cast<std::byte>(random());
            }
          }
        }
      });
}

// Complex arithmetic and functions (kernels_elementwise_complex.cc), made by
// each variant and run on the same parts of every kind: the same bits in
// every variant. (GCC 12 turns a vectorized complex multiply into
// fmaddsub even under -ffp-contract=off; complex<f64> products then
// differed in the last bit on x86-64-v3 and v4.)
TEST(CpuIsaTest, ComplexOpsGiveTheSameBitsInEveryVariant) {
  const char* binary[] = {"add",   "subtract", "multiply", "divide",
                          "power", "maximum",  "minimum",  "atan2"};
  const char* unary[] = {
      "negate", "sign",         "sqrt",     "rsqrt", "exponential", "exponential_minus_one",
      "log",    "log_plus_one", "logistic", "sine",  "cosine",      "tanh"};
  constexpr int64_t kSize = 1031;
  std::string program = "func.func @main(";
  std::string body;
  int count = 0;
  for (const char* type : {"complex<f32>", "complex<f64>"}) {
    const std::string t = "tensor<" + std::to_string(kSize) + "x" + type + ">";
    auto add = [&](const std::string& op, bool two) {
      const std::string a = "%a" + std::to_string(count), b = "%b" + std::to_string(count);
      program += std::string(count ? ", " : "") + a + ": " + t + ", " + b + ": " + t;
      body += "  %r" + std::to_string(count) + " = stablehlo." + op + " " + a +
              (two ? ", " + b : std::string()) + " : " + t + "\n";
      ++count;
    };
    for (const char* op : binary) add(op, true);
    for (const char* op : unary) add(op, false);
  }
  program += ") {\n" + body + "  return\n}\n";
  std::mt19937_64 random(23);
  ExpectEveryOneResultOpGivesTheSameBits(
      program, "complex.mlir", kSize, count,
      [&](stablehlo::ElementType in_type, std::vector<std::byte>& a, std::vector<std::byte>& b) {
        const bool wide = in_type == stablehlo::ElementType::kComplex128;
        for (std::vector<std::byte>* v : {&a, &b}) {
          for (size_t at = 0; at < v->size(); at += wide ? 8 : 4) {
            if (wide) {
              const double x = AnyValue<double>(random, at % 16 ? 8 : 300);
              std::memcpy(v->data() + at, &x, 8);
            } else {
              const float x = AnyValue<float>(random, at % 8 ? 8 : 120);
              std::memcpy(v->data() + at, &x, 4);
            }
          }
        }
      });
}

TEST(CpuIsaTest, SelectionTakesTheHighestLevelTheCpuRuns) {
  if (std::getenv("BERTH_CPU_ISA") != nullptr) GTEST_SKIP() << "BERTH_CPU_ISA forces the choice";
  Result<const isa::Kernels*> selected = isa::Selected();
  ASSERT_TRUE(selected.ok()) << selected.status().ToString();
  EXPECT_EQ(*selected, Runnable().back());
  EXPECT_EQ(&isa::Active(), *selected);
}

}  // namespace
}  // namespace berth::cpu
