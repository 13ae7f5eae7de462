// berth plugins [--json] [--load]
//
// --load also makes one client of each plugin that loaded (with its
// manifest's create options) and reports its device count, or why it has
// none: a GPU plugin on a machine without a GPU loads, and says so.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>

#include "cli/command.hpp"

namespace berth::cli {

namespace po = boost::program_options;

nlohmann::json NamedValuesJson(const NamedValueMap& values) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, value] : values) {
    std::visit([&](const auto& v) { out[name] = v; }, value);
  }
  return out;
}

nlohmann::json PluginInfoJson(const PluginInfo& info) {
  nlohmann::json out = {
      {"name", info.name},
      {"kind", info.kind},
      {"manifest", info.manifest.string()},
      {"library", info.library.string()},
      {"status", info.status},
  };
  if (!info.reason.empty()) out["reason"] = info.reason;
  if (!info.message.empty()) out["message"] = info.message;
  if (!info.api_version.empty()) out["api_version"] = info.api_version;
  if (!info.negotiated_version.empty()) out["negotiated_version"] = info.negotiated_version;
  if (info.kind == "plugin") {
    out["platform"] = info.platform;
    out["priority"] = info.priority;
  } else {
    out["type"] = info.extension_type;
  }
  if (!info.description.empty()) out["description"] = info.description;
  out["extensions"] = info.extensions;
  if (!info.attributes.empty()) out["attributes"] = NamedValuesJson(info.attributes);
  return out;
}

namespace {

// Devices of a client made with the manifest's options, or why none.
struct ClientProbe {
  int64_t devices = 0;
  std::string error;
};

std::map<std::string, ClientProbe> ProbeClients(Host& host,
                                                const std::vector<PluginInfo>& plugins) {
  std::map<std::string, ClientProbe> probes;
  for (const PluginInfo& info : plugins) {
    if (info.kind != "plugin" || info.status != "ok") continue;
    Result<Client> client = host.CreateClient(info.name);
    ClientProbe& probe = probes[info.name];
    if (client.ok()) {
      probe.devices = static_cast<int64_t>(client->devices().size());
    } else {
      probe.error = client.status().ToString();
    }
  }
  return probes;
}

}  // namespace

int RunPlugins(const std::vector<std::string>& args, Context& context) {
  po::options_description options("options");
  options.add_options()
      ("json", "print the full report as JSON")
      ("load", "open, negotiate and initialize every plugin");
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("plugins", "[--json] [--load]", options, nullptr, args, vm, context, exit_code)) {
    return exit_code;
  }
  Result<Host> host = MakeHost();
  if (!host.ok()) {
    context.err << "berth plugins: " << host.status().ToString() << "\n";
    return kExitFailure;
  }
  if (vm.count("load")) host->LoadAll();
  std::vector<PluginInfo> plugins = host->Plugins();
  std::map<std::string, ClientProbe> probes;
  if (vm.count("load")) probes = ProbeClients(*host, plugins);

  if (vm.count("json")) {
    nlohmann::json list = nlohmann::json::array();
    for (const PluginInfo& info : plugins) {
      nlohmann::json entry = PluginInfoJson(info);
      if (auto it = probes.find(info.name); it != probes.end()) {
        if (it->second.error.empty()) {
          entry["devices"] = it->second.devices;
        } else {
          entry["devices"] = 0;
          entry["client_error"] = it->second.error;
        }
      }
      list.push_back(std::move(entry));
    }
    PrintJson(context.out, {{"plugins", list}});
    return kExitOk;
  }
  if (plugins.empty()) {
    context.out << "no plugin manifests found (set BERTH_PLUGIN_PATH or see `berth --help`)\n";
    return kExitOk;
  }
  // The name column fits the longest name (16 at least), so a long one
  // does not run into the next column.
  int name_width = 16;
  for (const PluginInfo& info : plugins) name_width = std::max(name_width, static_cast<int>(info.name.size()) + 1);
  context.out << std::left << std::setw(name_width) << "NAME" << std::setw(11) << "KIND"
              << std::setw(10) << "STATUS" << std::setw(8) << "ABI" << std::setw(11)
              << "NEGOTIATED" << std::setw(10) << "PLATFORM" << "MANIFEST\n";
  for (const PluginInfo& info : plugins) {
    context.out << std::left << std::setw(name_width) << (info.name.empty() ? "?" : info.name)
                << std::setw(11) << info.kind << std::setw(10) << info.status << std::setw(8)
                << (info.api_version.empty() ? "-" : info.api_version) << std::setw(11)
                << (info.negotiated_version.empty() ? "-" : info.negotiated_version)
                << std::setw(10) << (info.platform.empty() ? "-" : info.platform)
                << info.manifest.string() << "\n";
    if (!info.message.empty()) {
      context.out << "    " << info.reason << ": " << info.message << "\n";
    }
    if (auto it = probes.find(info.name); it != probes.end()) {
      if (it->second.error.empty()) {
        context.out << "    devices: " << it->second.devices << "\n";
      } else {
        context.out << "    no devices: " << it->second.error << "\n";
      }
    }
  }
  return kExitOk;
}

}  // namespace berth::cli
