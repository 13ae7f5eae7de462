// berth info NAME [--json]
#include <iostream>
#include <memory>

#include "berth/extension_chain.hpp"
#include "berth/job.hpp"
#include "cli/command.hpp"
#include "loader/attributes.hpp"

namespace berth::cli {

namespace po = boost::program_options;

int RunInfo(const std::vector<std::string>& args, Context& context) {
  po::options_description options("options");
  std::string name;
  options.add_options()
      ("name", po::value<std::string>(&name)->required(), "plugin name")
      ("json", "print as JSON");
  po::positional_options_description positional;
  positional.add("name", 1);
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("info", "NAME [--json]", options, &positional, args, vm, context, exit_code)) {
    return exit_code;
  }
  Result<Host> host = MakeHost();
  if (!host.ok()) {
    context.err << "berth info: " << host.status().ToString() << "\n";
    return kExitFailure;
  }
  Result<PluginInfo> info = host->Load(name);
  if (!info.ok()) {
    context.err << "berth info: " << info.status().message() << "\n";
    return kExitFailure;
  }
  // Under a launcher (berth launch, or mpirun/srun with BERTH_COORDINATOR)
  // the client joins the job: it shows every node's devices and the slices.
  Result<std::unique_ptr<Job>> job = Job::JoinFromEnvironment();
  if (!job.ok()) {
    context.err << "berth info: " << job.status().ToString() << "\n";
    return kExitFailure;
  }
  ClientOptions client_options;
  if (*job) client_options = (*job)->ClientOptionsFor(name);
  Result<Client> client = host->CreateClient(name, client_options);
  // Each device's slice when the plugin reports them (multi_slice).
  Result<SliceLayout> layout = client.ok() ? client->slice_layout() : client.status();
  auto slice_of = [&](size_t i) {
    return layout.ok() && i < layout->device_slices.size() ? layout->device_slices[i] : 0;
  };
  nlohmann::json report = PluginInfoJson(*info);
  // Well-known attributes of the wrong type or range (berth/c_api.h).
  const std::vector<std::string> warnings = core::WellKnownAttributeProblems(info->attributes);
  report["warnings"] = warnings;
  if (client.ok()) {
    report["platform_name"] = client->platform_name();
    report["platform_version"] = client->platform_version();
    nlohmann::json devices = nlohmann::json::array();
    for (const Device& device : client->devices()) {
      devices.push_back({{"id", device.id()},
                         {"kind", device.kind()},
                         {"process_index", device.process_index()},
                         {"addressable", device.is_addressable()},
                         {"slice", slice_of(devices.size())},
                         {"description", device.debug_string()},
                         {"attributes", NamedValuesJson(device.attributes())}});
    }
    report["devices"] = devices;
    report["slices"] = layout.ok() ? layout->num_slices : 1;
  } else {
    report["client_error"] = client.status().ToString();
  }
  if (vm.count("json")) {
    PrintJson(context.out, report);
  } else {
    context.out << "name:        " << info->name << "\n"
                << "manifest:    " << info->manifest.string() << "\n"
                << "library:     " << info->library.string() << "\n"
                << "ABI:         " << info->api_version << " declared, "
                << info->negotiated_version << " negotiated\n"
                << "platform:    " << info->platform << " (priority " << info->priority << ")\n";
    if (!info->description.empty()) context.out << "description: " << info->description << "\n";
    context.out << "extensions:  ";
    for (const std::string& ext : info->extensions) context.out << ext << " ";
    context.out << (info->extensions.empty() ? "none\n" : "\n");
    context.out << "attributes:  " << NamedValuesJson(info->attributes).dump() << "\n";
    for (const std::string& warning : warnings) context.out << "warning:     " << warning << "\n";
    if (client.ok()) {
      const size_t devices = client->devices().size();
      const int slices = layout.ok() ? layout->num_slices : 1;
      context.out << "client:      " << client->platform_name() << " " << client->platform_version()
                  << ", " << devices << (devices == 1 ? " device" : " devices")
                  << (slices > 1 ? " in " + std::to_string(slices) + " slices\n"
                                 : std::string("\n"));
      for (size_t i = 0; i < devices; ++i) {
        context.out << "  " << client->devices()[i].debug_string()
                    << (slices > 1 ? " (slice " + std::to_string(slice_of(i)) + ")" : std::string())
                    << "\n";
      }
    } else {
      context.out << "client:      cannot create one: " << client.status().ToString() << "\n";
    }
  }
  context.out.flush();
  if (*job) {
    if (Status left = (*job)->Shutdown(); !left.ok()) {
      context.err << "berth info: leaving the job: " << left.ToString() << "\n";
      return kExitFailure;
    }
  }
  return client.ok() ? kExitOk : kExitFailure;
}

}  // namespace berth::cli
