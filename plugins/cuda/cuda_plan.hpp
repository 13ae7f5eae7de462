// How the cuda plugin runs a program: the entry function's ops as steps,
// chains of elementwise ops fused into generated kernels (elementwise_codegen).
//
// Planned today: constants, the elementwise ops, data movement folded into
// the loads of the kernels that read it (transpose, broadcast_in_dim,
// reshape, slice, reverse, iota: no copy is made unless the function returns
// the moved value) and func.return. A chain ends where the element count
// changes or where an op reads, through data movement, a value the chain
// itself computes (that value is written out, and the next kernel reads it).
// stablehlo.reduce and reduce_window with elementwise bodies, concatenate, pad,
// dynamic_slice, dynamic_update_slice, gather and dot_general are kernels of
// their own (one output element per thread), as is triangular_solve (one
// solved column or row per thread), scatter and select_and_scatter (one
// thread applying the updates in order); fft is a kernel of a launch per
// transformed dimension.
// while, if, case and func.call are steps holding their regions' plans (a
// call's region is the callee's body, planned per call site; a region's
// operands and returned views written out); a value defined outside a
// region is read inside as it is outside (in memory or through its view).
// The test harness's comparing check ops (check.expect_eq, ..._const) are
// steps that copy the checked value to the host; the execution compares
// it there once its work is done (berth/stablehlo/interpreter_check.hpp)
// and fails with the first check that does not hold. interpreter.probe
// copies its operand to the host too, for check.expect_serialized_eq.
// interpreter.run_parallel is a step holding each program instance's plan
// and the order the instances and their collectives' meetings run in on the
// one device (parallel_schedule.hpp); a collective of a program running
// alone is a kernel of a group of one.
// Every other op is UNIMPLEMENTED naming it and its location (the
// library-backed kernels of issue 20 - cuBLASLt for GEMM-shaped dots, cuDNN,
// cuFFT, CUB sort - are not written yet).
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

struct PlanStep;

// The steps of one block of a region (a loop's condition or body, a branch).
struct BlockPlan {
  const stablehlo::Block* block = nullptr;
  std::vector<PlanStep> steps;
};

struct PlanStep {
  enum class Kind {
    kConstant,
    kFused,
    kCheck,
    kControlFlow,
    kParallel,
    kCollective,
    kProbe,
    kPrint
  };
  Kind kind = Kind::kConstant;
  const stablehlo::Operation* op = nullptr;  // kConstant: the constant; kCheck: the check
  // kConstant: when set, the value's bytes (replica_id and partition_id of
  // a run_parallel instance, get_dimension_size, chlo.constant_like);
  // otherwise the constant op's dense value.
  std::shared_ptr<const std::vector<uint8_t>> literal;
  FusedKernel fused;   // kFused
  std::string source;  // kFused: the kernel's CUDA C
  // kFused, a collective of run_parallel's instances (a meeting): for each
  // kernel parameter - inputs, then outputs - the instance whose value it
  // is. Empty: every parameter is a value of the step's own block.
  std::vector<size_t> instances;
  // kCheck: the comparison, and for the _const forms the expected literal
  // (dense, row-major; shared with executions that compare after the
  // executable is gone). The checked values are the op's operands.
  stablehlo::CheckSpec check;
  std::shared_ptr<const std::vector<uint8_t>> expected;
  // kPrint: `op` is an interpreter.print, whose operand is copied to the
  // host and written to standard output (PrintText) when the execution's
  // work is done, in program order.
  // kProbe: `op` is an interpreter.probe, whose operand is copied to the
  // host and kept as the next iteration of `probe_id` (its result reads as
  // its operand). kCheck of a check.expect_serialized_eq: its operand is
  // compared with iteration `probe_iteration` of `probe_id`, as probed
  // before it. `probe_scope` names the run_parallel instance whose probes
  // they are ("" outside run_parallel): each instance has its own.
  std::string probe_id;
  std::string probe_scope;
  int64_t probe_iteration = 0;
  // kControlFlow: `op` is a while (regions: condition, body), if (true and
  // false branch), case (the branches) or func.call or composite (the
  // callee's body or decomposition, planned for this call site), each
  // region's block planned. The executable reads the predicate or index on
  // the host (waiting for the device) and runs the region it names.
  //
  // kParallel: `op` is an interpreter.run_parallel; `regions` holds each
  // program instance's function body planned for its place in the grid
  // (replica-major), each instance with values of its own. The instances
  // run on the one device in the order `schedule` says: an instance's own
  // step, or one of `meetings`, the kernels of a collective as every member
  // of its process group meets it. Built at plan time (ScheduleInstances):
  // collectives over several instances are steps of their function's body,
  // not inside control flow.
  // kCollective: a collective over several instances, a send or a recv,
  // in an instance's body: run as part of a meeting (a send: of the recv
  // that takes its values), never by itself.
  std::vector<BlockPlan> regions;
  struct Scheduled {
    bool meeting = false;  // meetings[step], else regions[instance].steps[step]
    size_t instance = 0;
    size_t step = 0;
  };
  std::vector<Scheduled> schedule;
  std::vector<PlanStep> meetings;
};

struct CudaPlan {
  const stablehlo::Function* entry = nullptr;
  std::vector<PlanStep> steps;  // of the entry function's block
  int fused_ops = 0;            // ops inside fused kernels
  int num_kernels = 0;          // kernels are named berth_fused_0 ... in every block
};

// The value of a rank-0 i1 or integer of `type` stored at `data` (i1: 0 or
// 1; unsigned values above the largest i64 saturate), as the control flow
// steps read their predicate or index.
int64_t ScalarIndex(stablehlo::ElementType type, const void* data);

// The region an if or case op runs for its predicate or index `selector`:
// if, the first (true) or second; case, branch `selector`, the last one
// when out of range.
size_t BranchOf(const stablehlo::Operation& op, int64_t selector);

// What interpreter.print `print` writes for its operand's dense storage
// `data`: "%NAME = " and the value as the reference interpreter prints it
// (berth/stablehlo/interpreter_output.hpp), then a newline.
std::string PrintText(const stablehlo::Operation& print, const void* data);

// Plans function `entry_name` of `module` (empty: Module::entry_function). The module must have been verified.
Result<CudaPlan> PlanCudaProgram(const stablehlo::Module& module, std::string_view entry_name);

}  // namespace berth::cuda

#endif  // BERTH_PLUGINS_CUDA_CUDA_PLAN_HPP_
