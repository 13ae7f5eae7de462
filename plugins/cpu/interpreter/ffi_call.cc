#include "interpreter/ffi_call.hpp"

#include "berth/ext/callback.h"
#include "interpreter/element_types.hpp"

namespace berth::cpu {

using stablehlo::Attribute;
using stablehlo::Operation;

namespace {

Status CheckTensorTypes(const Operation& op, const std::string& what) {
  auto check = [&](stablehlo::Type type, const std::string& which) -> Status {
    if (!type.IsTensor() || !type.HasStaticShape()) {
      return UnimplementedError(op.location().ToString() + ": error: " + what + ": " + which +
                                " is " + type.ToString() +
                                "; handlers take statically shaped tensors only");
    }
    if (!IsSupportedElementType(type.element_type())) {
      return UnsupportedElementType(type.element_type(), what + ": " + which);
    }
    return OkStatus();
  };
  for (size_t i = 0; i < op.num_operands(); ++i) {
    BERTH_RETURN_IF_ERROR(check(op.operand(i)->type(), "operand " + std::to_string(i)));
  }
  for (size_t i = 0; i < op.num_results(); ++i) {
    BERTH_RETURN_IF_ERROR(check(op.result(i)->type(), "result " + std::to_string(i)));
  }
  return OkStatus();
}

BERTH_Ffi_Buffer DescribeType(stablehlo::Type type) {
  BERTH_Ffi_Buffer buffer{};
  buffer.element_type = static_cast<BERTH_Buffer_Type>(ToBufferType(type.element_type()));
  buffer.dims = type.shape().data();
  buffer.num_dims = type.shape().size();
  return buffer;
}

}  // namespace

Result<std::unique_ptr<FfiCallSite>> FfiCallSite::Resolve(const Operation& op,
                                                          const CustomCallTargets& targets) {
  std::unique_ptr<FfiCallSite> site(new FfiCallSite());
  site->platform_ = targets.platform;
  const std::string target(op.call_target_name());
  if (target == BERTH_HOST_CALLBACK_TARGET) {
    const Attribute* name = op.attr("callback");
    const auto* name_string = name != nullptr ? name->dyn_cast<stablehlo::StringAttr>() : nullptr;
    if (name_string == nullptr) {
      return InvalidArgumentError(op.location().ToString() + ": error: custom call '" + target +
                                  "' needs a string attribute 'callback' naming the host "
                                  "callback");
    }
    site->what_ = "host callback '" + std::string(name_string->value()) + "'";
    if (targets.host_callbacks != nullptr) {
      site->handler_ = targets.host_callbacks->Find(name_string->value());
    }
    if (site->handler_ == nullptr) {
      return NotFoundError(op.location().ToString() + ": error: " + site->what_ +
                           " is not registered with this " + targets.platform +
                           " client (Client::RegisterHostCallback)");
    }
  } else {
    site->what_ = "custom call '" + target + "'";
    if (targets.ffi != nullptr) site->handler_ = targets.ffi->Find(target);
    if (site->handler_ == nullptr) {
      return UnimplementedError(op.location().ToString() + ": error: custom call target '" +
                                target + "' is not registered with the " + targets.platform +
                                " plugin (register an FFI handler or load an FFI module)");
    }
  }
  BERTH_RETURN_IF_ERROR(CheckTensorTypes(op, site->what_));

  site->attributes_ = std::make_unique<stablehlo::CustomCallAttributes>(op);
  BERTH_RETURN_IF_ERROR(site->Prepare(op));
  return site;
}

Status FfiCallSite::Prepare(const Operation& op) const {
  std::vector<BERTH_Ffi_Buffer> operands;
  std::vector<BERTH_Ffi_Buffer> results;
  for (const stablehlo::Value* value : op.operands()) operands.push_back(DescribeType(value->type()));
  for (const stablehlo::Value* value : op.results()) results.push_back(DescribeType(value->type()));
  Status status = handler_->Call(BERTH_Ffi_Stage_Prepare, platform_, operands, results,
                                 attributes_->values());
  if (!status.ok()) {
    return Status(status.code(), op.location().ToString() + ": error: " + what_ +
                                     " refused its operands: " + std::string(status.message()));
  }
  return OkStatus();
}

Status FfiCallSite::Execute(KernelCall& call) const {
  const Operation& op = call.op;
  std::vector<BERTH_Ffi_Buffer> operands(call.operands.size());
  for (size_t i = 0; i < call.operands.size(); ++i) {
    const Tensor& tensor = call.operands[i];
    operands[i] = DescribeType(op.operand(i)->type());
    operands[i].data = const_cast<std::byte*>(tensor.bytes());
    operands[i].size_in_bytes = tensor.byte_size();
  }
  std::vector<BERTH_Ffi_Buffer> results(op.num_results());
  call.results.reserve(op.num_results());
  for (size_t i = 0; i < op.num_results(); ++i) {
    stablehlo::Type type = op.result(i)->type();
    BERTH_ASSIGN_OR_RETURN(Tensor out,
                           Tensor::Allocate(type.element_type(), std::vector<int64_t>(
                                                                     type.shape().begin(),
                                                                     type.shape().end())));
    results[i] = DescribeType(type);
    results[i].data = out.bytes();
    results[i].size_in_bytes = out.byte_size();
    call.results.push_back(std::move(out));
  }
  Status status = handler_->Call(BERTH_Ffi_Stage_Execute, platform_, operands, results,
                                 attributes_->values());
  if (!status.ok()) {
    return Status(status.code(), what_ + " failed: " + std::string(status.message()));
  }
  return OkStatus();
}

}  // namespace berth::cpu
