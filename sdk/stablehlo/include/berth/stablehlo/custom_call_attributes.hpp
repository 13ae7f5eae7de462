// A custom call's attributes as the C ABI passes them to what serves the
// call (BERTH_NamedValue: FFI handlers, host callbacks, custom partitioning
// rules): integers as Int64, floats Float64, bools Bool (unit attributes are
// true), strings String, integer and bool arrays Int64List. The entries of a
// `backend_config` (or `mhlo.backend_config`, as JAX writes it) dictionary
// are flattened in; structural attributes (call_target_name, api_version,
// layouts, aliases, called_computations) and values no typed form can hold
// are left out.
#ifndef BERTH_STABLEHLO_CUSTOM_CALL_ATTRIBUTES_HPP_
#define BERTH_STABLEHLO_CUSTOM_CALL_ATTRIBUTES_HPP_

#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "berth/c_api.h"
#include "berth/stablehlo/ir.hpp"

namespace berth::stablehlo {

class CustomCallAttributes {
 public:
  explicit CustomCallAttributes(const Operation& op);
  // Not copyable or movable: the values point into the object's storage.
  CustomCallAttributes(const CustomCallAttributes&) = delete;
  CustomCallAttributes& operator=(const CustomCallAttributes&) = delete;

  std::span<const BERTH_NamedValue> values() const { return values_; }

 private:
  void Add(std::string_view name, const Attribute& value);

  std::vector<BERTH_NamedValue> values_;
  // Storage the values point into (deques keep addresses stable).
  std::deque<std::string> strings_;
  std::deque<std::vector<int64_t>> lists_;
};

}  // namespace berth::stablehlo

#endif  // BERTH_STABLEHLO_CUSTOM_CALL_ATTRIBUTES_HPP_
