#include "loader/plugin_library.hpp"

#include <dlfcn.h>

#include <boost/dll/shared_library.hpp>
#include <filesystem>
#include <memory>
#include <mutex>
#include <system_error>
#include <vector>

#include "berth/extension_chain.hpp"
#include "berth/log.hpp"
#include "loader/attributes.hpp"
#include "loader/library_file.hpp"

namespace berth::core {
namespace {

constexpr const char* kCategory = "loader";

std::string VersionString(int major, int minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

LoadOutcome Fail(std::string_view reason, std::string message) {
  Log(LogLevel::kWarning, kCategory, message);
  return LoadOutcome{nullptr, std::string(reason), std::move(message)};
}

void HostLog(void* user_data, BERTH_LogLevel level, const char* message, size_t size) {
  const std::string* category = static_cast<const std::string*>(user_data);
  int clamped = std::clamp(static_cast<int>(level), 0, 3);
  Log(static_cast<LogLevel>(clamped), *category,
      std::string_view(message != nullptr ? message : "", message != nullptr ? size : 0));
}

// The most detailed level any plugin line could be written at.
BERTH_LogLevel PluginLogLevel(const std::string& category) {
  for (LogLevel level : {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarning}) {
    if (LogEnabled(level, category)) return static_cast<BERTH_LogLevel>(level);
  }
  return BERTH_LogLevel_Error;
}

// Functions a table must have for the host to use the plugin at all.
struct RequiredFunction {
  const char* name;
  bool (*present)(const PluginLibrary&);
};

template <auto Field>
bool Has(const PluginLibrary& library) {
  return library.Function(Field) != nullptr;
}

constexpr RequiredFunction kRequired[] = {
    {"BERTH_Error_Destroy", Has<&BERTH_Api::BERTH_Error_Destroy>},
    {"BERTH_Error_Message", Has<&BERTH_Api::BERTH_Error_Message>},
    {"BERTH_Error_GetCode", Has<&BERTH_Api::BERTH_Error_GetCode>},
    {"BERTH_Plugin_Initialize", Has<&BERTH_Api::BERTH_Plugin_Initialize>},
    {"BERTH_Client_Create", Has<&BERTH_Api::BERTH_Client_Create>},
    {"BERTH_Client_Destroy", Has<&BERTH_Api::BERTH_Client_Destroy>},
};

}  // namespace

LoadOutcome PluginLibrary::Load(const Manifest& manifest, const LoadOptions& options) {
  const std::string where = "plugin '" + manifest.name + "' (" + manifest.path.string() + ")";
  const std::filesystem::path& path = manifest.library;

  auto library = std::shared_ptr<PluginLibrary>(new PluginLibrary());
  library->name_ = manifest.name;
  library->no_unload_ = options.no_unload;
  LibraryFileOutcome file = OpenLibraryFile(manifest, where);
  if (!file.library) return Fail(file.reason, std::move(file.message));
  library->library_ = std::move(file.library);
  if (!library->library_->has(BERTH_GET_API_SYMBOL)) {
    return Fail(reason::kNoEntrySymbol,
                where + ": " + path.string() + " does not export " + BERTH_GET_API_SYMBOL +
                    "; it is not a Berth plugin (build it with BERTH_PLUGIN_EXPORT). Skipped.");
  }
  auto* get_api = library->library_->get<BERTH_GetApi_Fn>(BERTH_GET_API_SYMBOL);
  const BERTH_Api* api = nullptr;
  try {
    api = get_api();
  } catch (...) {
    return Fail(reason::kNullApiTable,
                where + ": " + BERTH_GET_API_SYMBOL + " threw an exception. Skipped.");
  }
  if (api == nullptr) {
    return Fail(reason::kNullApiTable,
                where + ": " + BERTH_GET_API_SYMBOL + " returned NULL. Skipped.");
  }
  library->api_ = api;

  constexpr size_t kVersionEnd = BERTH_STRUCT_SIZE(BERTH_Api, api_version);
  if (api->struct_size < kVersionEnd ||
      api->api_version.struct_size < BERTH_Api_Version_STRUCT_SIZE) {
    return Fail(reason::kInvalidApiTable,
                where + ": the API table is " + std::to_string(api->struct_size) +
                    " bytes, too small to hold a version; the plugin is broken. Skipped.");
  }
  library->plugin_major_ = api->api_version.major_version;
  library->plugin_minor_ = api->api_version.minor_version;
  const std::string plugin_version = VersionString(library->plugin_major_, library->plugin_minor_);
  const std::string host_version = VersionString(BERTH_API_MAJOR, BERTH_API_MINOR);
  if (library->plugin_major_ != BERTH_API_MAJOR) {
    // The manifest declared this host's major (checked before opening), so
    // it also misdescribes the library.
    return Fail(reason::kAbiMajorMismatch,
                where + ": plugin ABI " + plugin_version + " is incompatible with host ABI " +
                    host_version + " (the major versions differ; the manifest declares " +
                    std::to_string(manifest.api_major) + "." + std::to_string(manifest.api_minor) +
                    "); rebuild the plugin against Berth ABI " + std::to_string(BERTH_API_MAJOR) +
                    ". Skipped.");
  }
  if (manifest.api_minor != library->plugin_minor_) {
    // Same major (checked before opening and just above): the library's
    // version is what negotiation uses, but the manifest misdescribes it.
    Log(LogLevel::kWarning, kCategory,
        where + ": the manifest declares api_version " + std::to_string(manifest.api_major) +
            "." + std::to_string(manifest.api_minor) + " but the library reports " +
            plugin_version + "; the library's version is used");
  }
  for (const RequiredFunction& required : kRequired) {
    if (!required.present(*library)) {
      return Fail(reason::kInvalidApiTable,
                  where + ": the API table (" + std::to_string(api->struct_size) +
                      " bytes, ABI " + plugin_version + ") lacks " + required.name +
                      ", which every plugin must provide. Skipped.");
    }
  }
  library->negotiated_minor_ = std::min(library->plugin_minor_, BERTH_API_MINOR);

  Result<std::vector<int>> chain = ListExtensionChain(api->extension_start);
  if (!chain.ok()) {
    return Fail(reason::kInvalidExtensionChain,
                where + ": invalid extension chain: " + chain.status().message() + ". Skipped.");
  }
  library->extension_types_ = *chain;
  for (int type : library->extension_types_) {
    if (!IsKnownExtensionType(type)) {
      Log(LogLevel::kInfo, kCategory,
          where + ": ignoring extension type " + std::to_string(type) +
              ", unknown to this host (ABI " + host_version + ")");
    }
  }

  library->host_name_ = "berth " + host_version;
  library->log_category_ = "plugin:" + manifest.name;
  BERTH_HostServices& services = library->services_;
  services.struct_size = BERTH_HostServices_STRUCT_SIZE;
  services.user_data = &library->log_category_;
  services.log = HostLog;
  services.log_level = PluginLogLevel(library->log_category_);
  services.host_name = library->host_name_.data();
  services.host_name_size = library->host_name_.size();

  BERTH_Plugin_Initialize_Args init{};
  init.struct_size = BERTH_Plugin_Initialize_Args_STRUCT_SIZE;
  init.host_api_major = BERTH_API_MAJOR;
  init.host_api_minor = BERTH_API_MINOR;
  init.host_services = &services;
  if (Status status = BERTH_CALL(*library, BERTH_Plugin_Initialize, &init); !status.ok()) {
    return Fail(reason::kInitializeFailed,
                where + ": BERTH_Plugin_Initialize failed: " + status.ToString() + ". Skipped.");
  }

  if (library->Function(&BERTH_Api::BERTH_Plugin_Attributes) != nullptr) {
    BERTH_Plugin_Attributes_Args attrs{};
    attrs.struct_size = BERTH_Plugin_Attributes_Args_STRUCT_SIZE;
    Status status = BERTH_CALL(*library, BERTH_Plugin_Attributes, &attrs);
    Result<NamedValueMap> map = status.ok()
                                    ? NamedValuesFromC(attrs.attributes, attrs.num_attributes,
                                                       "plugin attribute")
                                    : Result<NamedValueMap>(status);
    if (map.ok()) {
      library->attributes_ = std::move(map).value();
      for (const std::string& problem : WellKnownAttributeProblems(library->attributes_)) {
        Log(LogLevel::kWarning, kCategory, where + ": " + problem);
      }
    } else {
      Log(LogLevel::kWarning, kCategory,
          where + ": ignoring its attributes: " + map.status().ToString());
    }
  }
  Log(LogLevel::kInfo, kCategory,
      where + ": loaded " + path.string() + ", plugin ABI " + plugin_version +
          ", negotiated " + library->NegotiatedVersion());
  return LoadOutcome{std::move(library), "", ""};
}

PluginLibrary::~PluginLibrary() {
  if (no_unload_ && library_ != nullptr) KeepLoaded(std::move(library_));
}

std::string PluginLibrary::NegotiatedVersion() const {
  return VersionString(BERTH_API_MAJOR, negotiated_minor_);
}

Status PluginLibrary::TakeError(BERTH_Error* error, const char* function) const {
  if (error == nullptr) return OkStatus();
  BERTH_Error_GetCode_Args code_args{};
  code_args.struct_size = BERTH_Error_GetCode_Args_STRUCT_SIZE;
  code_args.error = error;
  StatusCode code = StatusCode::kUnknown;
  BERTH_Error* code_error = api_->BERTH_Error_GetCode(&code_args);
  if (code_error == nullptr) {
    code = StatusCodeFromInt(static_cast<int>(code_args.code));
  } else {
    BERTH_Error_Destroy_Args destroy{};
    destroy.struct_size = BERTH_Error_Destroy_Args_STRUCT_SIZE;
    destroy.error = code_error;
    api_->BERTH_Error_Destroy(&destroy);
  }
  BERTH_Error_Message_Args message_args{};
  message_args.struct_size = BERTH_Error_Message_Args_STRUCT_SIZE;
  message_args.error = error;
  api_->BERTH_Error_Message(&message_args);
  std::string message = message_args.message != nullptr
                            ? std::string(message_args.message, message_args.message_size)
                            : std::string("(no message)");
  BERTH_Error_Destroy_Args destroy{};
  destroy.struct_size = BERTH_Error_Destroy_Args_STRUCT_SIZE;
  destroy.error = error;
  api_->BERTH_Error_Destroy(&destroy);
  if (code == StatusCode::kOk) {
    // A plugin returned an error object that says OK: keep it an error.
    return UnknownError("plugin '" + name_ + "': " + function +
                        " returned an error with code OK: " + message);
  }
  return Status(code, std::move(message));
}

const BERTH_Extension_Base* PluginLibrary::UsableExtension(BERTH_Extension_Type type,
                                                          size_t min_size) const {
  // The chain was checked when the library loaded.
  const BERTH_Extension_Base* node = FindExtension(api_->extension_start, type);
  if (node == nullptr) return nullptr;
  if (node->struct_size < min_size) {
    Log(LogLevel::kWarning, "extensions",
        "plugin '" + name_ + "': its '" + ExtensionTypeName(type) + "' extension struct has " +
            std::to_string(node->struct_size) + " bytes, fewer than the " +
            std::to_string(min_size) + " this host reads; the extension is not used");
    return nullptr;
  }
  return node;
}

Status PluginLibrary::MissingExtension(BERTH_Extension_Type type) const {
  return UnimplementedError("plugin '" + name_ + "' does not implement the '" +
                            ExtensionTypeName(type) + "' extension");
}

Status PluginLibrary::Unimplemented(const char* function) const {
  return UnimplementedError("plugin '" + name_ + "' (ABI " +
                            VersionString(plugin_major_, plugin_minor_) +
                            ") does not implement " + function);
}

}  // namespace berth::core
