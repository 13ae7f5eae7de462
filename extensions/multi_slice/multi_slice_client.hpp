// The host side of the multi_slice extension (berth/ext/multi_slice.h): the
// topology struct the host hangs on a plugin's client-create args, and each
// device's slice as the plugin reports it. berth::Client::slice_layout
// forwards here; ClientState::Create attaches the topology.
#ifndef BERTH_EXTENSIONS_MULTI_SLICE_MULTI_SLICE_CLIENT_HPP_
#define BERTH_EXTENSIONS_MULTI_SLICE_MULTI_SLICE_CLIENT_HPP_

#include "berth/client.hpp"
#include "berth/ext/multi_slice.h"
#include "berth/status.hpp"
#include "loader/plugin_library.hpp"

namespace berth::ext::multi_slice {

// The struct for BERTH_Client_Create_Args.extension_start.
BERTH_MultiSlice_Topology MakeTopology(int num_slices, int slice_id);

// The plugin's answer for `client`: UNIMPLEMENTED naming the plugin when
// `extension` is NULL; INTERNAL for an answer that does not hold together
// (a slice outside the count, a device count other than `num_devices`).
Result<SliceLayout> DeviceSlices(const core::PluginLibrary& library, BERTH_Client* client,
                                 const BERTH_MultiSlice_Extension* extension, size_t num_devices);

}  // namespace berth::ext::multi_slice

#endif  // BERTH_EXTENSIONS_MULTI_SLICE_MULTI_SLICE_CLIENT_HPP_
