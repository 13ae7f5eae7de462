// berth compile PROGRAM.mlir -o FILE.bexe [--plugin NAME] [--entry NAME]
// berth compile PROGRAM.mlir --list-phases [--json] [--plugin NAME]
// berth compile PROGRAM.mlir|--from FILE [--until PHASE] -o FILE [--plugin NAME] [--entry NAME]
// berth compile PROGRAM.mlir --partitioned [--plugin NAME] [--partitions N] [--mesh x=2,y=2] -o FILE.mlir
#include <fstream>
#include <sstream>

#include "berth/spmd/partitioner.hpp"
#include "berth/stablehlo/parser.hpp"
#include "cli/command.hpp"
#include "cli/session.hpp"
#include "cli/sharded_run.hpp"

namespace berth::cli {

namespace po = boost::program_options;

namespace {

// --partitioned: the per-device program the SPMD partitioner writes, as
// StableHLO text. The custom_partitioner extension modules that attach to
// the plugin (`plugin`, else the default one) give their rules, as in
// `berth run`; with no usable plugin (and none named) the module is
// partitioned without them (custom calls run whole).
int WritePartitioned(const std::string& code, const std::string& program_path, const std::string& plugin,
                     int64_t partitions, const std::string& mesh, const std::string& out_path, Context& context) {
  Result<stablehlo::Module> module =
      stablehlo::ParseModule(code, program_path, stablehlo::ParseOptions{.verify = true});
  Result<spmd::PartitionOptions> options = PartitionFlags(partitions, mesh);
  if (Result<Session> session = Session::Open(plugin); session.ok() && options.ok()) {
    options->custom_rules = ModuleRules(session->client());
  } else if (!plugin.empty() && !session.ok()) {
    context.err << "berth compile: " << session.status().ToString() << "\n";
    return kExitFailure;
  }
  Result<spmd::PartitionedProgram> program = !module.ok()    ? Result<spmd::PartitionedProgram>(module.status())
                                             : !options.ok() ? Result<spmd::PartitionedProgram>(options.status())
                                                             : spmd::Partition(*module, *options);
  if (!program.ok()) {
    context.err << "berth compile: " << program.status().ToString() << "\n";
    return kExitFailure;
  }
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  out << program->text;
  out.close();
  if (!out) {
    context.err << "berth compile: cannot write " << out_path << "\n";
    return kExitFailure;
  }
  context.out << "wrote " << out_path << " (the per-device program of " << program->num_partitions
              << " partitions)\n";
  return kExitOk;
}

// --list-phases: the plugin's compile phases in order.
int ListPhases(Session& session, bool json, Context& context) {
  Result<std::vector<CompilePhase>> phases = session.client().CompilePhases();
  if (!phases.ok()) {
    // A plugin without the extension compiles in one shot.
    context.err << "berth compile: phases are unavailable: " << phases.status().message()
                << "; `berth compile PROGRAM -o FILE.bexe` compiles it in one shot\n";
    return kExitFailure;
  }
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const CompilePhase& p : *phases) {
      list.push_back({{"name", p.name}, {"input", p.input_format}, {"output", p.output_format}});
    }
    PrintJson(context.out, {{"phases", list}});
    return kExitOk;
  }
  for (const CompilePhase& p : *phases) {
    context.out << p.name << ": " << p.input_format << " -> " << p.output_format << "\n";
  }
  return kExitOk;
}

Status WriteFile(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  return out ? OkStatus() : UnavailableError("cannot write " + path);
}

// --until / --from: runs phases (from the program, or after the intermediate
// `--from` names) and writes the last output as an intermediate file, or,
// without --until, loads it and writes a berth-executable file.
Status RunPhases(Session& session, const std::string& input_bytes, const std::string& input_path, bool from,
                 const std::string& until, const std::string& entry, const std::string& out_path, Context& context) {
  CompileIntermediate input;
  if (from) {
    BERTH_ASSIGN_OR_RETURN(input, session.client().ReadIntermediate(input_bytes, input_path));
  } else {
    input.format = "stablehlo";
    input.bytes = input_bytes;
  }
  // A phase that binds to devices needs the program's count of them: from
  // the text, else as the intermediate recorded it; every output records it.
  BERTH_ASSIGN_OR_RETURN(int64_t devices, session.EnsureDevices(input.bytes));
  if (devices == 0) devices = input.num_devices;
  BERTH_RETURN_IF_ERROR(session.EnsureDeviceCount(devices));
  Client& client = session.client();
  CompileOptions options;
  options.entry_name = entry;
  options.options["source_name"] = input_path;
  if (!until.empty()) {
    BERTH_ASSIGN_OR_RETURN(std::vector<CompileIntermediate> outputs, client.RunCompilePhases(input, until, options));
    CompileIntermediate& last = outputs.back();
    last.num_devices = devices;
    BERTH_RETURN_IF_ERROR(WriteFile(out_path, client.WriteIntermediate(last)));
    context.out << "wrote " << out_path << " (" << last.format << ", the output of phase '" << last.phase
                << "')\n";
    return OkStatus();
  }
  // Without --until: the plugin compiles the intermediate in its format (the
  // phases after it run inside the compile).
  options.format = input.format;
  BERTH_ASSIGN_OR_RETURN(Executable executable, client.Compile(input.bytes, options));
  BERTH_ASSIGN_OR_RETURN(std::string bytes, executable.Serialize());
  BERTH_RETURN_IF_ERROR(WriteFile(out_path, bytes));
  context.out << "wrote " << out_path << " (" << bytes.size() << " bytes, plugin '" << session.plugin_name() << "')\n";
  return OkStatus();
}

}  // namespace

