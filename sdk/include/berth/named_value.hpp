// Typed named values (client options, attributes) on the C++ side, and their
// conversion to and from BERTH_NamedValue arrays. Header-only; shared by the
// host and the SDK helpers.
#ifndef BERTH_NAMED_VALUE_HPP_
#define BERTH_NAMED_VALUE_HPP_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "berth/c_api.h"
#include "berth/status.hpp"

namespace berth {

using NamedValueData = std::variant<std::string, int64_t, std::vector<int64_t>, double, bool>;
using NamedValueMap = std::map<std::string, NamedValueData, std::less<>>;

// "string", "int64", "int64_list", "float64", "bool".
inline std::string_view NamedValueTypeName(const NamedValueData& value) {
  switch (value.index()) {
    case 0: return "string";
    case 1: return "int64";
    case 2: return "int64_list";
    case 3: return "float64";
    default: return "bool";
  }
}

// Owns the storage behind a BERTH_NamedValue array built from a map; the
// array stays valid while this object lives and is not modified.
class NamedValueArray {
 public:
  NamedValueArray() = default;
  explicit NamedValueArray(const NamedValueMap& values) {
    entries_.reserve(values.size());
    for (const auto& [name, value] : values) {
      entries_.push_back(Entry{name, value});
    }
    Rebuild();
  }
  NamedValueArray(const NamedValueArray& other) : entries_(other.entries_) { Rebuild(); }
  NamedValueArray& operator=(const NamedValueArray& other) {
    entries_ = other.entries_;
    Rebuild();
    return *this;
  }

  const BERTH_NamedValue* data() const { return values_.empty() ? nullptr : values_.data(); }
  size_t size() const { return values_.size(); }

 private:
  struct Entry {
    std::string name;
    NamedValueData value;
  };

  void Rebuild() {
    values_.clear();
    values_.reserve(entries_.size());
    for (const Entry& entry : entries_) {
      BERTH_NamedValue v{};
      v.struct_size = BERTH_NamedValue_STRUCT_SIZE;
      v.name = entry.name.data();
      v.name_size = entry.name.size();
      v.value_size = 1;
      if (const auto* s = std::get_if<std::string>(&entry.value)) {
        v.type = BERTH_NamedValue_Type_String;
        v.string_value = s->data();
        v.value_size = s->size();
      } else if (const auto* i = std::get_if<int64_t>(&entry.value)) {
        v.type = BERTH_NamedValue_Type_Int64;
        v.int64_value = *i;
      } else if (const auto* l = std::get_if<std::vector<int64_t>>(&entry.value)) {
        v.type = BERTH_NamedValue_Type_Int64List;
        v.int64_list_value = l->data();
        v.value_size = l->size();
      } else if (const auto* d = std::get_if<double>(&entry.value)) {
        v.type = BERTH_NamedValue_Type_Float64;
        v.float64_value = *d;
      } else {
        v.type = BERTH_NamedValue_Type_Bool;
        v.bool_value = std::get<bool>(entry.value);
      }
      values_.push_back(v);
    }
  }

  std::vector<Entry> entries_;
  std::vector<BERTH_NamedValue> values_;
};

// Copies a C array into a map. INVALID_ARGUMENT for a malformed entry (too
// small struct, NULL name or value, unknown type, a name given twice).
inline Result<NamedValueMap> NamedValuesFromC(const BERTH_NamedValue* values, size_t count,
                                              std::string_view what) {
  NamedValueMap out;
  if (count > 0 && values == nullptr) {
    return InvalidArgumentError(std::string(what) + ": NULL array with " +
                                std::to_string(count) + " entries");
  }
  for (size_t i = 0; i < count; ++i) {
    const BERTH_NamedValue& v = values[i];
    std::string where = std::string(what) + " entry " + std::to_string(i);
    if (v.struct_size < BERTH_NamedValue_STRUCT_SIZE) {
      return InvalidArgumentError(where + ": BERTH_NamedValue struct_size " +
                                  std::to_string(v.struct_size) + " is smaller than " +
                                  std::to_string(BERTH_NamedValue_STRUCT_SIZE));
    }
    if (v.name == nullptr && v.name_size > 0) return InvalidArgumentError(where + ": NULL name");
    std::string name(v.name ? v.name : "", v.name_size);
    if (name.empty()) return InvalidArgumentError(where + ": empty name");
    NamedValueData data;
    switch (v.type) {
      case BERTH_NamedValue_Type_String:
        if (v.string_value == nullptr && v.value_size > 0) {
          return InvalidArgumentError(where + " '" + name + "': NULL string");
        }
        data = std::string(v.string_value ? v.string_value : "", v.value_size);
        break;
      case BERTH_NamedValue_Type_Int64:
        data = v.int64_value;
        break;
      case BERTH_NamedValue_Type_Int64List:
        if (v.int64_list_value == nullptr && v.value_size > 0) {
          return InvalidArgumentError(where + " '" + name + "': NULL list");
        }
        data = std::vector<int64_t>(v.int64_list_value, v.int64_list_value + v.value_size);
        break;
      case BERTH_NamedValue_Type_Float64:
        data = v.float64_value;
        break;
      case BERTH_NamedValue_Type_Bool:
        data = v.bool_value;
        break;
      default:
        return InvalidArgumentError(where + " '" + name + "': unknown value type " +
                                    std::to_string(static_cast<int>(v.type)));
    }
    if (!out.emplace(name, std::move(data)).second) {
      return InvalidArgumentError(std::string(what) + ": '" + name + "' is given twice");
    }
  }
  return out;
}

}  // namespace berth

#endif  // BERTH_NAMED_VALUE_HPP_
