#include "cpu_compiler.hpp"

#include <cstring>
#include <functional>

#include <nlohmann/json.hpp>

#include "berth/plugin/options.hpp"
#include "berth/spmd/custom_rules.hpp"
#include "berth/spmd/gspmd.hpp"
#include "berth/spmd/partitioner.hpp"
#include "berth/stablehlo/bytecode.hpp"
#include "berth/stablehlo/parser.hpp"
#include "berth/stablehlo/printer.hpp"
#include "berth/stablehlo/quantization.hpp"
#include "cpu_client.hpp"
#include "cpu_executable.hpp"

namespace berth::cpu {
namespace {

// The first line of a stablehlo-partitioned text the partitioner cut.
constexpr std::string_view kPartitionedHeader = "// berth.partitioned ";
// A cpu-plan: magic, the JSON header's size (8 hex digits), the header, then
// the module's bytecode.
constexpr std::string_view kPlanMagic = "BERTHCPUPLAN1\n";

struct Settings {
  std::string source_name;
  bool fuse_elementwise = true;
};

Result<Settings> ReadSettings(const plugin::CompileOptions& options) {
  plugin::OptionReader reader(options.options, "cpu compile option");
  Settings settings;
  BERTH_ASSIGN_OR_RETURN(settings.source_name, reader.String("source_name", "<program>"));
  BERTH_ASSIGN_OR_RETURN(settings.fuse_elementwise, reader.Bool("fuse_elementwise", true));
  BERTH_RETURN_IF_ERROR(reader.CheckNoUnknown());
  return settings;
}

Result<std::unique_ptr<stablehlo::Module>> ParseVerified(std::string_view text, const std::string& source_name,
                                                         int first_line = 1) {
  stablehlo::ParseOptions parse_options;
  parse_options.first_line = first_line;
  BERTH_ASSIGN_OR_RETURN(stablehlo::Module parsed, stablehlo::ParseModule(text, source_name, parse_options));
  BERTH_ASSIGN_OR_RETURN(parsed, stablehlo::VerifyLoweringQuantizedTypes(std::move(parsed)));
  return std::make_unique<stablehlo::Module>(std::move(parsed));
}

// The partition phase: a sharded program over several partitions is cut by
// the SDK's partitioner into each device's program; any other is kept.
Result<PartitionedModule> Partition(CpuClient& client, std::unique_ptr<stablehlo::Module> module,
                                    const plugin::CompileOptions& options, const std::string& source_name) {
  PartitionedModule result;
  if (!options.entry_name.empty()) {
    // A named entry is compiled as written (a function of a test module).
    result.module = std::move(module);
    return result;
  }
  spmd::PartitionOptions partition_options;
  if (options.num_partitions > 0) partition_options.num_partitions = options.num_partitions;
  std::map<std::string, std::string> identities;
  for (const std::shared_ptr<const plugin::RegisteredPartitioner>& rule : client.custom_partitioners().Rules()) {
    partition_options.custom_rules[rule->target()] = spmd::RuleFromC(rule->rule(), rule);
    identities[rule->target()] = rule->identity();
  }
  Result<std::optional<spmd::PartitionedProgram>> partitioned = spmd::PartitionIfSharded(*module, partition_options);
  if (!partitioned.ok()) {
    return Status(partitioned.status().code(), source_name + ": " + partitioned.status().message());
  }
  if (!*partitioned) {
    result.module = std::move(module);
    return result;
  }
  const spmd::PartitionedProgram& program = **partitioned;
  for (const std::string& target : program.custom_rule_targets) result.rule_identities[target] = identities.at(target);
  for (size_t i = 0; i < program.argument_shardings.size(); ++i) {
    result.parameter_shardings.push_back(
        {spmd::PrintGspmdSharding(program.argument_shardings[i]), program.argument_shapes[i]});
  }
  for (size_t i = 0; i < program.result_shardings.size(); ++i) {
    result.output_shardings.push_back({spmd::PrintGspmdSharding(program.result_shardings[i]), program.result_shapes[i]});
  }
  BERTH_ASSIGN_OR_RETURN(result.module, ParseVerified(program.text, source_name + " (partitioned)"));
  return result;
}

// ------------------------------------------------- what travels between phases

nlohmann::json ShardingsToJson(const std::vector<plugin::ValueSharding>& shardings) {
  nlohmann::json list = nlohmann::json::array();
  for (const plugin::ValueSharding& s : shardings) list.push_back({{"sharding", s.sharding}, {"dims", s.global_dims}});
  return list;
}

nlohmann::json PartitionedToJson(const PartitionedModule& program) {
  return {{"parameter_shardings", ShardingsToJson(program.parameter_shardings)},
          {"output_shardings", ShardingsToJson(program.output_shardings)},
          {"custom_partitioners", program.rule_identities}};
}

// Reads what PartitionedToJson wrote; `bad` makes the error.
Status PartitionedFromJson(const nlohmann::json& json, PartitionedModule& program,
                           const std::function<Status(const std::string&)>& bad) {
  if (!json.is_object()) return bad("the layouts are not a JSON object");
  for (auto [name, out] : {std::pair{"parameter_shardings", &program.parameter_shardings},
                           std::pair{"output_shardings", &program.output_shardings}}) {
    auto it = json.find(name);
    if (it == json.end() || !it->is_array()) return bad(std::string("\"") + name + "\" is not a list");
    for (const nlohmann::json& entry : *it) {
      auto sharding = entry.find("sharding");
      auto dims = entry.find("dims");
      if (!entry.is_object() || sharding == entry.end() || !sharding->is_string() || dims == entry.end() ||
          !dims->is_array()) {
        return bad(std::string("an entry of \"") + name + "\" is not {\"sharding\": text, \"dims\": [...]}");
      }
      plugin::ValueSharding value{sharding->get<std::string>(), {}};
      for (const nlohmann::json& d : *dims) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0) return bad(std::string("a dimension in \"") + name + "\"");
        value.global_dims.push_back(d.get<int64_t>());
      }
      out->push_back(std::move(value));
    }
  }
  auto rules = json.find("custom_partitioners");
  if (rules != json.end()) {
    if (!rules->is_object()) return bad("\"custom_partitioners\" is not an object");
    for (const auto& [target, identity] : rules->items()) {
      if (!identity.is_string()) return bad("custom_partitioners['" + target + "'] is not a string");
      program.rule_identities[target] = identity.get<std::string>();
    }
  }
  return OkStatus();
}

