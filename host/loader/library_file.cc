#include "loader/library_file.hpp"

#include <dlfcn.h>

#include <boost/dll/shared_library.hpp>
#include <filesystem>
#include <mutex>
#include <system_error>
#include <vector>

#include "berth/c_api.h"
#include "common/sha256.hpp"

namespace berth::core {
namespace {

LibraryFileOutcome Failed(std::string_view reason, std::string message) {
  return LibraryFileOutcome{nullptr, std::string(reason), std::move(message)};
}

}  // namespace

LibraryFileOutcome OpenLibraryFile(const Manifest& manifest, const std::string& where) {
  const std::filesystem::path& path = manifest.library;
  // A library declared for an ABI major this host does not speak is not
  // even opened (what it declares is what its vendor built it for).
  if (manifest.api_major != BERTH_API_MAJOR) {
    return Failed(reason::kDeclaredAbiUnsupported,
                  where + ": the manifest declares \"api_version\" " +
                      std::to_string(manifest.api_major) + "." + std::to_string(manifest.api_minor) +
                      ", but this host speaks Berth ABI " + std::to_string(BERTH_API_MAJOR) +
                      ".x; install a build of the plugin for ABI " + std::to_string(BERTH_API_MAJOR) +
                      " (or fix the declaration). Not opened; skipped.");
  }
  if (!manifest.library_is_bare_name) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      return Failed(reason::kLibraryNotFound,
                  where + ": library " + path.string() +
                      " does not exist; fix \"library_path\" or install the library. Skipped.");
    }
    if (!std::filesystem::is_regular_file(path, ec)) {
      return Failed(reason::kLibraryLoadFailed,
                  where + ": library " + path.string() +
                      " is not a regular file; fix \"library_path\". Skipped.");
    }
  }
  if (manifest.sha256) {
    if (manifest.library_is_bare_name) {
      return Failed(reason::kSha256Mismatch,
                  where + ": \"sha256\" pins a library found by the system search (\"" +
                      manifest.library_path +
                      "\"); give an absolute or relative \"library_path\". Skipped.");
    }
    Result<std::string> digest = common::Sha256File(path);
    if (!digest.ok()) {
      return Failed(reason::kLibraryLoadFailed,
                  where + ": cannot read " + path.string() + " to check \"sha256\": " +
                      digest.status().message() + ". Skipped.");
    }
    if (*digest != *manifest.sha256) {
      return Failed(reason::kSha256Mismatch,
                  where + ": library " + path.string() + " has sha256 " + *digest +
                      " but the manifest pins " + *manifest.sha256 +
                      "; the file was changed or replaced. Not opened; skipped.");
    }
  }

  auto library = std::make_unique<boost::dll::shared_library>();
  namespace mode = boost::dll::load_mode;
  mode::type flags = mode::rtld_local | mode::rtld_now;
  if (manifest.library_is_bare_name) flags = flags | mode::search_system_folders;
  dlerror();  // clear any stale message
  boost::dll::fs::error_code load_error;
  library->load(path, flags, load_error);
  if (load_error || !library->is_loaded()) {
    const char* detail = dlerror();
    // A bare name is searched for by the system (LD_LIBRARY_PATH, ld.so.cache,
    // the default folders), never beside the manifest: say so, since that is
    // the usual surprise.
    const std::string hint =
        manifest.library_is_bare_name
            ? "; \"library_path\": \"" + manifest.library_path +
                  "\" is a bare name, searched for by the system loader only, not in the "
                  "manifest's folder: write \"./" + manifest.library_path +
                  "\" for a library beside the manifest, or an absolute path"
            : "; fix \"library_path\" or the library";
    return Failed(reason::kLibraryLoadFailed,
                where + ": cannot load " + path.string() + ": " +
                    (detail != nullptr ? detail : load_error.message()) + hint + ". Skipped.");
  }
  return LibraryFileOutcome{std::move(library), "", ""};
}

void KeepLoaded(std::unique_ptr<boost::dll::shared_library> library) {
  static std::mutex kept_mutex;
  static auto* kept = new std::vector<std::unique_ptr<boost::dll::shared_library>>();
  std::lock_guard<std::mutex> lock(kept_mutex);
  kept->push_back(std::move(library));
}

}  // namespace berth::core
