// Manifest files: parsing and validation of one JSON manifest
// (docs/manifests.md). Opens no library.
#ifndef BERTH_HOST_MANIFEST_MANIFEST_HPP_
#define BERTH_HOST_MANIFEST_MANIFEST_HPP_

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "berth/named_value.hpp"

namespace berth::core {

enum class ManifestKind { kPlugin, kExtension };

std::string_view ManifestKindName(ManifestKind kind);  // "plugin" / "extension"

// Stable, machine-readable reasons a manifest (or its library) is skipped.
// Printed by `berth plugins --json` as "reason"; never renamed once shipped.
namespace reason {
inline constexpr std::string_view kUnreadable = "unreadable";          // I/O error
inline constexpr std::string_view kNotAFile = "not_a_file";            // e.g. a folder named x.json
inline constexpr std::string_view kTooLarge = "too_large";             // over kMaxManifestBytes
inline constexpr std::string_view kEmpty = "empty";                    // zero bytes / only blanks
inline constexpr std::string_view kInvalidUtf8 = "invalid_utf8";
inline constexpr std::string_view kInvalidJson = "invalid_json";       // syntax, truncated
inline constexpr std::string_view kTooDeep = "too_deep";               // nesting over kMaxJsonDepth
inline constexpr std::string_view kNotAnObject = "not_an_object";
inline constexpr std::string_view kUnsupportedFormat = "unsupported_file_format";
inline constexpr std::string_view kMissingField = "missing_field";
inline constexpr std::string_view kWrongType = "wrong_type";
inline constexpr std::string_view kInvalidValue = "invalid_value";
inline constexpr std::string_view kAmbiguousKind = "ambiguous_kind";   // both "plugin" and "extension"
// Discovery-side reasons (set by host/manifest/discovery.cc).
inline constexpr std::string_view kShadowed = "shadowed";              // an earlier manifest has the same kind and name
inline constexpr std::string_view kDisabled = "disabled";              // BERTH_PLUGINS_DISABLE / BERTH_PLUGINS_SELECT
// Loader-side reasons (set by host/loader, listed here so all codes live in one place).
inline constexpr std::string_view kDeclaredAbiUnsupported = "declared_abi_unsupported";  // "api_version" major is not the host's: not opened
inline constexpr std::string_view kLibraryNotFound = "library_not_found";
inline constexpr std::string_view kLibraryLoadFailed = "library_load_failed";
inline constexpr std::string_view kSha256Mismatch = "sha256_mismatch";
inline constexpr std::string_view kNoEntrySymbol = "no_entry_symbol";
inline constexpr std::string_view kNullApiTable = "null_api_table";
inline constexpr std::string_view kInvalidApiTable = "invalid_api_table";
inline constexpr std::string_view kAbiMajorMismatch = "abi_major_mismatch";
inline constexpr std::string_view kInitializeFailed = "initialize_failed";
inline constexpr std::string_view kInvalidExtensionChain = "invalid_extension_chain";
inline constexpr std::string_view kPlatformMismatch = "platform_mismatch";
// Only from a check in a child process (`berth validate`): opening the
// library ended or stalled the process (the loader itself would not return).
inline constexpr std::string_view kLoadCrashed = "load_crashed";
inline constexpr std::string_view kLoadTimeout = "load_timeout";
}  // namespace reason

inline constexpr size_t kMaxManifestBytes = 1 << 20;  // 1 MiB
inline constexpr int kMaxJsonDepth = 64;

// A valid manifest (docs/manifests.md, "Fields"); `raw` keeps the whole "plugin" or
// "extension" object so type-specific fields (e.g. an FFI module's
// "functions") can be read by their owner.
struct Manifest {
  std::filesystem::path path;          // the manifest file as found
  ManifestKind kind = ManifestKind::kPlugin;
  std::string file_format_version;     // "1.0.0"
  std::string name;
  std::string library_path;            // as written in the file
  // Resolved: absolute paths stay; a path with a '/' is made relative to the
  // manifest's folder (lexically normalised); a bare name is kept as is and
  // goes to the system search (library_is_bare_name).
  std::filesystem::path library;
  bool library_is_bare_name = false;
  int api_major = 0;                   // from "api_version": "MAJOR.MINOR"
  int api_minor = 0;
  std::string description;             // optional, "" when absent
  int64_t priority = 0;                // optional, default 0; higher wins
  std::optional<std::string> sha256;   // optional; 64 lower-case hex digits
  // Plugin manifests only.
  std::string platform;                // required for plugins
  // Optional; typed as the C ABI carries them: strings, int64, float64, bools,
  // lists of int64 (an integral float in a list is an integer).
  NamedValueMap create_options;
  // Extension manifests only.
  std::string extension_type;          // "ffi", "callback", ... (required)
  int extension_type_id = 0;           // its BERTH_Extension_Type_*; 0: a name Berth does not know
  std::vector<std::string> applies_to; // platform globs (required, non-empty)
  nlohmann::json raw;                  // the "plugin" / "extension" object
};

// Why a manifest was rejected: a stable reason code and a sentence naming the
// file, the field and the fix, e.g.
// `manifest /x/a.json: "library_path" is missing; add the path of the plugin's
// shared library`.
struct ManifestError {
  std::string reason;
  std::string message;
};

// Either a Manifest or the error that rejected it.
struct ManifestParseResult {
  std::optional<Manifest> manifest;
  ManifestError error;  // meaningful when !manifest
  // Best-effort name and kind of a rejected manifest (empty/kPlugin when unknown).
  std::string name;
  ManifestKind kind = ManifestKind::kPlugin;
};

// Parses and validates manifest text. `path` names the file in messages and is
// used to resolve a relative library_path. Never throws; any input is safe.
ManifestParseResult ParseManifest(const std::filesystem::path& path, std::string_view text);

// Reads then parses a file (not_a_file, unreadable, too_large handled here).
ManifestParseResult LoadManifestFile(const std::filesystem::path& path);

// The fields the parser requires, in the order it checks them: at the top
// level (besides exactly one of "plugin"/"extension"), and inside the "plugin"
// or "extension" object. The JSON Schema's "required" lists are tested
// against these, so the two cannot drift apart.
std::span<const std::string_view> RequiredTopLevelFields();
std::span<const std::string_view> RequiredFields(ManifestKind kind);

// Matches a glob with '*' (any run, possibly empty) and '?' (one character).
bool GlobMatch(std::string_view pattern, std::string_view text);

// The sentence for reason::kPlatformMismatch: `manifest` declares another
// platform than `reported`, the one its plugin's client gives.
std::string PlatformMismatchMessage(const Manifest& manifest, std::string_view reported);

}  // namespace berth::core

#endif  // BERTH_HOST_MANIFEST_MANIFEST_HPP_
