#include "interpreter/ffi_call.hpp"

#include "berth/ext/callback.h"
#include "interpreter/element_types.hpp"

namespace berth::cpu {

using stablehlo::Attribute;
using stablehlo::Operation;

namespace {

// Attributes that describe the call itself rather than parameterise it.
bool IsStructuralAttribute(std::string_view name) {
  return name == "call_target_name" || name == "api_version" || name == "operand_layouts" ||
         name == "result_layouts" || name == "output_operand_aliases" ||
         name == "called_computations";
}

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

  // Typed attributes, with a backend_config dictionary flattened in (JAX
  // writes it as mhlo.backend_config next to api_version = 4).
  auto add = [&](std::string_view name, const Attribute& value) {
    BERTH_NamedValue named{};
    named.struct_size = BERTH_NamedValue_STRUCT_SIZE;
    const std::string& stored_name = site->strings_.emplace_back(name);
    named.name = stored_name.data();
    named.name_size = stored_name.size();
    named.value_size = 1;
    if (const auto* b = value.dyn_cast<stablehlo::BoolAttr>()) {
      named.type = BERTH_NamedValue_Type_Bool;
      named.bool_value = b->value();
    } else if (value.isa<stablehlo::UnitAttr>()) {
      named.type = BERTH_NamedValue_Type_Bool;
      named.bool_value = true;
    } else if (const auto* i = value.dyn_cast<stablehlo::IntegerAttr>()) {
      named.type = BERTH_NamedValue_Type_Int64;
      named.int64_value = i->value();
    } else if (const auto* f = value.dyn_cast<stablehlo::FloatAttr>()) {
      named.type = BERTH_NamedValue_Type_Float64;
      named.float64_value = f->value();
    } else if (const auto* s = value.dyn_cast<stablehlo::StringAttr>()) {
      const std::string& stored = site->strings_.emplace_back(s->value());
      named.type = BERTH_NamedValue_Type_String;
      named.string_value = stored.data();
      named.value_size = stored.size();
    } else {
      std::vector<int64_t> list;
      if (const auto* a = value.dyn_cast<stablehlo::DenseArrayAttr>();
          a != nullptr && !IsFloat(a->element_type())) {
        list.assign(a->ints().begin(), a->ints().end());
      } else if (const auto* d = value.dyn_cast<stablehlo::DenseElementsAttr>();
                 d != nullptr && (IsInteger(d->element_type()) || IsBool(d->element_type()))) {
        list = d->ToInt64Vector();
      } else {
        return;  // not expressible as a typed value; handlers do not see it
      }
      const std::vector<int64_t>& stored = site->lists_.emplace_back(std::move(list));
      named.type = BERTH_NamedValue_Type_Int64List;
      named.int64_list_value = stored.data();
      named.value_size = stored.size();
    }
    site->attributes_.push_back(named);
  };
  for (const stablehlo::NamedAttribute& attr : op.attributes()) {
    if (IsStructuralAttribute(attr.name) || attr.value == nullptr) continue;
    if (attr.name == "backend_config" || attr.name == "mhlo.backend_config") {
      if (const auto* dict = attr.value->dyn_cast<stablehlo::DictionaryAttr>()) {
        for (const stablehlo::NamedAttribute& entry : dict->entries()) {
          if (entry.value != nullptr) add(entry.name, *entry.value);
        }
        continue;
      }
      if (const auto* s = attr.value->dyn_cast<stablehlo::StringAttr>(); s && s->value().empty()) {
        continue;
      }
    }
    add(attr.name, *attr.value);
  }
  BERTH_RETURN_IF_ERROR(site->Prepare(op));
  return site;
}

Status FfiCallSite::Prepare(const Operation& op) const {
  std::vector<BERTH_Ffi_Buffer> operands;
  std::vector<BERTH_Ffi_Buffer> results;
  for (const stablehlo::Value* value : op.operands()) operands.push_back(DescribeType(value->type()));
  for (const stablehlo::Value* value : op.results()) results.push_back(DescribeType(value->type()));
  Status status = handler_->Call(BERTH_Ffi_Stage_Prepare, platform_, operands, results,
                                 attributes_);
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
                                 attributes_);
  if (!status.ok()) {
    return Status(status.code(), what_ + " failed: " + std::string(status.message()));
  }
  return OkStatus();
}

}  // namespace berth::cpu