std::string PrintPartitioned(const PartitionedModule& program) {
  std::string text;
  if (!program.parameter_shardings.empty() || !program.output_shardings.empty()) {
    text = std::string(kPartitionedHeader) + PartitionedToJson(program).dump() + "\n";
  }
  return text + stablehlo::Print(*program.module);
}

Result<PartitionedModule> ParsePartitioned(std::string_view text, const std::string& source_name) {
  PartitionedModule program;
  int first_line = 1;
  if (text.starts_with(kPartitionedHeader)) {
    size_t end = text.find('\n');
    if (end == std::string_view::npos) end = text.size();
    auto bad = [&](const std::string& why) {
      return InvalidArgumentError(source_name + ":1: the partitioned program's first line: " + why);
    };
    nlohmann::json header = nlohmann::json::parse(text.substr(kPartitionedHeader.size(), end - kPartitionedHeader.size()),
                                                  nullptr, /*allow_exceptions=*/false);
    if (header.is_discarded()) return bad("not JSON");
    BERTH_RETURN_IF_ERROR(PartitionedFromJson(header, program, bad));
    text.remove_prefix(std::min(end + 1, text.size()));
    first_line = 2;
  }
  BERTH_ASSIGN_OR_RETURN(program.module, ParseVerified(text, source_name, first_line));
  return program;
}

// Options a cpu-plan records (those the compile was given; the counts and
// assignment as given, zero or empty when the program's own were used).
nlohmann::json OptionsToJson(const LoweredProgram& program) {
  const plugin::CompileOptions& options = program.options;
  return {{"entry_name", options.entry_name},
          {"num_replicas", options.num_replicas},
          {"num_partitions", options.num_partitions},
          {"device_assignment", options.device_assignment},
          {"source_name", program.source_name},
          {"fuse_elementwise", program.fuse_elementwise}};
}

}  // namespace

std::string SliceRecord::ToString() const {
  return std::to_string(num_slices) + (num_slices == 1 ? " slice " : " slices ") +
         nlohmann::json(device_slices).dump(-1);
}

SliceRecord SlicesOf(const CpuClient& client) {
  return {client.num_slices(), client.device_slices()};
}

std::span<const plugin::CompilePhase> CpuCompilePhases() {
  static const std::vector<plugin::CompilePhase> phases = {
      {"verify", std::string(kStablehloFormat), std::string(kStablehloFormat), true},
      {"partition", std::string(kStablehloFormat), std::string(kPartitionedFormat), true},
      {"plan", std::string(kPartitionedFormat), std::string(kPlanFormat), false},
  };
  return phases;
}

