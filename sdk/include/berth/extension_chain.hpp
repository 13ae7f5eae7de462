// Walking and checking a BERTH_Extension_Base chain (docs/extensions.md, "The
// chain": unknown types are skipped; a type present twice is an error), and
// the names of the extension types. Header-only; the host checks every
// plugin's table with it.
#ifndef BERTH_EXTENSION_CHAIN_HPP_
#define BERTH_EXTENSION_CHAIN_HPP_

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "berth/c_api.h"
#include "berth/status.hpp"

namespace berth {

// "ffi", "callback", ... or "unknown(<n>)" for types this header does not know.
inline std::string ExtensionTypeName(int type) {
  switch (type) {
    case BERTH_Extension_Type_Ffi: return "ffi";
    case BERTH_Extension_Type_Callback: return "callback";
    case BERTH_Extension_Type_CustomPartitioner: return "custom_partitioner";
    case BERTH_Extension_Type_Collectives: return "collectives";
    case BERTH_Extension_Type_AbiVersion: return "abi_version";
    case BERTH_Extension_Type_MultiSlice: return "multi_slice";
    case BERTH_Extension_Type_PhaseCompile: return "phase_compile";
    case BERTH_Extension_Type_LiveObjects: return "live_objects";
    default: return "unknown(" + std::to_string(type) + ")";
  }
}

// The BERTH_Extension_Type_* value of a name ExtensionTypeName gives, or 0
// for a name this header does not know.
inline int ExtensionTypeFromName(std::string_view name) {
  for (int type = BERTH_Extension_Type_Ffi; type <= BERTH_Extension_Type_LiveObjects; ++type) {
    if (ExtensionTypeName(type) == name) return type;
  }
  return 0;
}

inline bool IsKnownExtensionType(int type) {
  return type >= BERTH_Extension_Type_Ffi && type <= BERTH_Extension_Type_LiveObjects;
}

// Longest chain accepted; a longer one is treated as a cycle.
inline constexpr size_t kMaxExtensionChainLength = 1024;

// Lists the chain's types in order. INVALID_ARGUMENT for a type given twice, a
// node smaller than BERTH_Extension_Base, or a chain that never ends.
inline Result<std::vector<int>> ListExtensionChain(const BERTH_Extension_Base* head) {
  std::vector<int> types;
  std::set<int> seen;
  for (const BERTH_Extension_Base* node = head; node != nullptr; node = node->next) {
    if (types.size() >= kMaxExtensionChainLength) {
      return InvalidArgumentError("extension chain has more than " +
                                  std::to_string(kMaxExtensionChainLength) +
                                  " nodes; it probably loops");
    }
    if (node->struct_size < BERTH_Extension_Base_STRUCT_SIZE) {
      return InvalidArgumentError("extension node " + std::to_string(types.size()) +
                                  " has struct_size " + std::to_string(node->struct_size) +
                                  ", smaller than BERTH_Extension_Base");
    }
    int type = static_cast<int>(node->type);
    if (!seen.insert(type).second) {
      return InvalidArgumentError("extension type " + ExtensionTypeName(type) +
                                  " appears twice in the chain");
    }
    types.push_back(type);
  }
  return types;
}

// The first node of `type`, or NULL. Call on a chain ListExtensionChain accepted.
inline const BERTH_Extension_Base* FindExtension(const BERTH_Extension_Base* head, int type) {
  for (const BERTH_Extension_Base* node = head; node != nullptr; node = node->next) {
    if (static_cast<int>(node->type) == type) return node;
  }
  return nullptr;
}

}  // namespace berth

#endif  // BERTH_EXTENSION_CHAIN_HPP_
