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

#include <cmath>
#include <cstring>
#include <random>

#include "berth/stablehlo/parser.hpp"
#include "cuda_plan.hpp"
#include "host_kernels.hpp"
#include "kernel_families.hpp"
#include "program_runner.hpp"

namespace berth::cuda {
namespace {

using stablehlo::ElementType;

size_t ElementBytes(ElementType type) {
  switch (type) {
    case ElementType::kI1:
    case ElementType::kSI8:
    case ElementType::kUI8: return 1;
    case ElementType::kSI16:
    case ElementType::kUI16:
    case ElementType::kF16:
    case ElementType::kBF16: return 2;
    case ElementType::kSI32:
    case ElementType::kUI32:
    case ElementType::kF32: return 4;
    default: return 8;
  }
}

bool IsFloatElement(ElementType type) {
  return type == ElementType::kF16 || type == ElementType::kBF16 || type == ElementType::kF32 ||
         type == ElementType::kF64;
}

// Random storage for `count` elements of `type`.
std::vector<std::byte> RandomElements(ElementType type, size_t count, std::mt19937_64& rng) {
  const size_t size = ElementBytes(type);
  std::vector<std::byte> bytes(count * size);
  std::uniform_int_distribution<int> pick(0, 9);
  std::uniform_int_distribution<int> small(-4, 9);
  for (size_t i = 0; i < count; ++i) {
    uint64_t bits = rng();
    const int kind = pick(rng);
    if (type == ElementType::kI1) {
      bits &= 1;
    } else if (!IsFloatElement(type)) {
      if (kind < 4)
        bits = static_cast<uint64_t>(static_cast<int64_t>(small(rng)));  // small, shifts, divisors
      if (kind == 4) bits = uint64_t{1} << (size * 8 - 1);               // the signed minimum
      if (kind == 5) bits = (uint64_t{1} << (size * 8 - 1)) - 1;         // the signed maximum
    } else if (kind < 5) {
      // Ordinary values: small integers and halves, moderate magnitudes.
      double value = kind < 2 ? small(rng) * 0.5
                              : std::ldexp(std::uniform_real_distribution<double>(-2, 2)(rng),
                                           static_cast<int>(rng() % 40) - 20);
      if (kind == 4)
        value = std::ldexp(static_cast<double>(static_cast<int64_t>(rng())),
                           -static_cast<int>(rng() % 40));
      if (type == ElementType::kF64) {
        std::memcpy(&bits, &value, 8);
      } else {
        const float f = static_cast<float>(value);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        // f16/bf16: a float that is exactly one (truncate the bits for bf16;
        // for f16 use the value's float bits only when representable).
        if (type == ElementType::kBF16) b >>= 16;
        if (type == ElementType::kF16) b = static_cast<uint32_t>(rng());  // bit patterns suffice
        bits = b;
      }
    }
    std::memcpy(bytes.data() + i * size, &bits, size);  // little-endian: the low bytes
  }
  return bytes;
}

// Distance in ulps between two finite floats of the same sign (as ordered bit patterns).
int64_t OrderedBits(ElementType type, const std::byte* p) {
  int64_t value = 0;
  const size_t size = ElementBytes(type);
  uint64_t bits = 0;
  std::memcpy(&bits, p, size);
  const uint64_t sign = uint64_t{1} << (size * 8 - 1);
  value = (bits & sign) ? -static_cast<int64_t>(bits & (sign - 1)) : static_cast<int64_t>(bits);
  return value;
}

bool IsNan(ElementType type, const std::byte* p) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, ElementBytes(type));
  switch (type) {
    case ElementType::kF16: return (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0;
    case ElementType::kBF16: return (bits & 0x7f80) == 0x7f80 && (bits & 0x7f) != 0;
    case ElementType::kF32: return (bits & 0x7f800000) == 0x7f800000 && (bits & 0x7fffff) != 0;
    case ElementType::kF64:
      return (bits & 0x7ff0000000000000) == 0x7ff0000000000000 && (bits & 0xfffffffffffff) != 0;
    default: return false;
  }
}

std::string Hex(ElementType type, const std::byte* p) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, ElementBytes(type));
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(bits));
  return text;
}

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

  std::mt19937_64 rng(seed);
  const stablehlo::Block& block = plan->entry->entry_block();
  std::vector<berth::testing::Literal> args;
  for (const stablehlo::Value* arg : block.arguments()) {
    const stablehlo::Type type = arg->type();
    berth::testing::Literal literal;
    literal.type = *ParseElementType(stablehlo::ElementTypeName(type.element_type()));
    literal.dims.assign(type.shape().begin(), type.shape().end());
    literal.bytes =
        RandomElements(type.element_type(), static_cast<size_t>(type.NumElements()), rng);
    args.push_back(std::move(literal));
  }
  Result<std::vector<berth::testing::Literal>> expected =
      berth::testing::CpuRunner::Get().Run(text, args);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();

  std::vector<void*> addresses;
  for (const stablehlo::Value* input : kernel.inputs) {
    addresses.push_back(args[input->index()].bytes.data());
  }
  std::vector<std::vector<std::byte>> outputs;
  for (const stablehlo::Value* output : kernel.outputs) {
    outputs.emplace_back(static_cast<size_t>(kernel.num_elements) *
                         ElementBytes(output->type().element_type()));
  }
  for (std::vector<std::byte>& output : outputs) addresses.push_back(output.data());
  long long n = kernel.num_elements;
  addresses.push_back(&n);
  host->invoke(addresses.data());

  const stablehlo::Operation* terminator = block.terminator();
  int mismatches = 0;
  for (size_t j = 0; j < kernel.outputs.size(); ++j) {
    const stablehlo::Value* output = kernel.outputs[j];
    size_t returned = 0;
    while (terminator->operand(returned) != output) ++returned;
    const ElementType type = output->type().element_type();
    const std::vector<std::byte>& want = (*expected)[returned].bytes;
    ASSERT_EQ(want.size(), outputs[j].size());
    const size_t size = ElementBytes(type);
    const stablehlo::Operation* op = output->defining_op();
    for (size_t e = 0; e < static_cast<size_t>(kernel.num_elements); ++e) {
      const std::byte* got = outputs[j].data() + e * size;
      const std::byte* ref = want.data() + e * size;
      if (std::memcmp(got, ref, size) == 0) continue;
      if (IsFloatElement(type) && IsNan(type, got) && IsNan(type, ref)) continue;
      if (family.transcendental && IsFloatElement(type) && !IsNan(type, got) && !IsNan(type, ref)) {
        const int64_t tolerance = type == ElementType::kF16 || type == ElementType::kBF16 ? 1 : 4;
        if (std::llabs(OrderedBits(type, got) - OrderedBits(type, ref)) <= tolerance) continue;
      }
      if (++mismatches <= 20) {
        std::string operands;
        for (const stablehlo::Value* operand : op->operands()) {
          const berth::testing::Literal& arg = args[operand->index()];
          const size_t arg_size = ElementBytes(operand->type().element_type());
          const size_t at = operand->type().rank() == 0 ? 0 : e;
          operands += " " + Hex(operand->type().element_type(), arg.bytes.data() + at * arg_size);
        }
        ADD_FAILURE() << family.name << ": " << op->name() << " (line " << op->location().line
                      << ", " << output->type().ToString() << ") element " << e << " of operands"
                      << operands << ": generated kernel " << Hex(type, got) << ", cpu plugin "
                      << Hex(type, ref);
      }
    }
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
