// How the cuda plugin runs a program: the entry function's ops as steps,
// chains of elementwise ops fused into generated kernels (elementwise_codegen).
//
// Planned today: constants, the elementwise ops, data movement folded into
// the loads of the kernels that read it (transpose, broadcast_in_dim,
// reshape, slice, reverse, iota: no copy is made unless the function returns
// the moved value) and func.return. A chain ends where the element count
// changes or where an op reads, through data movement, a value the chain
// itself computes (that value is written out, and the next kernel reads it).
// stablehlo.reduce with an elementwise body, concatenate, pad,
// dynamic_slice, dynamic_update_slice, gather and dot_general are kernels of
// their own (one output element per thread), as is triangular_solve (one
// solved column or row per thread).
// The test harness's comparing check ops (check.expect_eq, ..._const) are
// steps that copy the checked value to the host; the execution compares
// it there once its work is done (berth/stablehlo/interpreter_check.hpp)
// and fails with the first check that does not hold.
// Every other op is UNIMPLEMENTED naming it and its location (the
// library-backed kernels of issue 20 - cuBLASLt for GEMM-shaped dots, cuDNN,
// cuFFT, CUB, gather/scatter, control flow - are not written yet).
#ifndef BERTH_PLUGINS_CUDA_CUDA_PLAN_HPP_
#define BERTH_PLUGINS_CUDA_CUDA_PLAN_HPP_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "berth/stablehlo/interpreter_check.hpp"
#include "berth/stablehlo/ir.hpp"
#include "berth/status.hpp"
#include "codegen/elementwise_codegen.hpp"

namespace berth::cuda {

struct PlanStep {
  enum class Kind { kConstant, kFused, kCheck };
  Kind kind = Kind::kConstant;
  const stablehlo::Operation* op = nullptr;  // kConstant: the constant; kCheck: the check
  FusedKernel fused;                         // kFused
  std::string source;                        // kFused: the kernel's CUDA C
  // kCheck: the comparison, and for the _const forms the expected literal
  // (dense, row-major; shared with executions that compare after the
  // executable is gone). The checked values are the op's operands.
  stablehlo::CheckSpec check;
  std::shared_ptr<const std::vector<uint8_t>> expected;
};

struct CudaPlan {
  const stablehlo::Function* entry = nullptr;
  std::vector<PlanStep> steps;
  int fused_ops = 0;  // ops inside fused kernels
};

// Plans function `entry_name` of `module` (empty: Module::entry_function). The module must have been verified.
Result<CudaPlan> PlanCudaProgram(const stablehlo::Module& module, std::string_view entry_name);

}  // namespace berth::cuda

#endif  // BERTH_PLUGINS_CUDA_CUDA_PLAN_HPP_
