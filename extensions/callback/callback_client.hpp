// The host side of the callback extension (berth/ext/callback.h): host
// callbacks (custom calls `@berth.host_callback {callback = "NAME"}`, run
// through the FFI frame) and event callbacks (execution finished or failed,
// plugin fatal). berth::Client::RegisterHostCallback and AddEventCallback
// forward here.
#ifndef BERTH_EXTENSIONS_CALLBACK_CALLBACK_CLIENT_HPP_
#define BERTH_EXTENSIONS_CALLBACK_CALLBACK_CLIENT_HPP_

#include <string_view>

#include "berth/ext/callback.h"
#include "berth/ffi.hpp"
#include "berth/status.hpp"
#include "loader/plugin_library.hpp"

namespace berth::ext::callback {

// `extension` is the plugin's callback extension struct, NULL when it lacks
// one (UNIMPLEMENTED naming the plugin). An empty callback is INVALID_ARGUMENT.
Status RegisterHostCallback(const core::PluginLibrary& library, BERTH_Client* client,
                            const BERTH_Callback_Extension* extension, std::string_view name,
                            FfiHandler callback);

// The callback runs on a plugin thread; what it throws is swallowed (nothing
// may cross back into the plugin), and kinds newer than this host are not
// passed on.
Status AddEventCallback(const core::PluginLibrary& library, BERTH_Client* client,
                        const BERTH_Callback_Extension* extension, EventCallback callback);

}  // namespace berth::ext::callback

#endif  // BERTH_EXTENSIONS_CALLBACK_CALLBACK_CLIENT_HPP_
