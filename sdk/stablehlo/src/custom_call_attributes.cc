#include "berth/stablehlo/custom_call_attributes.hpp"

#include "berth/stablehlo/attributes.hpp"

namespace berth::stablehlo {
namespace {

// Attributes that describe the call itself rather than parameterise it.
bool IsStructuralAttribute(std::string_view name) {
  return name == "call_target_name" || name == "api_version" || name == "operand_layouts" ||
         name == "result_layouts" || name == "output_operand_aliases" || name == "called_computations";
}

}  // namespace

CustomCallAttributes::CustomCallAttributes(const Operation& op) {
  for (const NamedAttribute& attr : op.attributes()) {
    if (IsStructuralAttribute(attr.name) || attr.value == nullptr) continue;
    if (attr.name == "backend_config" || attr.name == "mhlo.backend_config") {
      if (const auto* dict = attr.value->dyn_cast<DictionaryAttr>()) {
        for (const NamedAttribute& entry : dict->entries()) {
          if (entry.value != nullptr) Add(entry.name, *entry.value);
        }
        continue;
      }
      if (const auto* s = attr.value->dyn_cast<StringAttr>(); s && s->value().empty()) continue;
    }
    Add(attr.name, *attr.value);
  }
}

void CustomCallAttributes::Add(std::string_view name, const Attribute& value) {
  BERTH_NamedValue named{};
  named.struct_size = BERTH_NamedValue_STRUCT_SIZE;
  const std::string& stored_name = strings_.emplace_back(name);
  named.name = stored_name.data();
  named.name_size = stored_name.size();
  named.value_size = 1;
  if (const auto* b = value.dyn_cast<BoolAttr>()) {
    named.type = BERTH_NamedValue_Type_Bool;
    named.bool_value = b->value();
  } else if (value.isa<UnitAttr>()) {
    named.type = BERTH_NamedValue_Type_Bool;
    named.bool_value = true;
  } else if (const auto* i = value.dyn_cast<IntegerAttr>()) {
    named.type = BERTH_NamedValue_Type_Int64;
    named.int64_value = i->value();
  } else if (const auto* f = value.dyn_cast<FloatAttr>()) {
    named.type = BERTH_NamedValue_Type_Float64;
    named.float64_value = f->value();
  } else if (const auto* s = value.dyn_cast<StringAttr>()) {
    const std::string& stored = strings_.emplace_back(s->value());
    named.type = BERTH_NamedValue_Type_String;
    named.string_value = stored.data();
    named.value_size = stored.size();
  } else {
    std::vector<int64_t> list;
    if (const auto* a = value.dyn_cast<DenseArrayAttr>(); a != nullptr && !IsFloat(a->element_type())) {
      list.assign(a->ints().begin(), a->ints().end());
    } else if (const auto* d = value.dyn_cast<DenseElementsAttr>();
               d != nullptr && (IsInteger(d->element_type()) || IsBool(d->element_type()))) {
      list = d->ToInt64Vector();
    } else {
      return;  // not expressible as a typed value; handlers do not see it
    }
    const std::vector<int64_t>& stored = lists_.emplace_back(std::move(list));
    named.type = BERTH_NamedValue_Type_Int64List;
    named.int64_list_value = stored.data();
    named.value_size = stored.size();
  }
  values_.push_back(named);
}

}  // namespace berth::stablehlo
