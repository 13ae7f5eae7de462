#include "multi_slice/multi_slice_client.hpp"

#include <string>

namespace berth::ext::multi_slice {

BERTH_MultiSlice_Topology MakeTopology(int num_slices, int slice_id) {
  BERTH_MultiSlice_Topology topology{};
  topology.base = {BERTH_MultiSlice_Topology_STRUCT_SIZE, BERTH_Extension_Type_MultiSlice, nullptr};
  topology.num_slices = num_slices;
  topology.slice_id = slice_id;
  return topology;
}

Result<SliceLayout> DeviceSlices(const core::PluginLibrary& library, BERTH_Client* client,
                                 const BERTH_MultiSlice_Extension* extension, size_t num_devices) {
  if (extension == nullptr) return library.MissingExtension(BERTH_Extension_Type_MultiSlice);
  BERTH_MultiSlice_DeviceSlices_Args args{};
  args.struct_size = BERTH_MultiSlice_DeviceSlices_Args_STRUCT_SIZE;
  args.client = client;
  BERTH_RETURN_IF_ERROR(
      library.CallExtension(extension->device_slices, "BERTH_MultiSlice_DeviceSlices", &args));
  const std::string who = "plugin '" + library.name() + "': BERTH_MultiSlice_DeviceSlices";
  if (args.num_slices < 1) {
    return InternalError(who + " answered " + std::to_string(args.num_slices) + " slices");
  }
  if (args.num_devices != num_devices || (num_devices > 0 && args.device_slices == nullptr)) {
    return InternalError(who + " gave slices of " + std::to_string(args.num_devices) +
                         " devices; the client has " + std::to_string(num_devices));
  }
  SliceLayout layout;
  layout.num_slices = args.num_slices;
  for (size_t i = 0; i < args.num_devices; ++i) {
    const int32_t slice = args.device_slices[i];
    if (slice < 0 || slice >= args.num_slices) {
      return InternalError(who + " put device #" + std::to_string(i) + " in slice " +
                           std::to_string(slice) + " of " + std::to_string(args.num_slices));
    }
    layout.device_slices.push_back(slice);
  }
  return layout;
}

}  // namespace berth::ext::multi_slice
