// The host side of the collectives extension (berth/ext/collectives.h): the
// C calls behind berth::Communicator (host/client/communicator.cc) and
// Client::CreateCommunicator. Each answers UNIMPLEMENTED naming the plugin
// when `extension` is NULL, and INTERNAL when the plugin's answer does not
// hold together (no communicator, no event, an output where none belongs).
#ifndef BERTH_EXTENSIONS_COLLECTIVES_COLLECTIVES_CLIENT_HPP_
#define BERTH_EXTENSIONS_COLLECTIVES_COLLECTIVES_CLIENT_HPP_

#include <chrono>
#include <span>
#include <string_view>
#include <vector>

#include "berth/element_type.hpp"
#include "berth/ext/collectives.h"
#include "berth/status.hpp"
#include "loader/plugin_library.hpp"

namespace berth::ext::collectives {

// The element types the plugin's collectives take.
Result<std::vector<ElementType>> ElementTypes(const core::PluginLibrary& library,
                                              const BERTH_Collectives_Extension* extension);

Result<BERTH_Collectives_Communicator*> Create(const core::PluginLibrary& library,
                                               BERTH_Client* client,
                                               const BERTH_Collectives_Extension* extension,
                                               std::span<const int64_t> device_ids,
                                               std::chrono::milliseconds timeout);
// Errors are logged: a destructor calls it.
void Destroy(const core::PluginLibrary& library, const BERTH_Collectives_Extension* extension,
             BERTH_Collectives_Communicator* communicator);
Status Abort(const core::PluginLibrary& library, const BERTH_Collectives_Extension* extension,
             BERTH_Collectives_Communicator* communicator, std::string_view reason);

// Runs `args` (filled but for its outputs): the caller owns args.output (NULL
// for a send) and args.done once this succeeds.
Status Run(const core::PluginLibrary& library, const BERTH_Collectives_Extension* extension,
           BERTH_Collectives_Run_Args& args);

}  // namespace berth::ext::collectives

#endif  // BERTH_EXTENSIONS_COLLECTIVES_COLLECTIVES_CLIENT_HPP_
