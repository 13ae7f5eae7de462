// berth compile PROGRAM.mlir -o FILE.bexe [--plugin NAME] [--entry NAME]
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

}  // namespace

int RunCompile(const std::vector<std::string>& args, Context& context) {
  po::options_description options("options");
  std::string program_path, out_path, plugin, entry;
  bool partitioned = false;
  int64_t partitions = 0;
  std::string mesh;
  options.add_options()
      ("program", po::value<std::string>(&program_path)->required(), "program file (.mlir)")
      ("output,o", po::value<std::string>(&out_path)->required(),
       "the berth-executable file to write (run it with `berth run FILE`)")
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
                 "       berth compile PROGRAM.mlir --partitioned [--plugin NAME] [--partitions N] [--mesh x=2,y=2] "
                 "-o FILE.mlir",
                 options,
                 &positional, args, vm, context, exit_code)) {
    return exit_code;
  }
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
  Result<Session> session = Session::Open(plugin);
  if (!session.ok()) {
    context.err << "berth compile: " << session.status().ToString() << "\n";
    return kExitFailure;
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
