#include "interpreter/kernel.hpp"

namespace berth::cpu {

void KernelRegistry::Register(stablehlo::OpKind kind, KernelFn fn) {
  kernels_[static_cast<int>(kind)] = fn;
}

KernelFn KernelRegistry::Find(stablehlo::OpKind kind) const {
  int index = static_cast<int>(kind);
  return index >= 0 && index < stablehlo::kNumOpKinds ? kernels_[index] : nullptr;
}

namespace {

KernelRegistry& Registry() {
  static KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
    RegisterStructuralKernels(*r);
    RegisterCollectiveKernels(*r);
    RegisterCheckKernels(*r);
    RegisterCustomCallKernels(*r);
    RegisterElementwiseKernels(*r);
    RegisterDataMovementKernels(*r);
    RegisterReductionKernels(*r);
    return r;
  }();
  return *registry;
}

}  // namespace

KernelFn FindKernel(stablehlo::OpKind kind) { return Registry().Find(kind); }

}  // namespace berth::cpu