std::string EncodePlan(const LoweredProgram& program) {
  nlohmann::json header = PartitionedToJson(program.partitioned);
  header["options"] = OptionsToJson(program);
  header["slices"] = {{"count", program.slices.num_slices},
                      {"devices", program.slices.device_slices}};
  // Strings that are not UTF-8 (a source name) are written with U+FFFD.
  const std::string json = header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  char size[9];
  std::snprintf(size, sizeof(size), "%08zx", json.size());
  return std::string(kPlanMagic) + size + json + stablehlo::WriteBytecode(*program.partitioned.module);
}

Result<LoweredProgram> DecodePlan(std::string_view bytes, const plugin::CompileOptions& given,
                                  const CpuClient& client) {
  auto bad = [](const std::string& why) { return InvalidArgumentError("cpu-plan: " + why); };
  if (!bytes.starts_with(kPlanMagic)) return bad("does not start with the cpu-plan magic (not a cpu-plan)");
  bytes.remove_prefix(kPlanMagic.size());
  size_t header_size = 0;
  if (bytes.size() < 8) return bad("truncated");
  for (char c : bytes.substr(0, 8)) {
    int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) return bad("the header size is not 8 hex digits");
    header_size = header_size * 16 + static_cast<size_t>(digit);
  }
  bytes.remove_prefix(8);
  if (header_size > bytes.size()) return bad("truncated (the header runs past the end)");
  nlohmann::json header = nlohmann::json::parse(bytes.substr(0, header_size), nullptr, /*allow_exceptions=*/false);
  bytes.remove_prefix(header_size);
  if (header.is_discarded() || !header.is_object()) return bad("the header is not a JSON object");

  LoweredProgram program;
  BERTH_RETURN_IF_ERROR(PartitionedFromJson(header, program.partitioned, bad));
  auto options = header.find("options");
  if (options == header.end() || !options->is_object()) return bad("no \"options\" object");
  const nlohmann::json& o = *options;
  auto count = [&](const char* name, int64_t* out) -> Status {
    auto it = o.find(name);
    if (it == o.end() || !it->is_number_integer() || it->get<int64_t>() < 0) {
      return bad(std::string("options.") + name + " is not a count");
    }
    *out = it->get<int64_t>();
    return OkStatus();
  };
  auto text = [&](const char* name, std::string* out) -> Status {
    auto it = o.find(name);
    if (it == o.end() || !it->is_string()) return bad(std::string("options.") + name + " is not a string");
    *out = it->get<std::string>();
    return OkStatus();
  };
  plugin::CompileOptions& recorded = program.options;
  BERTH_RETURN_IF_ERROR(count("num_replicas", &recorded.num_replicas));
  BERTH_RETURN_IF_ERROR(count("num_partitions", &recorded.num_partitions));
  BERTH_RETURN_IF_ERROR(text("entry_name", &recorded.entry_name));
  BERTH_RETURN_IF_ERROR(text("source_name", &program.source_name));
  auto assignment = o.find("device_assignment");
  auto fuse = o.find("fuse_elementwise");
  if (assignment == o.end() || !assignment->is_array()) return bad("options.device_assignment is not a list");
  for (const nlohmann::json& id : *assignment) {
    if (!id.is_number_integer()) return bad("options.device_assignment holds a non-integer");
    recorded.device_assignment.push_back(id.get<int64_t>());
  }
  if (fuse == o.end() || !fuse->is_boolean()) return bad("options.fuse_elementwise is not a bool");
  program.fuse_elementwise = fuse->get<bool>();
  program.slices = SlicesOf(client);
  if (auto slices = header.find("slices"); slices != header.end()) {
    auto slice_count = slices->is_object() ? slices->find("count") : slices->end();
    auto of_devices = slices->is_object() ? slices->find("devices") : slices->end();
    if (slice_count == slices->end() || !slice_count->is_number_integer() ||
        of_devices == slices->end() || !of_devices->is_array()) {
      return bad("\"slices\" is not {\"count\": N, \"devices\": [...]}");
    }
    SliceRecord recorded_slices;
    recorded_slices.num_slices = slice_count->get<int32_t>();
    for (const nlohmann::json& slice : *of_devices) {
      if (!slice.is_number_integer()) return bad("\"slices\".devices holds a non-integer");
      recorded_slices.device_slices.push_back(slice.get<int32_t>());
    }
    if (!(recorded_slices == program.slices)) {
      return FailedPreconditionError(
          "the cpu-plan was compiled in a job of " + recorded_slices.ToString() +
          " (each device's slice); this client's job has " + program.slices.ToString() +
          ": compile the program again here");
    }
  }

  // What the load asks for must be what the plan was made for.
  auto differs = [&](const char* name, const std::string& was, const std::string& now) {
    return InvalidArgumentError("the cpu-plan was compiled with " + std::string(name) + " " + was +
                                "; the compile options say " + now);
  };
  if (given.num_replicas != 0 && given.num_replicas != recorded.num_replicas) {
    return differs("num_replicas", std::to_string(recorded.num_replicas), std::to_string(given.num_replicas));
  }
  if (given.num_partitions != 0 && given.num_partitions != recorded.num_partitions) {
    return differs("num_partitions", std::to_string(recorded.num_partitions), std::to_string(given.num_partitions));
  }
  if (!given.entry_name.empty() && given.entry_name != recorded.entry_name) {
    return differs("entry_name", "'" + recorded.entry_name + "'", "'" + given.entry_name + "'");
  }
  if (!given.device_assignment.empty() && given.device_assignment != recorded.device_assignment) {
    return differs("device_assignment", nlohmann::json(recorded.device_assignment).dump(),
                   nlohmann::json(given.device_assignment).dump());
  }
  BERTH_ASSIGN_OR_RETURN(Settings settings, ReadSettings(given));
  if (given.options.contains("fuse_elementwise") && settings.fuse_elementwise != program.fuse_elementwise) {
    return differs("fuse_elementwise", program.fuse_elementwise ? "true" : "false",
                   settings.fuse_elementwise ? "true" : "false");
  }
  // The plan's module verified when it was written; the host's container
  // (or the cache's) vouches for the bytes, and the reader checks their
  // structure, so it is not verified again.
  BERTH_ASSIGN_OR_RETURN(stablehlo::Module module,
                         stablehlo::ReadBytecode(bytes, program.source_name, stablehlo::BytecodeReadOptions{.verify = false}));
  program.partitioned.module = std::make_unique<stablehlo::Module>(std::move(module));
  return program;
}

