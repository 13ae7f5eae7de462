// ABI rules (sdk/include/berth/c_api.h): destroy of NULL is a no-op, a
// smaller args struct is INVALID_ARGUMENT, a larger one is accepted, errors
// carry a code and a message, NULL objects are refused.
#include <cstring>
#include <vector>

#include "conformance/suite_context.hpp"

namespace berth::conformance {
namespace {

// Args of type T in a zeroed buffer `extra` bytes longer than T, with
// struct_size saying so: a caller built against a newer minor.
template <typename T>
class Larger {
 public:
  explicit Larger(size_t extra) : bytes_(sizeof(T) + extra) {
    args()->struct_size = sizeof(T) + extra;
  }
  T* args() { return reinterpret_cast<T*>(bytes_.data()); }

 private:
  std::vector<unsigned char> bytes_;  // operator new: aligned for any T
};

void DestroyNullIsNoOp(Context& c, const Emit& emit) {
  const std::string name = "abi.destroy_null_is_noop";
  std::string failures;
  auto check = [&](const char* function, BERTH_Error* error) {
    Status status = c.Take(error, function);
    if (!status.ok()) failures += std::string(failures.empty() ? "" : "; ") + status.ToString();
  };
  if (auto* fn = c.Function(&BERTH_Api::BERTH_Error_Destroy)) {
    BERTH_Error_Destroy_Args args{BERTH_Error_Destroy_Args_STRUCT_SIZE, nullptr, nullptr};
    fn(&args);
  }
  if (auto* fn = c.Function(&BERTH_Api::BERTH_Client_Destroy)) {
    BERTH_Client_Destroy_Args args{BERTH_Client_Destroy_Args_STRUCT_SIZE, nullptr, nullptr};
    check("BERTH_Client_Destroy", fn(&args));
  }
  if (auto* fn = c.Function(&BERTH_Api::BERTH_Buffer_Destroy)) {
    BERTH_Buffer_Destroy_Args args{BERTH_Buffer_Destroy_Args_STRUCT_SIZE, nullptr, nullptr};
    check("BERTH_Buffer_Destroy", fn(&args));
  }
  if (auto* fn = c.Function(&BERTH_Api::BERTH_Event_Destroy)) {
    BERTH_Event_Destroy_Args args{BERTH_Event_Destroy_Args_STRUCT_SIZE, nullptr, nullptr};
    check("BERTH_Event_Destroy", fn(&args));
  }
  if (auto* fn = c.Function(&BERTH_Api::BERTH_Executable_Destroy)) {
    BERTH_Executable_Destroy_Args args{BERTH_Executable_Destroy_Args_STRUCT_SIZE, nullptr, nullptr};
    check("BERTH_Executable_Destroy", fn(&args));
  }
  if (auto* fn = c.Function(&BERTH_Api::BERTH_LoadedExecutable_Destroy)) {
    BERTH_LoadedExecutable_Destroy_Args args{BERTH_LoadedExecutable_Destroy_Args_STRUCT_SIZE,
                                             nullptr, nullptr};
    check("BERTH_LoadedExecutable_Destroy", fn(&args));
  }
  emit(failures.empty() ? Pass(name) : Fail(name, failures));
}

// The error `fn` returns for `args`: its code, or OK.
template <typename Fn, typename Args>
Status Call(const Context& c, Fn* fn, const char* function, Args* args) {
  return c.Take(fn(args), function);
}

// docs/abi.md: a struct smaller than its 1.0 size is INVALID_ARGUMENT naming
// the function (or struct) and both sizes. (No args struct has grown since
// 1.0, so *_STRUCT_SIZE is each one's 1.0 size.)
void SmallerStructRejected(Context& c, const Emit& emit) {
  const std::string name = "abi.smaller_struct_rejected";
  std::string failures;
  auto expect_invalid = [&](const char* function, size_t size_1_0, const Status& status) {
    const std::string given = function + std::string(" with a struct of 8 bytes gave ") +
                              (status.ok() ? std::string("OK") : status.ToString());
    std::string wrong;
    if (status.code() != StatusCode::kInvalidArgument) {
      wrong = ", not INVALID_ARGUMENT";
    } else if (status.message().find(function) == std::string::npos) {
      wrong = ": the message does not name " + std::string(function);
    } else if (status.message().find('8') == std::string::npos ||
               status.message().find(std::to_string(size_1_0)) == std::string::npos) {
      wrong = ": the message does not give both sizes (8 and " + std::to_string(size_1_0) + ")";
    }
    if (!wrong.empty()) failures += (failures.empty() ? "" : "; ") + given + wrong;
  };
  BERTH_Client* client = c.client->c_client();
  if (auto* fn = c.Function(&BERTH_Api::BERTH_Client_PlatformName)) {
    BERTH_Client_PlatformName_Args args{};
    args.struct_size = 8;
    args.client = client;
    expect_invalid("BERTH_Client_PlatformName", BERTH_Client_PlatformName_Args_STRUCT_SIZE,
                   Call(c, fn, "BERTH_Client_PlatformName", &args));
  }
  if (auto* fn = c.Function(&BERTH_Api::BERTH_Client_Devices)) {
    BERTH_Client_Devices_Args args{};
    args.struct_size = 8;
    args.client = client;
    expect_invalid("BERTH_Client_Devices", BERTH_Client_Devices_Args_STRUCT_SIZE,
                   Call(c, fn, "BERTH_Client_Devices", &args));
  }
  if (auto* fn = c.Function(&BERTH_Api::BERTH_Client_Create)) {
    BERTH_Client_Create_Args args{};
    args.struct_size = 8;
    Status status = Call(c, fn, "BERTH_Client_Create", &args);
    expect_invalid("BERTH_Client_Create", BERTH_Client_Create_Args_STRUCT_SIZE, status);
    if (args.client != nullptr) {
      failures += std::string(failures.empty() ? "" : "; ") +
                  "BERTH_Client_Create refused a small struct but still made a client";
    }
  }
  emit(failures.empty() ? Pass(name) : Fail(name, failures));
}

void LargerStructAccepted(Context& c, const Emit& emit) {
  const std::string name = "abi.larger_struct_accepted";
  auto* fn = c.Function(&BERTH_Api::BERTH_Client_PlatformName);
  if (fn == nullptr) return emit(Skip(name, "no BERTH_Client_PlatformName"));
  Larger<BERTH_Client_PlatformName_Args> larger(64);
  larger.args()->client = c.client->c_client();
  Status status = Call(c, fn, "BERTH_Client_PlatformName", larger.args());
  if (!status.ok()) return emit(Fail(name, "a struct 64 bytes larger was refused: " + status.ToString()));
  std::string platform(larger.args()->platform_name ? larger.args()->platform_name : "",
                       larger.args()->platform_name_size);
  if (platform != c.client->platform_name()) {
    return emit(Fail(name, "a larger struct gave platform '" + platform + "', not '" +
                               c.client->platform_name() + "'"));
  }
  emit(Pass(name));
}

void ErrorsHaveCodeAndMessage(Context& c, const Emit& emit) {
  const std::string name = "abi.errors_have_code_and_message";
  auto* fn = c.Function(&BERTH_Api::BERTH_Client_LookupDevice);
  if (fn == nullptr) return emit(Skip(name, "no BERTH_Client_LookupDevice"));
  BERTH_Client_LookupDevice_Args args{};
  args.struct_size = BERTH_Client_LookupDevice_Args_STRUCT_SIZE;
  args.client = c.client->c_client();
  args.id = -123456789;
  BERTH_Error* error = fn(&args);
  if (error == nullptr) return emit(Fail(name, "looking up device -123456789 succeeded"));
  BERTH_Error_GetCode_Args code{BERTH_Error_GetCode_Args_STRUCT_SIZE, nullptr, error, {}};
  Status code_status = c.Take(c.api->BERTH_Error_GetCode(&code), "BERTH_Error_GetCode");
  BERTH_Error_Message_Args message{BERTH_Error_Message_Args_STRUCT_SIZE, nullptr, error, nullptr, 0};
  c.api->BERTH_Error_Message(&message);
  std::string text(message.message ? message.message : "", message.message_size);
  BERTH_Error_Destroy_Args destroy{BERTH_Error_Destroy_Args_STRUCT_SIZE, nullptr, error};
  c.api->BERTH_Error_Destroy(&destroy);
  if (!code_status.ok()) return emit(Fail(name, "BERTH_Error_GetCode failed: " + code_status.ToString()));
  if (code.code <= BERTH_Error_Code_OK || code.code > BERTH_Error_Code_UNAUTHENTICATED) {
    return emit(Fail(name, "the error's code " + std::to_string(code.code) +
                               " is not a canonical error code"));
  }
  if (code.code != BERTH_Error_Code_NOT_FOUND && code.code != BERTH_Error_Code_INVALID_ARGUMENT) {
    return emit(Fail(name, "an unknown device id gave code " + std::to_string(code.code) +
                               ", not NOT_FOUND or INVALID_ARGUMENT"));
  }
  if (text.empty()) return emit(Fail(name, "the error has no message"));
  emit(Pass(name));
}

// A NULL object argument is INVALID_ARGUMENT whose message names the
// function, never a crash.
void NullObjectsRefused(Context& c, const Emit& emit) {
  const std::string name = "abi.null_objects_refused";
  std::string failures;
  auto expect_error = [&](const char* function, const Status& status) {
    if (status.code() == StatusCode::kInvalidArgument &&
        status.message().find(function) != std::string::npos) {
      return;
    }
    failures += std::string(failures.empty() ? "" : "; ") + function + " with a NULL object " +
                "gave " + (status.ok() ? std::string("OK") : status.ToString()) +
                ", not INVALID_ARGUMENT naming the function";
  };
  if (auto* fn = c.Function(&BERTH_Api::BERTH_Client_Devices)) {
    BERTH_Client_Devices_Args args{};
    args.struct_size = BERTH_Client_Devices_Args_STRUCT_SIZE;
    expect_error("BERTH_Client_Devices", Call(c, fn, "BERTH_Client_Devices", &args));
  }
  if (auto* fn = c.Function(&BERTH_Api::BERTH_Buffer_Dimensions)) {
    BERTH_Buffer_Dimensions_Args args{};
    args.struct_size = BERTH_Buffer_Dimensions_Args_STRUCT_SIZE;
    expect_error("BERTH_Buffer_Dimensions", Call(c, fn, "BERTH_Buffer_Dimensions", &args));
  }
  if (auto* fn = c.Function(&BERTH_Api::BERTH_Event_Await)) {
    BERTH_Event_Await_Args args{};
    args.struct_size = BERTH_Event_Await_Args_STRUCT_SIZE;
    expect_error("BERTH_Event_Await", Call(c, fn, "BERTH_Event_Await", &args));
  }
  emit(failures.empty() ? Pass(name) : Fail(name, failures));
}

}  // namespace

void AbiChecks(Context& context, const Emit& emit) {
  DestroyNullIsNoOp(context, emit);
  SmallerStructRejected(context, emit);
  LargerStructAccepted(context, emit);
  ErrorsHaveCodeAndMessage(context, emit);
  NullObjectsRefused(context, emit);
}

}  // namespace berth::conformance
