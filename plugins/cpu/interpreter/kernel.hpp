// What an op's kernel sees while a program runs, and the kernel registry.
//
// A kernel computes one op: it reads `call.operands`, fills `call.results`
// (one Tensor per op result) and returns OK or an error; the interpreter puts
// the op's location and name before the error's message. Ops
// with regions run them through `call.RunRegion`. Kernels are registered per
// family (see kernel_registry.cc); compiling a program whose op has no
// kernel fails with UNIMPLEMENTED naming the op and its location.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_KERNEL_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_KERNEL_HPP_

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "berth/stablehlo/ir.hpp"
#include "berth/status.hpp"
#include "interpreter/tensor.hpp"
#include "thread_pool.hpp"

namespace berth::cpu {

class CollectiveGroup;
class ExecContext;
class ProgramPlan;
struct Frame;

// Where one instance of a program runs: its place in the replica x
// partition grid and the launch-wide collective group.
struct DeviceContext {
  int64_t replica_id = 0;
  int64_t partition_id = 0;
  int64_t num_replicas = 1;
  int64_t num_partitions = 1;
  int64_t device_id = 0;  // global id of the device running this instance
  // Global device id of (replica r, partition p) at r * num_partitions + p.
  std::vector<int64_t> device_assignment;
  // Shared by every instance of one launch; NULL when the program runs alone.
  CollectiveGroup* collectives = nullptr;
};

struct KernelCall {
  const stablehlo::Operation& op;
  std::span<const Tensor> operands;
  std::vector<Tensor>& results;
  ExecContext& ctx;
  const Frame* frame;  // the frame `op` runs in

  // Runs region `index` of the op with `args` bound to its block arguments;
  // the region sees the values of the enclosing frames.
  Result<std::vector<Tensor>> RunRegion(size_t index, std::span<const Tensor> args) const;
};

using KernelFn = Status (*)(KernelCall& call);

// Runs programs of one compiled module for one device instance.
class ExecContext {
 public:
  ExecContext(const ProgramPlan& plan, ThreadPool* pool, DeviceContext device)
      : plan_(plan), pool_(pool), device_(std::move(device)) {}

  const ProgramPlan& plan() const { return plan_; }
  ThreadPool* pool() const { return pool_; }
  const DeviceContext& device() const { return device_; }

  // Calls function `name` of the module (func.call, composite, run_parallel).
  Result<std::vector<Tensor>> CallFunction(std::string_view name, std::span<const Tensor> args);
  // Runs the entry block of `region` in a frame whose parent is `parent`.
  Result<std::vector<Tensor>> RunRegion(const stablehlo::Region& region,
                                        std::span<const Tensor> args, const Frame* parent);

  // How many collectives of this `kind` (op name and channel) this instance
  // has run before; SPMD instances agree on it, which matches them up.
  int64_t NextCollectiveSequence(const std::string& kind) { return collective_sequence_[kind]++; }

  // The stream number of the next stablehlo.rng this instance runs: 0, 1,
  // 2 ... in execution order (loop iterations included), so an execution
  // is deterministic and repeated rng ops differ (kernels_rng.cc).
  uint64_t NextRngStream() { return rng_streams_++; }

  // interpreter.probe records its operand under its probe_id; check.
  // expect_serialized_eq compares with the `iter`-th value recorded under
  // an id (NULL when there is none) in this instance.
  void RecordProbe(const std::string& id, Tensor value) { probes_[id].push_back(std::move(value)); }
  const Tensor* FindProbe(const std::string& id, int64_t iter) const {
    auto it = probes_.find(id);
    if (it == probes_.end() || iter < 0 || static_cast<size_t>(iter) >= it->second.size()) {
      return nullptr;
    }
    return &it->second[static_cast<size_t>(iter)];
  }

  // Set by another thread (a failed collective peer) to stop this instance at
  // the next op boundary.
  void Cancel(Status reason);
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

 private:
  const ProgramPlan& plan_;
  ThreadPool* pool_;
  DeviceContext device_;
  int depth_ = 0;  // nesting of calls and regions, bounded
  std::map<std::string, int64_t> collective_sequence_;
  uint64_t rng_streams_ = 0;
  std::map<std::string, std::vector<Tensor>> probes_;
  std::atomic<bool> cancelled_{false};
  std::mutex cancel_mutex_;
  Status cancel_reason_;
  friend class Interpreter;
};

// The kernel of an op kind, or NULL when the cpu plugin has none.
KernelFn FindKernel(stablehlo::OpKind kind);

// One op kind and the kernel that runs it.
struct KernelEntry {
  stablehlo::OpKind kind;
  KernelFn fn;
};

// Registration, one function per kernel family (each in its own file).
class KernelRegistry {
 public:
  void Register(stablehlo::OpKind kind, KernelFn fn);
  // A family's kernels in one call: Register({{OpKind::kA, A}, {OpKind::kB, B}}).
  void Register(std::initializer_list<KernelEntry> entries);
  KernelFn Find(stablehlo::OpKind kind) const;

 private:
  KernelFn kernels_[stablehlo::kNumOpKinds] = {};
};

void RegisterStructuralKernels(KernelRegistry& registry);
void RegisterCollectiveKernels(KernelRegistry& registry);
void RegisterCheckKernels(KernelRegistry& registry);
void RegisterCustomCallKernels(KernelRegistry& registry);
void RegisterElementwiseKernels(KernelRegistry& registry);
void RegisterDataMovementKernels(KernelRegistry& registry);
void RegisterReductionKernels(KernelRegistry& registry);  // reduction.cc
void RegisterChloKernels(KernelRegistry& registry);       // kernels_chlo.cc
void RegisterCholeskyKernel(KernelRegistry& registry);    // kernels_cholesky.cc
void RegisterRngKernels(KernelRegistry& registry);        // kernels_rng.cc
void RegisterRaggedDotKernel(KernelRegistry& registry);   // kernels_ragged_dot.cc
void RegisterFftKernel(KernelRegistry& registry);         // kernels_fft.cc
void RegisterTransferKernels(KernelRegistry& registry);   // kernels_transfer.cc

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_KERNEL_HPP_
