// berth run PROGRAM.mlir|PROGRAM.bexe|INTERMEDIATE [--plugin NAME] [--entry NAME] [--arg VALUE]... [--partitions N] [--mesh x=2,y=2] [--json]
//           [--out FILE.npy]
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "abi_version/executable_file.hpp"
#include "phase_compile/intermediate_file.hpp"
#include "cli/command.hpp"
#include "cli/host_array.hpp"
#include "cli/session.hpp"
#include "cli/sharded_run.hpp"

namespace berth::cli {

namespace po = boost::program_options;

namespace {

Result<HostArray> ParseArgument(const std::string& value) {
  if (value.rfind("dense", 0) == 0) return ParseMlirLiteral(value);
  std::filesystem::path path(value);
  if (path.extension() == ".npy" || std::filesystem::exists(path)) return ReadNpy(path);
  return InvalidArgumentError("argument '" + value +
                              "' is neither an MLIR literal (dense<...> : tensor<...>) nor a .npy file");
}

// FILE.npy for one result; FILE_<i>.npy for several.
std::filesystem::path OutPath(const std::filesystem::path& out, size_t index, size_t count) {
  if (count == 1) return out;
  std::filesystem::path path = out;
  path.replace_filename(out.stem().string() + "_" + std::to_string(index) + out.extension().string());
  return path;
}

// Compiles and runs MLIR text (partitioned first when its entry is
// sharded), or loads and runs a berth-executable file.
Result<RunOutput> RunProgram(Session& session, const std::string& code,
                             const std::string& source_name, const std::string& entry,
                             const std::vector<HostArray>& arguments, int64_t partitions, const std::string& mesh) {
  if (ext::phase_compile::LooksLikeIntermediate(code)) {
    // A phase's output, checked by the host, then compiled in its format
    // (the plugin runs the phases after it).
    BERTH_ASSIGN_OR_RETURN(CompileIntermediate input, session.client().ReadIntermediate(code, source_name));
    BERTH_RETURN_IF_ERROR(session.EnsureDeviceCount(input.num_devices));
    BERTH_ASSIGN_OR_RETURN(Executable executable, session.Compile(input.bytes, source_name, entry, {}, input.format));
    // A program the plugin partitioned takes and gives global arrays, split
    // and gathered as its layouts say.
    if (!executable.parameter_shardings().empty() || !executable.output_shardings().empty()) {
      return RunPartitionedExecutable(session, executable, arguments);
    }
    return session.Execute(executable, arguments);
  }
  if (!ext::abi_version::LooksLikeExecutableFile(code)) {
    BERTH_ASSIGN_OR_RETURN(spmd::PartitionOptions options, PartitionFlags(partitions, mesh));
    // Custom calls are cut by the rules of the custom_partitioner modules
    // attached to the client (application rules do not exist here).
    options.custom_rules = ModuleRules(session.client());
    BERTH_ASSIGN_OR_RETURN(std::optional<spmd::PartitionedProgram> sharded,
                           PartitionIfSharded(code, source_name, std::move(options)));
    if (!sharded) {
      if (partitions > 0 || !mesh.empty()) {
        return InvalidArgumentError(std::string(partitions > 0 ? "--partitions" : "--mesh") +
                                    " applies to a sharded module (mhlo.sharding or sdy.sharding on its entry's "
                                    "arguments or results, or a shard_map); this one has none");
      }
      return session.Run(code, source_name, entry, arguments);
    }
    if (!entry.empty()) {
      return UnimplementedError("--entry with a sharded module: the partitioner partitions the module's entry "
                                "function (main, or its only public function)");
    }
    return RunSharded(session, *sharded, source_name, arguments);
  }
  BERTH_ASSIGN_OR_RETURN(Executable executable, session.client().Deserialize(code, source_name));
  return session.Execute(executable, arguments);
}

}  // namespace

int RunRun(const std::vector<std::string>& args, Context& context) {
  po::options_description options("options");
  std::string program_path, plugin, entry, out;
  std::vector<std::string> arg_values;
  int64_t partitions = 0;
  std::string mesh, cache_dir;
  options.add_options()
      ("program", po::value<std::string>(&program_path)->required(),
       "program file: StableHLO text (.mlir) or a berth-executable file (berth compile)")
      ("plugin", po::value<std::string>(&plugin), "plugin to run on (default: highest priority)")
      ("entry", po::value<std::string>(&entry), "function to run (default: main)")
      ("arg", po::value<std::vector<std::string>>(&arg_values),
       "an argument: an MLIR literal such as 'dense<[1.0, 2.0]> : tensor<2xf32>', or a .npy file")
      ("partitions", po::value<int64_t>(&partitions),
       "a sharded module's partition count (default: mhlo.num_partitions, else its mesh's size, else the most devices its shardings name)")
      ("mesh", po::value<std::string>(&mesh),
       "a Shardy module's mesh, e.g. x=2,y=2: the axes of its sdy.mesh with other sizes")
      ("json", "print results as JSON")
      ("out", po::value<std::string>(&out), "write results to this .npy file (FILE_i.npy if several)")
      ("cache-dir", po::value<std::string>(&cache_dir),
       "keep compiled executables in this folder and reuse them (default: BERTH_COMPILATION_CACHE_DIR, if set)");
  po::positional_options_description positional;
  positional.add("program", 1);
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("run",
                 "PROGRAM.mlir [--plugin NAME] [--entry NAME] [--arg VALUE]... [--partitions N] [--mesh x=2,y=2] [--json] "
                 "[--out FILE.npy] [--cache-dir DIR]",
                 options, &positional, args, vm, context, exit_code)) {
    return exit_code;
  }
  std::ifstream in(program_path, std::ios::binary);
  if (!in) {
    context.err << "berth run: cannot read " << program_path << "\n";
    return kExitFailure;
  }
  std::stringstream code;
  code << in.rdbuf();

