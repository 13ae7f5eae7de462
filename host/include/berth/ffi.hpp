// Custom-call handlers and host callbacks written in C++ against the host API
// (Client::RegisterFfiHandler, Client::RegisterHostCallback), and the events
// of the callback extension (Client::AddEventCallback).
//
//   client.RegisterFfiHandler("my.scale", [](berth::FfiCall& call) -> berth::Status {
//     if (call.operand_type(0) != berth::ElementType::kF32) return InvalidArgumentError(...);
//     if (call.preparing()) return berth::OkStatus();   // compile time: types only
//     auto in = call.operand<float>(0);
//     auto out = call.result<float>(0);
//     for (size_t i = 0; i < in.size(); ++i) out[i] = 2 * in[i];
//     return berth::OkStatus();
//   });
#ifndef BERTH_FFI_HPP_
#define BERTH_FFI_HPP_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "berth/api.hpp"
#include "berth/c_api.h"
#include "berth/element_type.hpp"
#include "berth/ext/abi_version.h"
#include "berth/ext/callback.h"
#include "berth/ext/ffi.h"
#include "berth/status.hpp"

namespace berth {

// A view of one call frame; valid during the handler call only.
class BERTH_API FfiCall {
 public:
  explicit FfiCall(const BERTH_Ffi_CallFrame& frame) : frame_(frame) {}

  // True at compile time (types and dims only, no data).
  bool preparing() const { return frame_.stage == BERTH_Ffi_Stage_Prepare; }
  std::string_view target() const { return {frame_.target, frame_.target_size}; }
  std::string_view platform() const { return {frame_.platform, frame_.platform_size}; }

  size_t num_operands() const { return frame_.num_operands; }
  size_t num_results() const { return frame_.num_results; }
  ElementType operand_type(size_t i) const { return TypeOf(frame_.operands[i]); }
  ElementType result_type(size_t i) const { return TypeOf(frame_.results[i]); }
  std::span<const int64_t> operand_dims(size_t i) const { return DimsOf(frame_.operands[i]); }
  std::span<const int64_t> result_dims(size_t i) const { return DimsOf(frame_.results[i]); }

  // Element data (empty while preparing). T must match the element type.
  template <typename T>
  std::span<const T> operand(size_t i) const {
    const BERTH_Ffi_Buffer& b = frame_.operands[i];
    return {static_cast<const T*>(b.data), b.data ? b.size_in_bytes / sizeof(T) : 0};
  }
  template <typename T>
  std::span<T> result(size_t i) const {
    const BERTH_Ffi_Buffer& b = frame_.results[i];
    return {static_cast<T*>(b.data), b.data ? b.size_in_bytes / sizeof(T) : 0};
  }

  // Attributes of the custom call (ffi.h: backend_config entries included).
  std::optional<int64_t> IntAttribute(std::string_view name) const;
  std::optional<double> FloatAttribute(std::string_view name) const;  // ints convert
  std::optional<std::string_view> StringAttribute(std::string_view name) const;
  std::optional<bool> BoolAttribute(std::string_view name) const;

  const BERTH_Ffi_CallFrame& frame() const { return frame_; }

 private:
  static ElementType TypeOf(const BERTH_Ffi_Buffer& b) { return static_cast<ElementType>(b.element_type); }
  static std::span<const int64_t> DimsOf(const BERTH_Ffi_Buffer& b) { return {b.dims, b.num_dims}; }
  const BERTH_NamedValue* Find(std::string_view name) const;

  const BERTH_Ffi_CallFrame& frame_;
};

// Returns OK or an error; the error's code and message reach the program's
// caller (at compile time while preparing). Exceptions become INTERNAL.
using FfiHandler = std::function<Status(FfiCall& call)>;

struct ClientEvent {
  enum class Kind { kExecutionFinished, kExecutionFailed, kPluginFatal };
  Kind kind = Kind::kExecutionFinished;
  std::string_view executable_name;  // empty for kPluginFatal
  int64_t device_id = -1;
  Status status;  // OK for kExecutionFinished
};

// Runs on a plugin thread; must not block or use the client.
using EventCallback = std::function<void(const ClientEvent& event)>;

// Runtime and executable ABI versions (the abi_version extension).
struct AbiVersions {
  BERTH_AbiVersion_Number runtime{};
  BERTH_AbiVersion_Number newest_executable{};
};

}  // namespace berth

#endif  // BERTH_FFI_HPP_
