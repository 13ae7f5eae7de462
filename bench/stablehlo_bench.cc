// Benchmarks of the StableHLO program library.
//
// BM_ParseLarge: a generated ~10 MB module (many functions of realistic ops
// plus a few large dense constants, as lists and as hex blobs) parsed and
// verified per iteration.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "berth/stablehlo/stablehlo.hpp"

namespace {

// One function of typical JAX-exported ops.
void AppendFunction(std::string& out, int index) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%d", index);
  std::string n = buf;
  out += "  func.func private @layer" + n +
         "(%arg0: tensor<8x128xf32> {mhlo.layout_mode = \"default\"}, %arg1: tensor<128x128xf32>, "
         "%arg2: tensor<128xf32>) -> (tensor<8x128xf32> {jax.result_info = \"\"}) {\n"
         "    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = "
         "[DEFAULT, DEFAULT] : (tensor<8x128xf32>, tensor<128x128xf32>) -> tensor<8x128xf32> loc(#loc3)\n"
         "    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<128xf32>) -> tensor<8x128xf32>\n"
         "    %2 = stablehlo.add %0, %1 : tensor<8x128xf32>\n"
         "    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"
         "    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x128xf32>\n"
         "    %4 = stablehlo.maximum %2, %3 : tensor<8x128xf32>\n"
         "    %5 = stablehlo.compare  GT, %2, %3,  FLOAT : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xi1>\n"
         "    %6 = stablehlo.select %5, %4, %3 : tensor<8x128xi1>, tensor<8x128xf32>\n"
         "    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
         "    %7 = stablehlo.reduce(%6 init: %cst_0) applies stablehlo.maximum across dimensions = [1] : "
         "(tensor<8x128xf32>, tensor<f32>) -> tensor<8xf32>\n"
         "    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<8xf32>) -> tensor<8x128xf32>\n"
         "    %9 = stablehlo.subtract %6, %8 : tensor<8x128xf32>\n"
         "    %10 = stablehlo.exponential %9 : tensor<8x128xf32>\n"
         "    %cst_1 = stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, "
         "5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]> : tensor<8xf32>\n"
         "    %11 = stablehlo.reshape %cst_1 : (tensor<8xf32>) -> tensor<8x1xf32>\n"
         "    %12 = stablehlo.transpose %11, dims = [1, 0] : (tensor<8x1xf32>) -> tensor<1x8xf32>\n"
         "    %13 = stablehlo.slice %10 [0:8, 0:128:2] : (tensor<8x128xf32>) -> tensor<8x64xf32>\n"
         "    %14 = stablehlo.concatenate %13, %13, dim = 1 : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x128xf32>\n"
         "    %c = stablehlo.constant dense<0> : tensor<i32>\n"
         "    %15:2 = stablehlo.while(%iterArg = %c, %iterArg_2 = %14) : tensor<i32>, tensor<8x128xf32>\n"
         "     cond {\n"
         "      %c_3 = stablehlo.constant dense<4> : tensor<i32>\n"
         "      %17 = stablehlo.compare  LT, %iterArg, %c_3,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
         "      stablehlo.return %17 : tensor<i1>\n"
         "    } do {\n"
         "      %c_3 = stablehlo.constant dense<1> : tensor<i32>\n"
         "      %17 = stablehlo.add %iterArg, %c_3 : tensor<i32>\n"
         "      %18 = stablehlo.multiply %iterArg_2, %iterArg_2 : tensor<8x128xf32>\n"
         "      stablehlo.return %17, %18 : tensor<i32>, tensor<8x128xf32>\n"
         "    }\n"
         "    %16 = stablehlo.dynamic_slice %15#1, %c, %c, sizes = [8, 128] : (tensor<8x128xf32>, "
         "tensor<i32>, tensor<i32>) -> tensor<8x128xf32>\n"
         "    return %16 : tensor<8x128xf32>\n"
         "  }\n";
}

// A constant of `count` floats as a decimal list or a hex blob.
void AppendConstant(std::string& out, int index, int count, bool hex) {
  std::string n = std::to_string(index);
  std::string type = "tensor<" + std::to_string(count) + "xf32>";
  out += "  func.func private @weights" + n + "() -> " + type + " {\n    %0 = stablehlo.constant dense<";
  if (hex) {
    out += "\"0x";
    for (int i = 0; i < count; ++i) out += "3F8CCCCD";
    out += '"';
  } else {
    out += '[';
    char buf[32];
    for (int i = 0; i < count; ++i) {
      std::snprintf(buf, sizeof(buf), "%s%.6e", i ? ", " : "", 0.001 * (i % 1000) - 0.5);
      out += buf;
    }
    out += ']';
  }
  out += "> : " + type + "\n    return %0 : " + type + "\n  }\n";
}

std::string MakeLargeModule() {
  std::string out =
      "#loc1 = loc(\"model.py\":10:3)\n"
      "module @jit_model attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n";
  AppendConstant(out, 0, 250000, false);  // ~3.3 MB of decimals
  AppendConstant(out, 1, 250000, true);   // 2 MB of hex
  int i = 0;
  while (out.size() < 10u * 1024 * 1024) AppendFunction(out, i++);
  out += "}\n#loc3 = loc(\"jit(model)/dot_general\"(#loc1))\n";
  return out;
}

void BM_ParseLarge(benchmark::State& state) {
  static const std::string text = MakeLargeModule();
  berth::stablehlo::ParseOptions options;
  options.verify = true;
  for (auto _ : state) {
    auto module = berth::stablehlo::ParseModule(text, "large.mlir", options);
    if (!module.ok()) {
      state.SkipWithError(module.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(module);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
  state.counters["module_MB"] = static_cast<double>(text.size()) / (1024.0 * 1024.0);
}
BENCHMARK(BM_ParseLarge)->Unit(benchmark::kMillisecond);

}  // namespace