Result<LoweredProgram> Lower(CpuClient& client, const plugin::Program& program, const plugin::CompileOptions& options) {
  if (program.format == kPlanFormat) return DecodePlan(program.code, options, client);
  if (program.format != kStablehloFormat && program.format != kPartitionedFormat) {
    return InvalidArgumentError("the cpu plugin compiles programs of format 'stablehlo', '" +
                                std::string(kPartitionedFormat) + "' or '" + std::string(kPlanFormat) + "', not '" +
                                std::string(program.format) + "'");
  }
  BERTH_ASSIGN_OR_RETURN(Settings settings, ReadSettings(options));
  LoweredProgram lowered;
  lowered.options = options;
  lowered.source_name = settings.source_name;
  lowered.fuse_elementwise = settings.fuse_elementwise;
  lowered.slices = SlicesOf(client);
  if (program.format == kPartitionedFormat) {
    BERTH_ASSIGN_OR_RETURN(lowered.partitioned, ParsePartitioned(program.code, settings.source_name));
  } else {
    BERTH_ASSIGN_OR_RETURN(std::unique_ptr<stablehlo::Module> module, ParseVerified(program.code, settings.source_name));
    BERTH_ASSIGN_OR_RETURN(lowered.partitioned, Partition(client, std::move(module), options, settings.source_name));
  }
  lowered.options.options.clear();  // kept as settings
  return lowered;
}

Result<std::string> RunCpuPhase(CpuClient& client, const plugin::CompilePhase& phase, const plugin::Program& input,
                                const plugin::CompileOptions& options) {
  BERTH_ASSIGN_OR_RETURN(Settings settings, ReadSettings(options));
  if (phase.name == "verify") {
    BERTH_ASSIGN_OR_RETURN(std::unique_ptr<stablehlo::Module> module, ParseVerified(input.code, settings.source_name));
    return stablehlo::Print(*module);
  }
  if (phase.name == "partition") {
    BERTH_ASSIGN_OR_RETURN(std::unique_ptr<stablehlo::Module> module, ParseVerified(input.code, settings.source_name));
    BERTH_ASSIGN_OR_RETURN(PartitionedModule partitioned,
                           Partition(client, std::move(module), options, settings.source_name));
    return PrintPartitioned(partitioned);
  }
  // plan: also binds the kernels once, so that a program the cpu plugin
  // cannot run fails here and not when it is loaded.
  BERTH_ASSIGN_OR_RETURN(LoweredProgram lowered, Lower(client, input, options));
  std::string plan = EncodePlan(lowered);
  BERTH_RETURN_IF_ERROR(CpuExecutable::Load(client, std::move(lowered)).status());
  return plan;
}

}  // namespace berth::cpu
