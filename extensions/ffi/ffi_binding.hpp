// Plain C functions bound to custom-call targets through libffi, as an FFI
// extension module's manifest declares them in "functions" (see README.md).
// ParseFfiFunctions reads the declarations; a BoundFunction calls one
// resolved symbol for a custom call frame, at both stages.
#ifndef BERTH_EXTENSIONS_FFI_FFI_BINDING_HPP_
#define BERTH_EXTENSIONS_FFI_FFI_BINDING_HPP_

#include <ffi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "berth/element_type.hpp"
#include "berth/ext/ffi.h"
#include "berth/status.hpp"

namespace berth::ext::ffi {

// The most C parameters one binding may declare.
inline constexpr size_t kMaxParams = 64;

// What the bound C function returns.
enum class ReturnKind {
  kVoid,       // "void"
  kI32Status,  // "i32-status": int32_t, non-zero is a failure
};

// The C type of a scalar parameter (size, attr, const).
enum class ScalarType { kI32, kI64, kF32, kF64 };

// Where one C parameter's value comes from.
enum class ParamRole {
  kOperand,      // "operand:K[:TYPE]": const void*, operand K's data
  kResult,       // "result:K[:TYPE]": void*, result K's data
  kOperandSize,  // "size:operand:K[:i32|:i64]": operand K's element count
  kResultSize,   // "size:result:K[:i32|:i64]": result K's element count
  kAttr,         // "attr:NAME:TYPE": a scalar attribute of the custom call
  kConst,        // "const:TYPE:VALUE": a value fixed by the manifest
};

// One parsed entry of "params".
struct ParamSpec {
  ParamRole role = ParamRole::kOperand;
  std::string text;  // the declaration as written, for messages
  size_t index = 0;  // the operand or result: kOperand, kResult, k*Size
  // kOperand, kResult: the element type the buffer must have, when declared.
  std::optional<ElementType> element_type;
  ScalarType scalar_type = ScalarType::kI64;  // k*Size, kAttr, kConst
  std::string attr_name;                      // kAttr
  int64_t int_value = 0;                      // kConst with kI32 or kI64
  double float_value = 0;                     // kConst with kF32 or kF64
};

// "result_init": copy an operand's bytes into a result before the call.
struct ResultInit {
  size_t result = 0;
  size_t operand = 0;
};

// One parsed entry of "functions".
struct FunctionSpec {
  std::string target;  // the custom call target name
  std::string symbol;  // the C function's name in the module's library
  ReturnKind return_kind = ReturnKind::kVoid;
  std::vector<ParamSpec> params;        // one per C parameter, in order
  std::vector<ResultInit> result_init;  // in increasing result order
};

// Parses a manifest's "functions" array. `where` is the manifest's path;
// every error is INVALID_ARGUMENT and reads "manifest <where>:
// functions[i].<field>: ...". Targets must be unique within the list.
Result<std::vector<FunctionSpec>> ParseFfiFunctions(const nlohmann::json& functions,
                                                    std::string_view where);

// A FunctionSpec bound to its C function, with the libffi call interface
// prepared once. Call() is safe from any number of threads at once. Not
// movable: the prepared interface points into the object.
//
// Errors, reported through frame->report_error with the target and the
// parameter named: INVALID_ARGUMENT when the frame does not fit the binding
// (missing operand/result/attribute, element type, unconvertible attribute,
// an i32 size that overflows, result_init sizes); INTERNAL when the function
// returns a non-zero status, or on an unexpected failure inside the binding.
class BoundFunction {
 public:
  // `symbol` is the function's address, resolved by the caller from a library
  // it keeps loaded for as long as the BoundFunction lives.
  static Result<std::unique_ptr<BoundFunction>> Create(FunctionSpec spec, void* symbol);

  BoundFunction(const BoundFunction&) = delete;
  BoundFunction& operator=(const BoundFunction&) = delete;

  // Runs one stage for `frame`: PREPARE checks the frame against the binding;
  // EXECUTE checks the same, applies result_init and calls the function.
  BERTH_Error_Code Call(BERTH_Ffi_CallFrame* frame) const noexcept;

  const FunctionSpec& spec() const { return spec_; }

 private:
  BoundFunction(FunctionSpec spec, void* symbol) : spec_(std::move(spec)), symbol_(symbol) {}

  BERTH_Error_Code CallOrThrow(BERTH_Ffi_CallFrame* frame) const;

  FunctionSpec spec_;
  void* symbol_;
  std::array<ffi_type*, kMaxParams> arg_types_{};
  ffi_cif cif_{};
};

}  // namespace berth::ext::ffi

extern "C" {

// The BERTH_Ffi_Handler to register for a bound function: handler_data is the
// BoundFunction* (borrowed for the call). INTERNAL when handler_data is NULL.
BERTH_Error_Code BERTH_FfiBinding_Handler(BERTH_Ffi_CallFrame* frame);

// The BERTH_Ffi_ReleaseData that deletes a BoundFunction* handler_data, for a
// registrant that hands the client ownership (unique_ptr::release()).
void BERTH_FfiBinding_ReleaseData(void* handler_data);

}  // extern "C"

#endif  // BERTH_EXTENSIONS_FFI_FFI_BINDING_HPP_
