// stablehlo.custom_call targets the cpu plugin knows. Targets are looked up
// when a program is compiled, so an unknown target fails at compile time
// naming it. The FFI extension adds targets at run time.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_CUSTOM_CALL_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_CUSTOM_CALL_HPP_

#include <string_view>

#include "interpreter/kernel.hpp"

namespace berth::cpu {

// OK when the op's call_target_name has a handler; else UNIMPLEMENTED
// "custom call target 'x' is not registered with the cpu plugin".
Status ValidateCustomCall(const stablehlo::Operation& op);

void RegisterCustomCallKernels(KernelRegistry& registry);

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_CUSTOM_CALL_HPP_
