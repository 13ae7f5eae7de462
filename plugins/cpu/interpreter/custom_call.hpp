// stablehlo.custom_call targets the cpu plugin knows. Targets are looked up
// when a program is compiled, so an unknown target fails at compile time
// naming it. Other targets are FFI handlers and host callbacks (ffi_call.hpp),
// resolved per call site when the program is compiled.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_CUSTOM_CALL_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_CUSTOM_CALL_HPP_

#include <string_view>

#include "interpreter/kernel.hpp"

namespace berth::cpu {

// True for the targets the cpu plugin implements itself (check.*).
bool IsBuiltinCustomCall(std::string_view target);

// OK when the op's call_target_name is built in; else UNIMPLEMENTED
// "custom call target 'x' is not registered with the cpu plugin".
Status ValidateCustomCall(const stablehlo::Operation& op);

void RegisterCustomCallKernels(KernelRegistry& registry);

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_CUSTOM_CALL_HPP_
