// Extension modules: manifests of kind "extension", libraries the host opens
// and attaches to the clients of the plugins they apply to
// (docs/extensions.md#extension-modules). Each extension type that has
// modules implements ExtensionModule in its own folder (today only
// ffi/ffi_module.*); LoadExtensionModule picks the type's loader.
#ifndef BERTH_EXTENSIONS_EXTENSION_MODULE_HPP_
#define BERTH_EXTENSIONS_EXTENSION_MODULE_HPP_

#include <boost/dll/shared_library.hpp>
#include <memory>
#include <string>
#include <string_view>

#include "berth/c_api.h"
#include "berth/named_value.hpp"
#include "berth/status.hpp"
#include "loader/library_file.hpp"
#include "loader/plugin_library.hpp"
#include "manifest/manifest.hpp"

namespace berth::ext {

// Reasons an extension module is skipped (besides the loader's reasons in
// manifest.hpp), printed by `berth plugins --json` and `berth validate`.
namespace reason {
inline constexpr std::string_view kUnsupportedExtensionType = "unsupported_extension_type";
inline constexpr std::string_view kInvalidModule = "invalid_module";
}  // namespace reason

// One loaded module: its library stays mapped while the module lives (for
// the life of the process with BERTH_NO_UNLOAD=1). A subclass's members are
// destroyed before the library is closed.
class ExtensionModule {
 public:
  virtual ~ExtensionModule() {
    if (no_unload_ && library_ != nullptr) core::KeepLoaded(std::move(library_));
  }
  ExtensionModule(const ExtensionModule&) = delete;
  ExtensionModule& operator=(const ExtensionModule&) = delete;

  const std::string& name() const { return name_; }
  BERTH_Extension_Type type() const { return type_; }
  // What `berth plugins` shows of a loaded module (an FFI module's targets).
  virtual NamedValueMap Attributes() const = 0;
  // Gives what the module holds to a client of a plugin that implements the
  // module's type (`extension` is the plugin's struct of that type). A
  // failure is the caller's to log; the client stays usable.
  virtual Status AttachTo(const core::PluginLibrary& library, BERTH_Client* client,
                          const BERTH_Extension_Base* extension) const = 0;

 protected:
  ExtensionModule(const core::Manifest& manifest, const core::LoadOptions& options,
                  std::unique_ptr<boost::dll::shared_library> library)
      : name_(manifest.name),
        type_(static_cast<BERTH_Extension_Type>(manifest.extension_type_id)),
        no_unload_(options.no_unload),
        library_(std::move(library)) {}
  boost::dll::shared_library& library() const { return *library_; }

 private:
  std::string name_;
  BERTH_Extension_Type type_;
  bool no_unload_ = false;
  std::unique_ptr<boost::dll::shared_library> library_;
};

// The outcome of loading a module: the module, or a reason code and a
// sentence naming the file, the field and the fix (already logged).
struct ModuleOutcome {
  std::shared_ptr<ExtensionModule> module;
  std::string reason;
  std::string message;
};

// Opens the module's library and reads what it gives, by the manifest's
// extension type; a type that has no modules is kUnsupportedExtensionType.
ModuleOutcome LoadExtensionModule(const core::Manifest& manifest,
                                  const core::LoadOptions& options);

// The type-specific checks LoadExtensionModule makes before opening anything
// (the type has modules, its fields are well formed); used by
// `berth validate`. UNIMPLEMENTED for a type that has no modules.
Status CheckExtensionModule(const core::Manifest& manifest);

// Logs `message` as a warning and returns it as a failed outcome.
ModuleOutcome ModuleFailure(std::string_view reason, std::string message);

// Calls a module library's exported `symbol` (a function returning its
// static table, `Table`: struct_size, then version) and checks the table:
// not NULL, at least `min_size` bytes, of version 1 to `newest` of the
// extension `extension`. The table, or the sentence (starting with `where`)
// saying what is wrong.
template <typename Table>
Result<const Table*> ReadModuleTable(boost::dll::shared_library& library, const char* symbol, size_t min_size,
                                     const char* table_name, std::string_view extension, int32_t newest,
                                     const std::string& where) {
  const Table* table = nullptr;
  try {
    table = library.get<const Table*()>(symbol)();
  } catch (...) {
    return InvalidArgumentError(where + ": " + symbol + " threw an exception");
  }
  if (table == nullptr || table->struct_size < min_size) {
    return InvalidArgumentError(where + ": " + symbol + " returned NULL or a table smaller than " + table_name);
  }
  if (table->version < 1 || table->version > newest) {
    return InvalidArgumentError(where + ": built for " + std::string(extension) + " extension version " +
                                std::to_string(table->version) + "; this host reads versions 1 to " +
                                std::to_string(newest));
  }
  return table;
}

// A module's Attributes: `key`, the names `name_of` gives the module's
// `targets`, comma-separated.
template <typename Targets, typename NameOf>
NamedValueMap TargetNames(const char* key, const Targets& targets, NameOf name_of) {
  std::string names;
  for (const auto& target : targets) {
    names += (names.empty() ? "" : ",") + std::string(name_of(target));
  }
  return NamedValueMap{{key, names}};
}

// The targets a client refused while a module attached to it: OK when none,
// else the first refusal's code with every refusal listed.
class AttachRefusals {
 public:
  void Add(std::string_view target, const Status& status) {
    if (status.ok()) return;
    if (first_.ok()) first_ = status;
    listed_ += std::string(listed_.empty() ? "" : "; ") + "target '" + std::string(target) +
               "' not registered: " + status.ToString();
  }
  Status ToStatus() const { return first_.ok() ? first_ : Status(first_.code(), listed_); }

 private:
  Status first_;
  std::string listed_;
};

}  // namespace berth::ext

#endif  // BERTH_EXTENSIONS_EXTENSION_MODULE_HPP_