  std::vector<HostArray> arguments;
  for (size_t i = 0; i < arg_values.size(); ++i) {
    Result<HostArray> argument = ParseArgument(arg_values[i]);
    if (!argument.ok()) {
      context.err << "berth run: --arg " << i << ": " << argument.status().message() << "\n";
      return kExitUsage;
    }
    arguments.push_back(std::move(argument).value());
  }
  // A berth-executable file or an intermediate runs on the plugin that made
  // it, unless told.
  if (plugin.empty()) {
    Result<std::string> maker = PluginOfArtifact(code.str(), program_path);
    if (!maker.ok()) {
      context.err << "berth run: " << maker.status().ToString() << "\n";
      return kExitFailure;
    }
    plugin = *maker;
  }
  const bool serialized = ext::abi_version::LooksLikeExecutableFile(code.str());
  if (serialized && !entry.empty()) {
    context.err << "berth run: --entry does not apply to a berth-executable file (its entry was "
                   "fixed by berth compile)\n";
    return kExitUsage;
  }
  Result<Session> session = Session::Open(plugin, /*join_job=*/true, cache_dir);
  if (!session.ok()) {
    context.err << "berth run: " << session.status().ToString() << "\n";
    return kExitFailure;
  }
  Result<RunOutput> output = RunProgram(*session, code.str(), program_path, entry, arguments, partitions, mesh);
  if (!output.ok()) {
    if (Job* job = session->job()) FailJob(*job, output.status());
    context.err << "berth run: " << output.status().ToString() << "\n";
    return kExitFailure;
  }
  if (output->results.empty()) {
    // In a job, the program may run only on other nodes' devices (a
    // 1-replica program on node 1, say): this node has no results, and its
    // part of the job succeeds.
    Job* job = session->job();
    std::string where = job ? "node " + std::to_string(job->node_id()) : std::string("this process");
    if (vm.count("json")) {
      nlohmann::json report = {{"results", nlohmann::json::array()}, {"nothing_to_run", true}};
      if (job) {
        report["node"] = job->node_id();
        report["num_nodes"] = job->num_nodes();
      }
      PrintJson(context.out, report);
    } else {
      context.err << "berth run: " << where
                  << " has nothing to run: the program's devices are all on other nodes\n";
    }
    context.out.flush();
    if (job) {
      if (Status status = job->Shutdown(); !status.ok()) {
        context.err << "berth run: leaving the job: " << status.ToString() << "\n";
        return kExitFailure;
      }
    }
    return kExitOk;
  }
  const std::vector<HostArray>& first = output->results.front();
  if (!out.empty()) {
    for (size_t i = 0; i < first.size(); ++i) {
      if (Status status = WriteNpy(OutPath(out, i, first.size()), first[i]); !status.ok()) {
        context.err << "berth run: " << status.message() << "\n";
        return kExitFailure;
      }
    }
  }
  if (vm.count("json")) {
    auto results_json = [](const std::vector<HostArray>& arrays) {
      nlohmann::json list = nlohmann::json::array();
      for (const HostArray& array : arrays) list.push_back(ArrayToJson(array));
      return list;
    };
    nlohmann::json report = {{"results", results_json(first)}};
    if (Job* job = session->job()) {
      report["node"] = job->node_id();
      report["num_nodes"] = job->num_nodes();
    }
    if (output->results.size() > 1) {
      nlohmann::json devices = nlohmann::json::array();
      for (size_t d = 0; d < output->results.size(); ++d) {
        devices.push_back({{"device", output->device_ids[d]}, {"results", results_json(output->results[d])}});
      }
      report["devices"] = devices;
    }
    PrintJson(context.out, report);
  } else {
    for (size_t d = 0; d < output->results.size(); ++d) {
      if (output->results.size() > 1) context.out << "device " << output->device_ids[d] << ":\n";
      for (const HostArray& array : output->results[d]) context.out << FormatMlirLiteral(array) << "\n";
    }
  }
  context.out.flush();
  if (Job* job = session->job()) {
    if (Status status = job->Shutdown(); !status.ok()) {
      context.err << "berth run: leaving the job: " << status.ToString() << "\n";
      return kExitFailure;
    }
  }
  return kExitOk;
}

}  // namespace berth::cli
