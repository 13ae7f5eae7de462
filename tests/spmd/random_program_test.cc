// The partitioner on generated programs: chains of elementwise ops, clamps
// with scalar bounds, transposes, broadcasts, reductions, dot_generals,
// reshapes, slices, pads, concatenates and sharding constraints over i32
// arrays of 4, 6 and 8 rows or columns (6 does not divide over 4 devices;
// slices, pads and concatenates make other sizes), with random shardings on the arguments,
// results and constraints, over 2 and 4 devices. Each must give the
// unpartitioned run's results exactly. Values are clamped to [-100, 100]
// before each dot and reduction, so no sum overflows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "partitioned_run.hpp"

namespace berth {
namespace {

using testing::Literal;

struct Array {
  std::string name;
  std::vector<int64_t> dims;
};

std::string Type(const std::vector<int64_t>& dims) {
  std::string text = "tensor<";
  for (int64_t d : dims) text += std::to_string(d) + "x";
  return text + "i32>";
}

class ProgramGenerator {
 public:
  ProgramGenerator(std::mt19937_64& rng, int64_t devices) : rng_(rng), devices_(devices) {}

  // A module of about `ops` ops, and its arguments' shapes.
  std::string Generate(int ops, std::vector<std::vector<int64_t>>& argument_shapes) {
    body_ = "    %lo = stablehlo.constant dense<-100> : tensor<i32>\n"
            "    %hi = stablehlo.constant dense<100> : tensor<i32>\n";
    NewArgument({Size(), Size()});
    NewArgument({Size(), Size()});
    for (int i = 0; i < ops; ++i) Step();
    // The last value and one other are the results.
    std::vector<Array> results = {values_.back(), Pick()};
    std::string text = "module attributes {mhlo.num_partitions = " + std::to_string(devices_) +
                       " : i32} {\n  func.func public @main(";
    for (size_t i = 0; i < arguments_.size(); ++i) {
      text += (i ? ", " : "") + arguments_[i].name + ": " + Type(arguments_[i].dims) + " {mhlo.sharding = \"" +
              RandomSharding(arguments_[i].dims.size()) + "\"}";
      argument_shapes.push_back(arguments_[i].dims);
    }
    text += ") -> (";
    std::string returned, returned_types;
    for (size_t i = 0; i < results.size(); ++i) {
      text += (i ? ", " : "") + Type(results[i].dims) + " {mhlo.sharding = \"" +
              RandomSharding(results[i].dims.size()) + "\"}";
      returned += (i ? ", " : "") + results[i].name;
      returned_types += (i ? ", " : "") + Type(results[i].dims);
    }
    return text + ") {\n" + body_ + "    return " + returned + " : " + returned_types + "\n  }\n}\n";
  }

