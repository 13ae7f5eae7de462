// berth::FfiCall (berth/ffi.hpp): the view of a custom call's frame that
// handlers written against the host API get.
#include "berth/ffi.hpp"

namespace berth {

const BERTH_NamedValue* FfiCall::Find(std::string_view name) const {
  for (size_t i = 0; i < frame_.num_attributes; ++i) {
    const BERTH_NamedValue& value = frame_.attributes[i];
    if (std::string_view(value.name, value.name_size) == name) return &value;
  }
  return nullptr;
}

std::optional<int64_t> FfiCall::IntAttribute(std::string_view name) const {
  const BERTH_NamedValue* value = Find(name);
  if (value == nullptr || value->type != BERTH_NamedValue_Type_Int64) return std::nullopt;
  return value->int64_value;
}

std::optional<double> FfiCall::FloatAttribute(std::string_view name) const {
  const BERTH_NamedValue* value = Find(name);
  if (value == nullptr) return std::nullopt;
  if (value->type == BERTH_NamedValue_Type_Float64) return value->float64_value;
  if (value->type == BERTH_NamedValue_Type_Int64) return static_cast<double>(value->int64_value);
  return std::nullopt;
}

std::optional<std::string_view> FfiCall::StringAttribute(std::string_view name) const {
  const BERTH_NamedValue* value = Find(name);
  if (value == nullptr || value->type != BERTH_NamedValue_Type_String) return std::nullopt;
  return std::string_view(value->string_value, value->value_size);
}

std::optional<bool> FfiCall::BoolAttribute(std::string_view name) const {
  const BERTH_NamedValue* value = Find(name);
  if (value == nullptr || value->type != BERTH_NamedValue_Type_Bool) return std::nullopt;
  return value->bool_value;
}

}  // namespace berth
