#include "phase_compile/phase_compile_client.hpp"

#include <algorithm>

#include "phase_compile/intermediate_file.hpp"

namespace berth::ext::phase_compile {
namespace {

std::string Str(const char* data, size_t size) { return data != nullptr ? std::string(data, size) : std::string(); }

std::string PhaseNames(const std::vector<CompilePhase>& phases) {
  std::string names;
  for (const CompilePhase& phase : phases) names += (names.empty() ? "" : ", ") + phase.name;
  return names.empty() ? "none" : names;
}

void AppendOutput(void* context, const char* data, size_t size) {
  if (data != nullptr) static_cast<std::string*>(context)->append(data, size);
}

}  // namespace

Result<std::vector<CompilePhase>> ListPhases(const PhaseCompileClient& c) {
  if (c.extension == nullptr) return c.library.MissingExtension(BERTH_Extension_Type_PhaseCompile);
  BERTH_PhaseCompile_ListPhases_Args args{};
  args.struct_size = BERTH_PhaseCompile_ListPhases_Args_STRUCT_SIZE;
  args.client = c.client;
  BERTH_RETURN_IF_ERROR(c.library.CallExtension(c.extension->list_phases, "BERTH_PhaseCompile_ListPhases", &args));
  if (args.num_phases > 0 && args.phases == nullptr) {
    return InternalError("plugin '" + c.library.name() + "' listed " + std::to_string(args.num_phases) +
                         " compile phases but gave no array");
  }
  std::vector<CompilePhase> phases;
  for (size_t i = 0; i < args.num_phases; ++i) {
    const BERTH_PhaseCompile_Phase* p = args.phases[i];
    if (p == nullptr || p->struct_size < BERTH_PhaseCompile_Phase_STRUCT_SIZE) {
      return InternalError("plugin '" + c.library.name() + "': compile phase " + std::to_string(i) +
                           " is NULL or smaller than this host reads");
    }
    phases.push_back({Str(p->name, p->name_size), Str(p->input_format, p->input_format_size),
                      Str(p->output_format, p->output_format_size), p->output_is_text});
    if (phases.back().name.empty()) {
      return InternalError("plugin '" + c.library.name() + "': compile phase " + std::to_string(i) + " has no name");
    }
  }
  return phases;
}

Result<std::vector<CompileIntermediate>> RunPhases(const PhaseCompileClient& c, const CompileIntermediate& input,
                                                   std::string_view until, const BERTH_CompileOptions* options) {
  BERTH_ASSIGN_OR_RETURN(std::vector<CompilePhase> phases, ListPhases(c));
  const std::string plugin = "plugin '" + c.library.name() + "'";
  auto find = [&](std::string_view name) -> Result<size_t> {
    auto it = std::find_if(phases.begin(), phases.end(), [&](const CompilePhase& p) { return p.name == name; });
    if (it == phases.end()) {
      return InvalidArgumentError(plugin + " has no compile phase '" + std::string(name) +
                                  "' (its phases: " + PhaseNames(phases) + ")");
    }
    return static_cast<size_t>(it - phases.begin());
  };
  if (phases.empty()) return InvalidArgumentError(plugin + " lists no compile phases");
  // The range: the phase after the input's, to `until`.
  size_t first = 0;
  if (!input.phase.empty()) {
    BERTH_ASSIGN_OR_RETURN(size_t wrote, find(input.phase));
    if (phases[wrote].output_format != input.format) {
      return InvalidArgumentError("the intermediate says phase '" + input.phase + "' wrote it as '" + input.format +
                                  "', but that phase writes '" + phases[wrote].output_format + "'");
    }
    first = wrote + 1;
    if (first == phases.size()) {
      return InvalidArgumentError("the intermediate is the output of '" + input.phase +
                                  "', the last phase: no phase follows it (load it with Compile, format '" +
                                  input.format + "')");
    }
  }
  size_t last = phases.size() - 1;
  if (!until.empty()) {
    BERTH_ASSIGN_OR_RETURN(last, find(until));
  }
  if (last < first) {
    return InvalidArgumentError("the phases do not connect: '" + std::string(until) + "' comes before '" +
                                phases[first].name + "', the phase after the input (" + PhaseNames(phases) + ")");
  }
  if (phases[first].input_format != input.format) {
    return InvalidArgumentError("phase '" + phases[first].name + "' reads '" + phases[first].input_format +
                                "', not '" + input.format + "'");
  }
  for (size_t i = first; i < last; ++i) {
    if (phases[i].output_format != phases[i + 1].input_format) {
      return InvalidArgumentError(plugin + ": phase '" + phases[i].name + "' writes '" + phases[i].output_format +
                                  "' but the next phase, '" + phases[i + 1].name + "', reads '" +
                                  phases[i + 1].input_format + "'");
    }
  }

  std::vector<CompileIntermediate> outputs;
  const CompileIntermediate* current = &input;
  for (size_t i = first; i <= last; ++i) {
    BERTH_Program program{};
    program.struct_size = BERTH_Program_STRUCT_SIZE;
    program.format = current->format.data();
    program.format_size = current->format.size();
    program.code = current->bytes.data();
    program.code_size = current->bytes.size();
    CompileIntermediate output{phases[i].name, phases[i].output_format, phases[i].output_is_text, {}};
    BERTH_PhaseCompile_RunPhase_Args args{};
    args.struct_size = BERTH_PhaseCompile_RunPhase_Args_STRUCT_SIZE;
    args.client = c.client;
    args.phase = phases[i].name.data();
    args.phase_size = phases[i].name.size();
    args.input = &program;
    args.options = options;
    args.write_output = AppendOutput;
    args.output_context = &output.bytes;
    BERTH_RETURN_IF_ERROR(c.library.CallExtension(c.extension->run_phase, "BERTH_PhaseCompile_RunPhase", &args)
                              .WithContext("compile phase '" + phases[i].name + "'"));
    outputs.push_back(std::move(output));
    current = &outputs.back();
  }
  return outputs;
}

std::string WriteIntermediate(const PhaseCompileClient& c, const CompileIntermediate& intermediate) {
  IntermediateHeader header;
  header.plugin = c.library.name();
  header.platform = std::string(c.platform_name);
  header.platform_version = std::string(c.platform_version);
  header.phase = intermediate.phase;
  header.format = intermediate.format;
  header.text = intermediate.text;
  header.num_devices = intermediate.num_devices;
  return EncodeIntermediate(std::move(header), intermediate.bytes);
}

Result<CompileIntermediate> ReadIntermediate(const PhaseCompileClient& c, std::string_view bytes,
                                             std::string_view source_name) {
  BERTH_ASSIGN_OR_RETURN(IntermediateFile file, DecodeIntermediate(bytes, source_name));
  const IntermediateHeader& h = file.header;
  const std::string where(source_name);
  if (h.plugin != c.library.name() || h.platform != c.platform_name) {
    return FailedPreconditionError(where + ": a " + h.format + " intermediate of plugin '" + h.plugin +
                                   "' (platform '" + h.platform + "'), not of this client's plugin '" +
                                   c.library.name() + "' (platform '" + std::string(c.platform_name) + "')");
  }
  if (h.platform_version != c.platform_version) {
    return FailedPreconditionError(where + ": made by " + h.platform + " version " + h.platform_version +
                                   "; intermediates do not cross compiler versions (this is " +
                                   std::string(c.platform_version) + "): compile the program again");
  }
  return CompileIntermediate{h.phase, h.format, h.text, std::move(file.payload), h.num_devices};
}

}  // namespace berth::ext::phase_compile
