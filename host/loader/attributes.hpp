// The well-known plugin attributes (berth/c_api.h, BERTH_ATTRIBUTE_*;
// docs/abi.md, "Plugin attributes") checked against their documented types
// and ranges. The loader logs what is wrong when it loads a plugin; `berth
// info` and `berth conformance` (attributes.well_known) report it.
#ifndef BERTH_HOST_LOADER_ATTRIBUTES_HPP_
#define BERTH_HOST_LOADER_ATTRIBUTES_HPP_

#include <string>
#include <vector>

#include "berth/named_value.hpp"

namespace berth::core {

// One sentence per well-known attribute of the wrong type or with a value
// outside its range, naming the attribute, what it is and what it should
// be; empty when all is well. Other attributes are the plugin's own.
std::vector<std::string> WellKnownAttributeProblems(const NamedValueMap& attributes);

}  // namespace berth::core

#endif  // BERTH_HOST_LOADER_ATTRIBUTES_HPP_
