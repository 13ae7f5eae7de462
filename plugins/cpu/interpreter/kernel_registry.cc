#include "interpreter/kernel.hpp"

namespace berth::cpu {

void KernelRegistry::Register(stablehlo::OpKind kind, KernelFn fn) {
  kernels_[static_cast<int>(kind)] = fn;
}

void KernelRegistry::Register(std::initializer_list<KernelEntry> entries) {
  for (const KernelEntry& entry : entries) Register(entry.kind, entry.fn);
}

KernelFn KernelRegistry::Find(stablehlo::OpKind kind) const {
  int index = static_cast<int>(kind);
  return index >= 0 && index < stablehlo::kNumOpKinds ? kernels_[index] : nullptr;
}

namespace {

// Every family's kernels, registered once. A static object, not a leaked
// pointer, so it goes away when the host unloads the plugin.
struct AllKernels {
  AllKernels() {
    RegisterStructuralKernels(registry);
    RegisterCollectiveKernels(registry);
    RegisterCheckKernels(registry);
    RegisterCustomCallKernels(registry);
    RegisterElementwiseKernels(registry);
    RegisterDataMovementKernels(registry);
    RegisterReductionKernels(registry);
    RegisterChloKernels(registry);
    RegisterCholeskyKernel(registry);
    RegisterRngKernels(registry);
    RegisterRaggedDotKernel(registry);
    RegisterFftKernel(registry);
    RegisterTransferKernels(registry);
  }
  KernelRegistry registry;
};

KernelRegistry& Registry() {
  static AllKernels all;
  return all.registry;
}

}  // namespace

KernelFn FindKernel(stablehlo::OpKind kind) { return Registry().Find(kind); }

}  // namespace berth::cpu
