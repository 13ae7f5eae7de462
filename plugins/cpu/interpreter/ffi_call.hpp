// Custom calls the cpu plugin hands to registered handlers: FFI targets
// (berth/ext/ffi.h) and host callbacks (`@berth.host_callback` with a
// `callback` attribute, berth/ext/callback.h). A call site is resolved when
// the program is compiled: the handler is looked up (an unknown name fails
// the compile, naming it), the op's attributes are converted once to typed
// values, and the handler's PREPARE stage checks operands and attributes.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_FFI_CALL_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_FFI_CALL_HPP_

#include <memory>
#include <string>
#include <vector>

#include "berth/plugin/extensions.hpp"
#include "berth/stablehlo/custom_call_attributes.hpp"
#include "interpreter/kernel.hpp"

namespace berth::cpu {

// Where custom-call handlers come from: the compiling client's tables.
struct CustomCallTargets {
  const plugin::FfiHandlerTable* ffi = nullptr;
  const plugin::FfiHandlerTable* host_callbacks = nullptr;
  std::string platform = "cpu";
};

class FfiCallSite {
 public:
  // Resolves `op` (a custom_call that is not a built-in target) against
  // `targets` and runs the PREPARE stage. UNIMPLEMENTED for an unknown FFI
  // target, NOT_FOUND for an unknown host callback; the handler's own error
  // for operands it refuses.
  static Result<std::unique_ptr<FfiCallSite>> Resolve(const stablehlo::Operation& op,
                                                      const CustomCallTargets& targets);

  // Runs the handler on the call's operands and fills its results.
  Status Execute(KernelCall& call) const;

 private:
  FfiCallSite() = default;
  Status Prepare(const stablehlo::Operation& op) const;

  std::shared_ptr<const plugin::RegisteredHandler> handler_;
  std::string platform_;
  std::string what_;  // "custom call 'x'" or "host callback 'y'", for messages
  std::unique_ptr<const stablehlo::CustomCallAttributes> attributes_;
};

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_FFI_CALL_HPP_
