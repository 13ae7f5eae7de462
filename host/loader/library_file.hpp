// Opening the shared library a manifest names (plugins and extension
// modules alike): the file must exist and match its "sha256" pin, and is
// loaded RTLD_LOCAL | RTLD_NOW.
#ifndef BERTH_HOST_LOADER_LIBRARY_FILE_HPP_
#define BERTH_HOST_LOADER_LIBRARY_FILE_HPP_

#include <memory>
#include <string>

#include "manifest/manifest.hpp"

namespace boost::dll {
class shared_library;
}

namespace berth::core {

// `library` is set on success; otherwise `reason` (a manifest.hpp reason
// code) and `message` (a sentence naming the file and the fix) say why.
struct LibraryFileOutcome {
  std::unique_ptr<boost::dll::shared_library> library;
  std::string reason;
  std::string message;
};

// `where` starts every message, e.g. "plugin 'cpu' (/x/cpu.json)".
LibraryFileOutcome OpenLibraryFile(const Manifest& manifest, const std::string& where);

// Keeps `library` mapped for the life of the process (BERTH_NO_UNLOAD=1), so
// sanitizer and profiler stacks can still name its functions. The handle is
// reachable from a static, so LeakSanitizer does not report it.
void KeepLoaded(std::unique_ptr<boost::dll::shared_library> library);

}  // namespace berth::core

#endif  // BERTH_HOST_LOADER_LIBRARY_FILE_HPP_
