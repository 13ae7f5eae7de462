// One opened plugin library: its negotiated API table, the host services it
// was given, and the handle that keeps it loaded. Every host object made from
// the plugin holds a shared_ptr to this, so the library is unloaded only after
// the last of them is gone (never, with BERTH_NO_UNLOAD=1).
#ifndef BERTH_HOST_LOADER_PLUGIN_LIBRARY_HPP_
#define BERTH_HOST_LOADER_PLUGIN_LIBRARY_HPP_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "berth/c_api.h"
#include "berth/named_value.hpp"
#include "berth/status.hpp"
#include "manifest/manifest.hpp"

namespace boost::dll {
class shared_library;
}

namespace berth::core {

struct LoadOptions {
  bool no_unload = false;  // BERTH_NO_UNLOAD=1
};

class PluginLibrary;

// The outcome of loading: a library, or a stable reason code and a sentence.
struct LoadOutcome {
  std::shared_ptr<PluginLibrary> library;
  std::string reason;
  std::string message;
};

class PluginLibrary {
 public:
  // Checks the sha256 pin, opens the library RTLD_LOCAL|RTLD_NOW, finds
  // BERTH_GetApi, checks the table and the major version, initializes the
  // plugin and reads its extension chain. Never throws.
  static LoadOutcome Load(const Manifest& manifest, const LoadOptions& options);

  ~PluginLibrary();
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  const std::string& name() const { return name_; }
  const BERTH_Api& api() const { return *api_; }
  int plugin_major() const { return plugin_major_; }
  int plugin_minor() const { return plugin_minor_; }
  // The minor both sides understand: min(host, plugin).
  int negotiated_minor() const { return negotiated_minor_; }
  std::string NegotiatedVersion() const;
  // Extension types in chain order (unknown ones included).
  const std::vector<int>& extension_types() const { return extension_types_; }
  const NamedValueMap& attributes() const { return attributes_; }

  // The function in `field`, or NULL when the table is too short for it (the
  // plugin is of an older minor) or leaves it empty.
  template <typename Fn>
  Fn* Function(Fn* BERTH_Api::*field) const {
    static const BERTH_Api probe{};
    size_t end = static_cast<size_t>(reinterpret_cast<const char*>(&(probe.*field)) -
                                     reinterpret_cast<const char*>(&probe)) +
                 sizeof(Fn*);
    if (end > api_->struct_size) return nullptr;
    return api_->*field;
  }

  // Calls an entry point: UNIMPLEMENTED naming it when absent; the plugin's
  // error converted (and freed) otherwise; an exception escaping the plugin
  // becomes INTERNAL.
  template <typename Fn, typename Args>
  Status Call(Fn* BERTH_Api::*field, const char* function, Args* args) const {
    Fn* fn = Function(field);
    if (fn == nullptr) return Unimplemented(function);
    return Invoke(fn, function, args);
  }

  // The plugin's extension struct of `type` when its chain has one at least
  // `min_size` bytes long (the extension's layout this host reads); NULL when
  // absent, or too small (logged: the extension is not used).
  template <typename T>
  const T* Extension(BERTH_Extension_Type type, size_t min_size) const {
    return reinterpret_cast<const T*>(UsableExtension(type, min_size));
  }

  // Calls an extension's entry point like Call does a table's: UNIMPLEMENTED
  // when it is NULL, the plugin's error converted, an escaping exception
  // turned into INTERNAL.
  template <typename Args>
  Status CallExtension(BERTH_Error* (*fn)(Args*), const char* function, Args* args) const {
    if (fn == nullptr) {
      return UnimplementedError("plugin '" + name_ + "' does not implement " + function);
    }
    return Invoke(fn, function, args);
  }

  // Converts a plugin error to a Status and destroys it.
  Status TakeError(BERTH_Error* error, const char* function) const;
  Status Unimplemented(const char* function) const;
  // UNIMPLEMENTED "plugin 'x' does not implement the 'ffi' extension": what
  // every host call of an extension the plugin lacks answers.
  Status MissingExtension(BERTH_Extension_Type type) const;

 private:
  PluginLibrary() = default;

  template <typename Fn, typename Args>
  Status Invoke(Fn* fn, const char* function, Args* args) const {
    BERTH_Error* error = nullptr;
    try {
      error = fn(args);
    } catch (...) {
      return InternalError("plugin '" + name_ + "': " + function +
                           " let an exception escape through the C ABI");
    }
    return TakeError(error, function);
  }
  const BERTH_Extension_Base* UsableExtension(BERTH_Extension_Type type, size_t min_size) const;

  std::string name_;
  std::unique_ptr<boost::dll::shared_library> library_;
  bool no_unload_ = false;
  const BERTH_Api* api_ = nullptr;
  int plugin_major_ = 0;
  int plugin_minor_ = 0;
  int negotiated_minor_ = 0;
  std::vector<int> extension_types_;
  NamedValueMap attributes_;
  std::string host_name_;
  std::string log_category_;
  BERTH_HostServices services_{};
};

// Calls `Name` of the library's table: BERTH_CALL(lib, BERTH_Client_Destroy, &args).
#define BERTH_CALL(library, Name, args) (library).Call(&BERTH_Api::Name, #Name, (args))

}  // namespace berth::core

#endif  // BERTH_HOST_LOADER_PLUGIN_LIBRARY_HPP_
