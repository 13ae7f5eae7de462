#include "cuda_client_options.hpp"

#include <set>
#include <string>

#include "berth/plugin/options.hpp"

namespace berth::cuda {

std::string_view AllocatorName(AllocatorKind kind) {
  switch (kind) {
    case AllocatorKind::kDefault: return "default";
    case AllocatorKind::kCudaAsync: return "cuda_async";
    case AllocatorKind::kPlatform: return "platform";
  }
  return "?";
}

Result<CudaClientOptions> ParseCudaClientOptions(const NamedValueMap& options) {
  plugin::OptionReader reader(options, "cuda client option");
  CudaClientOptions parsed;
  BERTH_ASSIGN_OR_RETURN(parsed.visible_devices, reader.Int64List("visible_devices", {}));
  BERTH_ASSIGN_OR_RETURN(parsed.preallocate, reader.Bool("preallocate", true));
  BERTH_ASSIGN_OR_RETURN(parsed.memory_fraction, reader.Float64("memory_fraction", 0.75));
  BERTH_ASSIGN_OR_RETURN(std::string allocator, reader.String("allocator", "default"));
  BERTH_ASSIGN_OR_RETURN(parsed.node_id, reader.Int64("node_id", 0));
  BERTH_ASSIGN_OR_RETURN(parsed.num_nodes, reader.Int64("num_nodes", 1));
  BERTH_RETURN_IF_ERROR(reader.CheckNoUnknown());

  if (allocator == "default") {
    parsed.allocator = AllocatorKind::kDefault;
  } else if (allocator == "cuda_async") {
    parsed.allocator = AllocatorKind::kCudaAsync;
  } else if (allocator == "platform") {
    parsed.allocator = AllocatorKind::kPlatform;
  } else {
    return InvalidArgumentError("cuda client option 'allocator' is '" + allocator +
                                "'; expected default, cuda_async or platform");
  }
  // NaN fails both comparisons, so it is refused too.
  if (!(parsed.memory_fraction > 0.0 && parsed.memory_fraction <= 1.0)) {
    return InvalidArgumentError("cuda client option 'memory_fraction' must be in (0, 1], not " +
                                std::to_string(parsed.memory_fraction));
  }
  if (options.contains("preallocate") && parsed.preallocate &&
      parsed.allocator != AllocatorKind::kDefault) {
    return InvalidArgumentError(
        "cuda client option 'preallocate' applies to the 'default' allocator only, not '" +
        std::string(AllocatorName(parsed.allocator)) + "'");
  }
  if (parsed.allocator != AllocatorKind::kDefault) parsed.preallocate = false;
  std::set<int64_t> seen;
  for (int64_t ordinal : parsed.visible_devices) {
    if (ordinal < 0) {
      return InvalidArgumentError("cuda client option 'visible_devices' holds " +
                                  std::to_string(ordinal) + "; GPU indices are >= 0");
    }
    if (!seen.insert(ordinal).second) {
      return InvalidArgumentError("cuda client option 'visible_devices' names GPU " +
                                  std::to_string(ordinal) + " twice");
    }
  }
  return parsed;
}

Result<std::vector<int>> SelectVisibleDevices(const CudaClientOptions& options, int device_count) {
  std::vector<int> ordinals;
  if (options.visible_devices.empty()) {
    for (int i = 0; i < device_count; ++i) ordinals.push_back(i);
    return ordinals;
  }
  for (int64_t ordinal : options.visible_devices) {
    if (ordinal >= device_count) {
      return InvalidArgumentError("cuda client option 'visible_devices' names GPU " +
                                  std::to_string(ordinal) + " but the CUDA runtime shows " +
                                  std::to_string(device_count) +
                                  " (CUDA_VISIBLE_DEVICES applies first)");
    }
    ordinals.push_back(static_cast<int>(ordinal));
  }
  return ordinals;
}

}  // namespace berth::cuda
