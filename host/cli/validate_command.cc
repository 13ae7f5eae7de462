// berth validate MANIFEST... [--json]
#include <iostream>

#include "cli/command.hpp"
#include "loader/extension_module.hpp"
#include "manifest/manifest.hpp"

namespace berth::cli {

namespace po = boost::program_options;

int RunValidate(const std::vector<std::string>& args, Context& context) {
  po::options_description options("options");
  std::vector<std::string> files;
  options.add_options()
      ("file", po::value<std::vector<std::string>>(&files)->required(), "manifest files")
      ("json", "print a JSON report");
  po::positional_options_description positional;
  positional.add("file", -1);
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("validate", "MANIFEST... [--json]", options, &positional, args, vm, context,
                 exit_code)) {
    return exit_code;
  }
  bool all_valid = true;
  nlohmann::json results = nlohmann::json::array();
  for (const std::string& file : files) {
    host::ManifestParseResult result = host::LoadManifestFile(file);
    if (result.manifest && result.manifest->kind == host::ManifestKind::kExtension) {
      // Type-specific fields (an FFI module's "functions"), checked as the
      // host would before opening the library.
      if (Status status = host::ExtensionModule::CheckManifest(*result.manifest); !status.ok()) {
        result.error = {status.code() == StatusCode::kUnimplemented
                            ? std::string(host::reason::kUnsupportedExtensionType)
                            : std::string(host::reason::kInvalidModule),
                        std::string(status.message())};
        result.manifest.reset();
      }
    }
    bool valid = result.manifest.has_value();
    all_valid = all_valid && valid;
    nlohmann::json entry = {{"file", file}, {"valid", valid}};
    if (valid) {
      entry["name"] = result.manifest->name;
      entry["kind"] = std::string(host::ManifestKindName(result.manifest->kind));
      context.out << file << ": ok (" << host::ManifestKindName(result.manifest->kind) << " '"
                  << result.manifest->name << "')\n";
    } else {
      entry["reason"] = result.error.reason;
      entry["message"] = result.error.message;
      context.err << file << ": invalid [" << result.error.reason << "] " << result.error.message
                  << "\n";
    }
    results.push_back(entry);
  }
  if (vm.count("json")) PrintJson(context.out, {{"manifests", results}});
  return all_valid ? kExitOk : kExitFailure;
}

}  // namespace berth::cli
