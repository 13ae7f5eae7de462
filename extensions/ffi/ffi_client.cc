#include "ffi/ffi_client.hpp"

#include <exception>
#include <new>
#include <string>

namespace berth::ext::ffi {
namespace {

// The C side of a C++ FfiHandler: handler_data owns a heap FfiHandler.
BERTH_Error_Code CallFfiHandler(BERTH_Ffi_CallFrame* frame) {
  auto fail = [frame](BERTH_Error_Code code, std::string_view message) {
    frame->report_error(frame->error_context, message.data(), message.size());
    return code;
  };
  try {
    FfiCall call(*frame);
    Status status = (*static_cast<const FfiHandler*>(frame->handler_data))(call);
    if (status.ok()) return BERTH_Error_Code_OK;
    return fail(static_cast<BERTH_Error_Code>(status.code()), status.message());
  } catch (const std::bad_alloc&) {
    return fail(BERTH_Error_Code_RESOURCE_EXHAUSTED, "out of memory in an FFI handler");
  } catch (const std::exception& e) {
    return fail(BERTH_Error_Code_INTERNAL,
                std::string("the FFI handler threw an exception: ") + e.what());
  } catch (...) {
    return fail(BERTH_Error_Code_INTERNAL, "the FFI handler threw an exception");
  }
}

void DeleteFfiHandler(void* data) { delete static_cast<FfiHandler*>(data); }

}  // namespace

CHandler Adapt(FfiHandler handler) {
  return CHandler{CallFfiHandler, new FfiHandler(std::move(handler)), DeleteFfiHandler};
}

Status RegisterHandler(const core::PluginLibrary& library, BERTH_Client* client,
                       const BERTH_Ffi_Extension* ffi, std::string_view target,
                       BERTH_Ffi_Handler* handler, void* data, BERTH_Ffi_ReleaseData* release) {
  if (ffi == nullptr) {
    if (release != nullptr) release(data);
    return library.MissingExtension(BERTH_Extension_Type_Ffi);
  }
  BERTH_Ffi_RegisterHandler_Args args{};
  args.struct_size = BERTH_Ffi_RegisterHandler_Args_STRUCT_SIZE;
  args.client = client;
  args.target = target.data();
  args.target_size = target.size();
  args.handler = handler;
  args.handler_data = data;
  args.release_data = release;
  return library.CallExtension(ffi->register_handler, "BERTH_Ffi_RegisterHandler", &args);
}

}  // namespace berth::ext::ffi
