// What the cuda plugin's generated kernels compute, without a GPU: each
// family of kernel_families.hpp, generated at build time and compiled as
// host C++ (kernel_host_shim.hpp), runs on seeded random inputs - random bit
// patterns (NaN, inf, subnormals, extremes) mixed with small and boundary
// values - and must give the cpu plugin's results for the same program: bit
// for bit, except the transcendental functions, which may differ by a few
// ulps between math libraries. This checks the code generator's prelude
// (f16/bf16 rounding, saturating converts, integer division by zero, shifts
// past the width, NaN-propagating maximum, total order) and its expressions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "berth/stablehlo/parser.hpp"
#include "cuda_plan.hpp"
#include "family_check.hpp"
#include "host_kernels.hpp"
#include "kernel_families.hpp"

namespace berth::cuda {
namespace {

const testing::HostKernel* FindHostKernel(const std::string& family) {
  for (size_t i = 0; i < testing::kNumHostKernels; ++i) {
    if (family == testing::kHostKernels[i].family) return &testing::kHostKernels[i];
  }
  return nullptr;
}

void CheckFamily(const testing::KernelFamily& family, uint64_t seed) {
  const std::string text = family.program.Text();
  Result<stablehlo::Module> module = stablehlo::ParseModule(text, family.name);
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  Result<CudaPlan> plan = PlanCudaProgram(*module, "");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->steps.size(), 1u);
  const FusedKernel& kernel = plan->steps[0].fused;
  const testing::HostKernel* host = FindHostKernel(family.name);
  ASSERT_NE(host, nullptr) << "no host kernel generated for " << family.name;

  const stablehlo::Block& block = plan->entry->entry_block();
  std::vector<berth::testing::Literal> args = testing::RandomArguments(block, seed);
  Result<std::vector<berth::testing::Literal>> expected =
      berth::testing::CpuRunner::Get().Run(text, args);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();

  std::vector<void*> addresses;
  for (const stablehlo::Value* input : kernel.inputs)
    addresses.push_back(args[input->index()].bytes.data());
  std::vector<std::vector<std::byte>> outputs;
  for (const stablehlo::Value* output : kernel.outputs) {
    outputs.emplace_back(static_cast<size_t>(kernel.num_elements) *
                         testing::ElementBytes(output->type().element_type()));
  }
  for (std::vector<std::byte>& output : outputs) addresses.push_back(output.data());
  long long n = kernel.num_elements;
  addresses.push_back(&n);
  host->invoke(addresses.data());

  // The families return each kernel output once, in the kernel's order.
  ASSERT_EQ(outputs.size(), block.terminator()->num_operands());
  int mismatches = 0;
  for (size_t j = 0; j < outputs.size(); ++j) {
    ASSERT_EQ(block.terminator()->operand(j), kernel.outputs[j]);
    mismatches +=
        testing::CompareReturned(family.name, block, j, args, outputs[j], (*expected)[j].bytes,
                                 family.transcendental ? 4 : 0, family.transcendental ? 1 : 0);
  }
  EXPECT_EQ(mismatches, 0) << family.name;
}

class CudaKernelSemanticsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaKernelSemanticsTest, GeneratedKernelMatchesTheCpuPlugin) {
  for (const testing::KernelFamily& family : testing::KernelFamilies()) {
    if (family.name != GetParam()) continue;
    for (uint64_t seed : {20261207u, 7u, 99u}) {
      SCOPED_TRACE("seed " + std::to_string(seed));
      CheckFamily(family, seed);
    }
    return;
  }
  FAIL() << "no family " << GetParam();
}

std::vector<std::string> FamilyNames() {
  std::vector<std::string> names;
  for (const testing::KernelFamily& family : testing::KernelFamilies())
    names.push_back(family.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Families, CudaKernelSemanticsTest, ::testing::ValuesIn(FamilyNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace berth::cuda
