#include "loader/attributes.hpp"

#include <set>
#include <string_view>

#include "berth/c_api.h"
#include "berth/element_type.hpp"

namespace berth::core {
namespace {

struct WellKnown {
  std::string_view name;
  size_t type_index;  // into NamedValueData
};

// NamedValueData's alternatives: string, int64, int64_list, float64, bool.
constexpr WellKnown kWellKnown[] = {
    {BERTH_ATTRIBUTE_VENDOR, 0},
    {BERTH_ATTRIBUTE_STABLEHLO_SUPPORT, 4},
    {BERTH_ATTRIBUTE_ELEMENT_TYPES, 2},
    {BERTH_ATTRIBUTE_SUPPORTED_OPS, 0},
};

std::string TypeName(size_t index) {
  static const NamedValueData kExamples[] = {std::string(), int64_t{0}, std::vector<int64_t>(),
                                             0.0, false};
  return std::string(NamedValueTypeName(kExamples[index]));
}

// What is wrong with a well-known attribute's value of the right type.
std::string ValueProblem(std::string_view name, const NamedValueData& value) {
  const std::string quoted = "attribute '" + std::string(name) + "'";
  if (name == BERTH_ATTRIBUTE_ELEMENT_TYPES) {
    std::set<int64_t> seen;
    for (int64_t type : std::get<std::vector<int64_t>>(value)) {
      if (type < 0 || type > INT32_MAX || !IsValidElementType(static_cast<int32_t>(type))) {
        return quoted + " lists " + std::to_string(type) +
               ", which is not a BERTH_Buffer_Type value";
      }
      if (!seen.insert(type).second) {
        return quoted + " lists " +
               std::string(ElementTypeName(static_cast<ElementType>(type))) + " twice";
      }
    }
    return "";
  }
  if (name == BERTH_ATTRIBUTE_SUPPORTED_OPS) {
    const std::string& list = std::get<std::string>(value);
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma = list.find(',', start);
      if (comma == std::string::npos) comma = list.size();
      std::string_view op(list.data() + start, comma - start);
      while (!op.empty() && op.front() == ' ') op.remove_prefix(1);
      while (!op.empty() && op.back() == ' ') op.remove_suffix(1);
      if (op.empty() || op.find('.') == std::string_view::npos ||
          op.find(' ') != std::string_view::npos) {
        return quoted + " holds '" + std::string(op) +
               "', not an op name such as 'stablehlo.add' (the value is a comma-separated list)";
      }
      start = comma + 1;
    }
    return "";
  }
  if (name == BERTH_ATTRIBUTE_VENDOR && std::get<std::string>(value).empty()) {
    return quoted + " is empty";
  }
  return "";
}

}  // namespace

std::vector<std::string> WellKnownAttributeProblems(const NamedValueMap& attributes) {
  std::vector<std::string> problems;
  for (const WellKnown& known : kWellKnown) {
    auto it = attributes.find(known.name);
    if (it == attributes.end()) continue;
    if (it->second.index() != known.type_index) {
      problems.push_back("attribute '" + std::string(known.name) + "' is of type " +
                         std::string(NamedValueTypeName(it->second)) + "; it must be " +
                         TypeName(known.type_index) + " (berth/c_api.h, BERTH_ATTRIBUTE_*)");
      continue;
    }
    std::string problem = ValueProblem(known.name, it->second);
    if (!problem.empty()) problems.push_back(std::move(problem));
  }
  return problems;
}

}  // namespace berth::core
