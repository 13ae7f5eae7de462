// Generated elementwise kernels: every op the code generator knows on every
// element type it defines the op for (kernel_families.hpp), compiled by
// NVRTC for sm_90 (no GPU needed).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "berth/stablehlo/parser.hpp"
#include "codegen/nvrtc_compiler.hpp"
#include "cuda_plan.hpp"
#include "kernel_families.hpp"

namespace berth::cuda {
namespace {

using ::testing::HasSubstr;

// Compiles each kernel of `steps`, of their regions and of run_parallel's
// meetings for sm_90; counts them.
void CompileAll(const std::vector<PlanStep>& steps, int& compiled) {
  for (const PlanStep& step : steps) {
    for (const BlockPlan& region : step.regions) CompileAll(region.steps, compiled);
    CompileAll(step.meetings, compiled);
    if (step.kind != PlanStep::Kind::kFused) continue;
    Result<std::shared_ptr<const CompiledKernel>> kernel = CompileCudaSource(step.source, 9, 0);
    ASSERT_TRUE(kernel.ok()) << kernel.status().ToString() << "\n" << step.source;
    EXPECT_EQ((*kernel)->cubin.substr(0, 4), std::string("\x7f"
                                                         "ELF",
                                                         4));
    ++compiled;
  }
}

// Parses and plans each family (one kernel where the family says so) and
// compiles each of its kernels (those in regions too) for sm_90.
TEST(CudaCodegenTest, EveryFamilysKernelsCompileWithNvrtcForSm90) {
  for (const testing::KernelFamily& family : testing::KernelFamilies()) {
    SCOPED_TRACE(family.name);
    const std::string text = family.program.Text();
    stablehlo::ParseOptions options;
    options.verify = true;
    Result<stablehlo::Module> module = stablehlo::ParseModule(text, "generated.mlir", options);
    ASSERT_TRUE(module.ok()) << module.status().ToString() << "\n" << text;
    Result<CudaPlan> plan = PlanCudaProgram(*module, "");
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    if (family.one_kernel) {
      ASSERT_EQ(plan->steps.size(), 1u);
      EXPECT_EQ(plan->steps[0].fused.outputs.size(), family.program.num_results());
    }
    int compiled = 0;
    CompileAll(plan->steps, compiled);
    EXPECT_EQ(compiled, plan->num_kernels);
  }
}

// Complex triangular solves (checked for their answers by the suite's
// cases on the host, which do not go through NVRTC): both widths, a
// transpose and an adjoint, compiled for sm_90.
TEST(CudaCodegenTest, ComplexTriangularSolvesCompileWithNvrtcForSm90) {
  const char* text =
      R"(func.func @main(%a: tensor<3x3xcomplex<f32>>, %b: tensor<3x2xcomplex<f32>>, %c: tensor<2x2xcomplex<f64>>, %d: tensor<2x2xcomplex<f64>>) -> (tensor<3x2xcomplex<f32>>, tensor<2x2xcomplex<f64>>) {
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose ADJOINT>} : (tensor<3x3xcomplex<f32>>, tensor<3x2xcomplex<f32>>) -> tensor<3x2xcomplex<f32>>
  %1 = "stablehlo.triangular_solve"(%c, %d) {left_side = false, lower = false, unit_diagonal = true, transpose_a = #stablehlo<transpose TRANSPOSE>} : (tensor<2x2xcomplex<f64>>, tensor<2x2xcomplex<f64>>) -> tensor<2x2xcomplex<f64>>
  return %0, %1 : tensor<3x2xcomplex<f32>>, tensor<2x2xcomplex<f64>>
})";
  Result<stablehlo::Module> module = stablehlo::ParseModule(text, "t.mlir");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  Result<CudaPlan> plan = PlanCudaProgram(*module, "");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  int compiled = 0;
  CompileAll(plan->steps, compiled);
  EXPECT_EQ(compiled, 2);
  EXPECT_THAT(plan->steps[0].source,
              HasSubstr("berth_cdiv(acc, berth_complex(diagonal.re, -diagonal.im))"));
}

// The generated text itself: storage and compute types, rounding of half
// results after every op, the StableHLO helpers for integer division.
TEST(CudaCodegenTest, HalfResultsRoundAfterEveryOpAndIntegersUseTheSpecHelpers) {
  const char* text =
      R"(func.func @main(%a: tensor<8xf16>, %b: tensor<8xf16>, %i: tensor<8xi32>, %j: tensor<8xi32>) -> (tensor<8xf16>, tensor<8xi32>) {
  %0 = stablehlo.add %a, %b : tensor<8xf16>
  %1 = stablehlo.multiply %0, %b : tensor<8xf16>
  %2 = stablehlo.divide %i, %j : tensor<8xi32>
  return %1, %2 : tensor<8xf16>, tensor<8xi32>
})";
  Result<stablehlo::Module> module = stablehlo::ParseModule(text, "t.mlir");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  Result<CudaPlan> plan = PlanCudaProgram(*module, "");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->steps.size(), 1u);
  const std::string& source = plan->steps[0].source;
  EXPECT_THAT(source, HasSubstr("const berth_u16* __restrict__ in0"));
  EXPECT_THAT(source,
              HasSubstr("berth_u16* __restrict__ out0, berth_s32* __restrict__ out1, berth_s64 n"));
  EXPECT_THAT(source, HasSubstr("const float v0 = berth_round_f16((x0 + x1));"));
  EXPECT_THAT(source, HasSubstr("const float v1 = berth_round_f16((v0 * x1));"));
  EXPECT_THAT(source, HasSubstr("berth_idiv<berth_s32>(x2, x3)"));
  EXPECT_THAT(source, HasSubstr("out0[i] = berth_f32_to_f16(v1);"));
}

TEST(CudaCodegenTest, NvrtcCompilesEachSourceOncePerArchitecture) {
  testing::ProgramBuilder program;
  program.Binary("subtract", "f64");
  program.Unary("sqrt", "f64");
  Result<stablehlo::Module> module = stablehlo::ParseModule(program.Text(), "t.mlir");
  ASSERT_TRUE(module.ok());
  Result<CudaPlan> plan = PlanCudaProgram(*module, "");
  ASSERT_TRUE(plan.ok());
  const std::string& source = plan->steps[0].source;
  const NvrtcCacheStats before = NvrtcCacheCounters();
  Result<std::shared_ptr<const CompiledKernel>> first = CompileCudaSource(source, 9, 0);
  Result<std::shared_ptr<const CompiledKernel>> second = CompileCudaSource(source, 9, 0);
  Result<std::shared_ptr<const CompiledKernel>> other_arch = CompileCudaSource(source, 8, 0);
  ASSERT_TRUE(first.ok() && second.ok() && other_arch.ok());
  EXPECT_EQ(first->get(), second->get());
  EXPECT_NE(first->get(), other_arch->get());
  const NvrtcCacheStats after = NvrtcCacheCounters();
  EXPECT_EQ(after.misses - before.misses, 2);
  EXPECT_EQ(after.hits - before.hits, 1);
}

TEST(CudaCodegenTest, SourceNvrtcRefusesIsInternalWithTheLog) {
  Result<std::shared_ptr<const CompiledKernel>> kernel =
      CompileCudaSource("extern \"C\" __global__ void k() { undeclared_thing(); }", 9, 0);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInternal);
  EXPECT_THAT(kernel.status().message(), HasSubstr("undeclared_thing"));
  EXPECT_EQ(CompileCudaSource("", 3, 0).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace berth::cuda