 private:
  int64_t Size() { return std::vector<int64_t>{4, 6, 8}[Uniform(3)]; }
  size_t Uniform(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  // Mostly one of the last three values, so that ops form chains and few
  // are dead.
  Array Pick() {
    if (Uniform(10) < 7) return values_[values_.size() - 1 - Uniform(std::min<size_t>(3, values_.size()))];
    return values_[Uniform(values_.size())];
  }
  std::string RandomSharding(size_t rank) {
    std::vector<std::string> options = spmd_testing::ShardingsFor(rank, devices_);
    return options[Uniform(options.size())];
  }

  Array NewArgument(std::vector<int64_t> dims) {
    Array a{"%a" + std::to_string(arguments_.size()), std::move(dims)};
    arguments_.push_back(a);
    values_.push_back(a);
    return a;
  }

  Array Define(const std::string& op, std::vector<int64_t> dims) {
    Array a{"%v" + std::to_string(next_++), std::move(dims)};
    body_ += "    " + a.name + " = " + op + "\n";
    values_.push_back(a);
    return a;
  }

  Array Clamped(const Array& a) {
    return Define("\"stablehlo.clamp\"(%lo, " + a.name + ", %hi) : (tensor<i32>, " + Type(a.dims) +
                      ", tensor<i32>) -> " + Type(a.dims),
                  a.dims);
  }

  // A value of `dims`: an existing one, else a new argument.
  Array OfShape(const std::vector<int64_t>& dims) {
    std::vector<Array> same;
    for (const Array& v : values_) {
      if (v.dims == dims) same.push_back(v);
    }
    return same.empty() ? NewArgument(dims) : same[Uniform(same.size())];
  }

  void Step() {
    Array a = Pick();
    switch (Uniform(12)) {
      case 0: case 1: {
        static const char* kBinary[] = {"add", "subtract", "maximum", "minimum", "xor"};
        Array b = OfShape(a.dims);
        Define(std::string("stablehlo.") + kBinary[Uniform(5)] + " " + a.name + ", " + b.name + " : " + Type(a.dims),
               a.dims);
        break;
      }
      case 2: {
        static const char* kUnary[] = {"negate", "abs"};
        Define(std::string("stablehlo.") + kUnary[Uniform(2)] + " " + a.name + " : " + Type(a.dims), a.dims);
        break;
      }
      case 3: {
        if (a.dims.size() != 2) return Step();
        std::vector<int64_t> dims = {a.dims[1], a.dims[0]};
        Define("stablehlo.transpose " + a.name + ", dims = [1, 0] : (" + Type(a.dims) + ") -> " + Type(dims), dims);
        break;
      }
      case 4: {
        if (a.dims.size() != 1) {
          // Reduce a 2-D value along one dimension.
          const int64_t d = static_cast<int64_t>(Uniform(2));
          Array c = Clamped(a);
          std::vector<int64_t> dims = {a.dims[static_cast<size_t>(1 - d)]};
          Define("stablehlo.reduce(" + c.name + " init: %zero) applies stablehlo.add across dimensions = [" +
                     std::to_string(d) + "] : (" + Type(a.dims) + ", tensor<i32>) -> " + Type(dims),
                 dims);
          if (body_.find("%zero =") == std::string::npos) {
            body_ = "    %zero = stablehlo.constant dense<0> : tensor<i32>\n" + body_;
          }
          break;
        }
        // Broadcast a 1-D value into rows or columns.
        const bool rows = Uniform(2) == 0;
        std::vector<int64_t> dims = rows ? std::vector<int64_t>{Size(), a.dims[0]}
                                         : std::vector<int64_t>{a.dims[0], Size()};
        Define("stablehlo.broadcast_in_dim " + a.name + ", dims = [" + (rows ? "1" : "0") + "] : (" + Type(a.dims) +
                   ") -> " + Type(dims),
               dims);
        break;
      }
      case 5: case 6: {
        if (a.dims.size() != 2) return Step();
        Array b = OfShape({a.dims[1], Size()});
        Array ca = Clamped(a), cb = Clamped(b);
        std::vector<int64_t> dims = {a.dims[0], b.dims[1]};
        Define("stablehlo.dot_general " + ca.name + ", " + cb.name + ", contracting_dims = [1] x [0] : (" +
                   Type(a.dims) + ", " + Type(b.dims) + ") -> " + Type(dims),
               dims);
        break;
      }
      case 8: {
        // Flatten a 2-D value, or fold a 1-D one (or a 2-D one's rows) in two.
        std::vector<int64_t> dims;
        if (a.dims.size() == 2 && (a.dims[0] % 2 != 0 || Uniform(2) == 0)) {
          dims = {a.dims[0] * a.dims[1]};
        } else if (a.dims.size() == 2) {
          dims = {a.dims[0] / 2, a.dims[1] * 2};
        } else if (a.dims[0] % 2 == 0) {
          dims = {2, a.dims[0] / 2};
        } else {
          return Step();
        }
        if (dims[0] > 64) return Step();
        Define("stablehlo.reshape " + a.name + " : (" + Type(a.dims) + ") -> " + Type(dims), dims);
        break;
      }
      case 9: {
        // A slice per dimension: often the whole of it, else a start, an end
        // and a stride.
        std::string ranges;
        std::vector<int64_t> dims;
        for (size_t d = 0; d < a.dims.size(); ++d) {
          int64_t start = 0, limit = a.dims[d], stride = 1;
          if (Uniform(2) == 0) {
            start = static_cast<int64_t>(Uniform(static_cast<size_t>(a.dims[d] + 1) / 2));
            limit = start + 1 + static_cast<int64_t>(Uniform(static_cast<size_t>(a.dims[d] - start)));
            stride = 1 + static_cast<int64_t>(Uniform(2));
          }
          ranges += (d ? ", " : "") + std::to_string(start) + ":" + std::to_string(limit) + ":" + std::to_string(stride);
          dims.push_back((limit - start + stride - 1) / stride);
        }
        Define("stablehlo.slice " + a.name + " [" + ranges + "] : (" + Type(a.dims) + ") -> " + Type(dims), dims);
        break;
      }
      case 10: {
        // Padding on some dimensions (edges and interior), with 7.
        if (a.dims.size() != 2 || a.dims[0] > 16 || a.dims[1] > 16) return Step();
        std::string low, high, interior;
        std::vector<int64_t> dims;
        for (size_t d = 0; d < 2; ++d) {
          const bool padded = Uniform(2) == 0;
          const int64_t l = padded ? static_cast<int64_t>(Uniform(3)) : 0, h = padded ? static_cast<int64_t>(Uniform(3)) : 0,
                        i = padded ? static_cast<int64_t>(Uniform(2)) : 0;
          low += (d ? ", " : "") + std::to_string(l);
          high += (d ? ", " : "") + std::to_string(h);
          interior += (d ? ", " : "") + std::to_string(i);
          dims.push_back(a.dims[d] + l + h + (a.dims[d] - 1) * i);
        }
        if (body_.find("%seven =") == std::string::npos) {
          body_ = "    %seven = stablehlo.constant dense<7> : tensor<i32>\n" + body_;
        }
        Define("stablehlo.pad " + a.name + ", %seven, low = [" + low + "], high = [" + high + "], interior = [" +
                   interior + "] : (" + Type(a.dims) + ", tensor<i32>) -> " + Type(dims),
               dims);
        break;
      }
      case 11: {
        // Joined with a value of another length along one dimension.
        if (a.dims.size() != 2 || a.dims[0] > 16 || a.dims[1] > 16) return Step();
        const size_t d = Uniform(2);
        std::vector<int64_t> other = a.dims;
        other[d] = Size();
        Array b = OfShape(other);
        std::vector<int64_t> dims = a.dims;
        dims[d] += other[d];
        Define("stablehlo.concatenate " + a.name + ", " + b.name + ", dim = " + std::to_string(d) + " : (" +
                   Type(a.dims) + ", " + Type(other) + ") -> " + Type(dims),
               dims);
        break;
      }
      default: {
        Define("stablehlo.custom_call @Sharding(" + a.name + ") {mhlo.sharding = \"" + RandomSharding(a.dims.size()) +
                   "\"} : (" + Type(a.dims) + ") -> " + Type(a.dims),
               a.dims);
        break;
      }
    }
  }

  std::mt19937_64& rng_;
  int64_t devices_;
  std::string body_;
  std::vector<Array> arguments_;
  std::vector<Array> values_;
  int next_ = 0;
};

// BERTH_SPMD_RANDOM_SEED picks other programs (the seed is printed on a
// failure through the program text).
TEST(RandomProgramTest, GeneratedProgramsMatchTheUnpartitionedRunExactly) {
  const char* seed = std::getenv("BERTH_SPMD_RANDOM_SEED");
  std::mt19937_64 rng(seed ? std::strtoull(seed, nullptr, 10) : 20261205);
  int programs = 0;
  for (int64_t devices : {2, 4}) {
    for (int i = 0; i < 100; ++i) {
      ProgramGenerator generator(rng, devices);
      std::vector<std::vector<int64_t>> shapes;
      const std::string text = generator.Generate(4 + static_cast<int>(rng() % 14), shapes);
      std::vector<Literal> args;
      for (const std::vector<int64_t>& dims : shapes) {
        args.push_back(spmd_testing::RandomLiteral(ElementType::kS32, dims, rng));
      }
      spmd_testing::ExpectPartitionedRunMatches(text, args);
      if (::testing::Test::HasFatalFailure()) return;
      ++programs;
    }
  }
  EXPECT_EQ(programs, 200);
}

}  // namespace
}  // namespace berth
