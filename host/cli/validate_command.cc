// berth validate MANIFEST|FOLDER... [--json] [--manifest-only] [--timeout S]
//
// Says of each manifest what `berth plugins --load` would: the manifest's own
// checks, an FFI module's "functions", then the loader's checks of the
// library (declared ABI, file, sha256 pin, entry symbol, table, ABI major,
// initialization, extension chain), with the loader's reason codes. The
// library is opened in a child process, so one that crashes or hangs cannot
// take validate down (reasons load_crashed, load_timeout). A folder stands
// for the *.json files in it, sorted, as discovery reads them.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/command.hpp"
#include "cli/load_check.hpp"
#include "extension_module.hpp"
#include "manifest/manifest.hpp"

namespace berth::cli {

namespace po = boost::program_options;

namespace {

// The files named, folders replaced by their *.json files.
std::vector<std::string> ExpandFolders(const std::vector<std::string>& names) {
  std::vector<std::string> files;
  for (const std::string& name : names) {
    std::error_code ec;
    if (!std::filesystem::is_directory(name, ec) || std::filesystem::path(name).extension() == ".json") {
      files.push_back(name);
      continue;
    }
    std::vector<std::string> in_folder;
    for (const auto& entry : std::filesystem::directory_iterator(name, ec)) {
      if (entry.path().extension() == ".json") in_folder.push_back(entry.path().string());
    }
    std::sort(in_folder.begin(), in_folder.end());
    files.insert(files.end(), in_folder.begin(), in_folder.end());
  }
  return files;
}

}  // namespace

int RunValidate(const std::vector<std::string>& args, Context& context) {
  po::options_description options("options");
  std::vector<std::string> names;
  int timeout = 30;
  options.add_options()
      ("file", po::value<std::vector<std::string>>(&names)->required(),
       "manifest files, or folders of them")
      ("json", "print a JSON report")
      ("manifest-only", "check the manifests alone; do not open their libraries")
      ("timeout", po::value<int>(&timeout),
       "seconds a library may take to open and initialize (default 30)");
  po::positional_options_description positional;
  positional.add("file", -1);
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("validate", "MANIFEST|FOLDER... [--json] [--manifest-only] [--timeout S]",
                 options, &positional, args, vm, context, exit_code)) {
    return exit_code;
  }
  if (timeout < 1) {
    context.err << "berth validate: --timeout must be at least 1 second\n";
    return kExitUsage;
  }
  const bool open_libraries = vm.count("manifest-only") == 0;
  // With --json the report is all of standard output.
  const bool json = vm.count("json") != 0;
  std::ostream& text = json ? context.err : context.out;
  bool all_valid = true;
  nlohmann::json results = nlohmann::json::array();
  for (const std::string& file : ExpandFolders(names)) {
    core::ManifestParseResult result = core::LoadManifestFile(file);
    if (result.manifest && result.manifest->kind == core::ManifestKind::kExtension) {
      // Type-specific fields (an FFI module's "functions"), checked as the
      // host would before opening the library.
      if (Status status = ext::CheckExtensionModule(*result.manifest); !status.ok()) {
        result.error = {status.code() == StatusCode::kUnimplemented
                            ? std::string(ext::reason::kUnsupportedExtensionType)
                            : std::string(ext::reason::kInvalidModule),
                        std::string(status.message())};
        result.manifest.reset();
      }
    }
    LoadCheck load;
    if (result.manifest && open_libraries) {
      load = CheckLoadInChild(*result.manifest, std::chrono::seconds(timeout));
      if (!load.loaded) {
        result.error = {load.reason, load.message};
        result.manifest.reset();
      }
    }
    const bool valid = result.manifest.has_value();
    all_valid = all_valid && valid;
    nlohmann::json entry = {{"file", file}, {"valid", valid}};
    if (valid) {
      const core::Manifest& manifest = *result.manifest;
      const std::string kind(core::ManifestKindName(manifest.kind));
      entry["name"] = manifest.name;
      entry["kind"] = kind;
      entry["library_checked"] = open_libraries;
      if (!load.negotiated_version.empty()) entry["negotiated_version"] = load.negotiated_version;
      if (!json) {
        text << file << ": ok (" << kind << " '" << manifest.name << "'";
        if (!load.negotiated_version.empty()) {
          text << ", ABI " << load.negotiated_version << " negotiated";
        } else if (open_libraries) {
          text << ", library loads";
        } else {
          text << ", library not opened";
        }
        text << ")\n";
      }
    } else {
      entry["reason"] = result.error.reason;
      entry["message"] = result.error.message;
      context.err << file << ": invalid [" << result.error.reason << "] " << result.error.message
                  << "\n";
    }
    results.push_back(entry);
  }
  if (json) PrintJson(context.out, {{"manifests", results}});
  return all_valid ? kExitOk : kExitFailure;
}

}  // namespace berth::cli