int RunCompile(const std::vector<std::string>& args, Context& context) {
  po::options_description options("options");
  std::string program_path, out_path, plugin, entry, until, from_path;
  bool partitioned = false, list_phases = false, json = false;
  int64_t partitions = 0;
  std::string mesh;
  options.add_options()
      ("program", po::value<std::string>(&program_path), "program file (.mlir)")
      ("output,o", po::value<std::string>(&out_path),
       "the file to write: a berth-executable file, or with --until the phase's output (run either with "
       "`berth run FILE`)")
      ("list-phases", po::bool_switch(&list_phases), "list the plugin's compile phases in order")
      ("json", po::bool_switch(&json), "with --list-phases: as JSON")
      ("until", po::value<std::string>(&until), "run the compile phases up to this one and write its output")
      ("from", po::value<std::string>(&from_path),
       "resume from an intermediate file written with --until (its format says which phase comes next)")
      ("plugin", po::value<std::string>(&plugin), "plugin to compile for (default: highest priority)")
      ("entry", po::value<std::string>(&entry), "function to run (default: main)")
      ("partitioned", po::bool_switch(&partitioned),
       "write the per-device StableHLO program the SPMD partitioner makes of a sharded module")
      ("partitions", po::value<int64_t>(&partitions),
       "with --partitioned: the partition count (default: mhlo.num_partitions, else the mesh's size)")
      ("mesh", po::value<std::string>(&mesh),
       "with --partitioned: a Shardy module's mesh, e.g. x=2,y=2 (its sdy.mesh's axes with other sizes)");
  po::positional_options_description positional;
  positional.add("program", 1);
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("compile",
                 "PROGRAM.mlir -o FILE.bexe [--plugin NAME] [--entry NAME]\n"
                 "       berth compile PROGRAM.mlir --list-phases [--json] [--plugin NAME]\n"
                 "       berth compile PROGRAM.mlir|--from FILE [--until PHASE] -o FILE [--plugin NAME] [--entry NAME]\n"
                 "       berth compile PROGRAM.mlir --partitioned [--plugin NAME] [--partitions N] [--mesh x=2,y=2] "
                 "-o FILE.mlir",
                 options,
                 &positional, args, vm, context, exit_code)) {
    return exit_code;
  }
  const bool from = !from_path.empty();
  if (from == !program_path.empty()) {
    context.err << "berth compile: name a program, or an intermediate with --from (not both)\n";
    return kExitUsage;
  }
  if (out_path.empty() && !list_phases) {
    context.err << "berth compile: -o FILE is required\n";
    return kExitUsage;
  }
  if (partitioned && (from || !until.empty() || list_phases)) {
    context.err << "berth compile: --partitioned does not go with --until, --from or --list-phases\n";
    return kExitUsage;
  }
  if (from) program_path = from_path;
  std::ifstream in(program_path, std::ios::binary);
  if (!in) {
    context.err << "berth compile: cannot read " << program_path << "\n";
    return kExitFailure;
  }
  std::stringstream code;
  code << in.rdbuf();
  if (!partitioned && (partitions > 0 || !mesh.empty())) {
    context.err << "berth compile: --partitions and --mesh go with --partitioned\n";
    return kExitUsage;
  }
  if (partitioned) return WritePartitioned(code.str(), program_path, plugin, partitions, mesh, out_path, context);
  if (from && plugin.empty()) {
    // An intermediate continues on the plugin that wrote it.
    Result<std::string> maker = PluginOfArtifact(code.str(), program_path);
    if (!maker.ok()) {
      context.err << "berth compile: " << maker.status().ToString() << "\n";
      return kExitFailure;
    }
    plugin = *maker;
  }
  Result<Session> session = Session::Open(plugin);
  if (!session.ok()) {
    context.err << "berth compile: " << session.status().ToString() << "\n";
    return kExitFailure;
  }
  if (list_phases) return ListPhases(*session, json, context);
  if (from || !until.empty()) {
    Status phased = RunPhases(*session, code.str(), program_path, from, until, entry, out_path, context);
    if (!phased.ok()) {
      context.err << "berth compile: " << phased.ToString() << "\n";
      return kExitFailure;
    }
    return kExitOk;
  }
  Result<Executable> executable = session->Compile(code.str(), program_path, entry);
  Result<std::string> bytes =
      executable.ok() ? executable->Serialize() : Result<std::string>(executable.status());
  if (!bytes.ok()) {
    context.err << "berth compile: " << bytes.status().ToString() << "\n";
    return kExitFailure;
  }
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  out.close();
  if (!out) {
    context.err << "berth compile: cannot write " << out_path << "\n";
    return kExitFailure;
  }
  context.out << "wrote " << out_path << " (" << bytes->size() << " bytes, plugin '"
              << session->plugin_name() << "')\n";
  return kExitOk;
}

}  // namespace berth::cli
