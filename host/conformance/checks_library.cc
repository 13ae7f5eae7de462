// What a plugin promises before any object exists: its library exports
// BERTH_GetApi alone (docs/abi.md, "Loading"); its well-known attributes have
// their documented types (berth/c_api.h, BERTH_ATTRIBUTE_*); it accepts the
// reserved client options a job sets (node_id, num_nodes) and refuses an
// unknown one naming it.
#include "conformance/elf_symbols.hpp"
#include "conformance/suite_context.hpp"
#include "loader/attributes.hpp"

namespace berth::conformance {
namespace {

void ExportsOnlyGetApi(Context& c, const Emit& emit) {
  const std::string name = "library.exports_only_get_api";
  Result<std::vector<std::string>> exported = ExportedSymbols(c.manifest->library);
  if (!exported.ok()) {
    if (exported.status().code() == StatusCode::kUnimplemented) {
      return emit(Skip(name, std::string(exported.status().message())));
    }
    return emit(Fail(name, exported.status().ToString()));
  }
  std::string others;
  bool has_entry = false;
  for (const std::string& symbol : *exported) {
    if (symbol == BERTH_GET_API_SYMBOL) {
      has_entry = true;
      continue;
    }
    others += (others.empty() ? "" : ", ") + symbol;
  }
  if (!has_entry) return emit(Fail(name, "the library does not export BERTH_GetApi"));
  if (!others.empty()) {
    return emit(Fail(name, "the library exports " + std::to_string(exported->size() - 1) +
                               " symbol(s) besides BERTH_GetApi: " +
                               (others.size() > 400 ? others.substr(0, 400) + " ..." : others) +
                               " (link with berth-sdk's flags or the SDK's berth_plugin.map)"));
  }
  emit(Pass(name));
}

void WellKnownAttributes(Context& c, const Emit& emit) {
  const std::string name = "attributes.well_known";
  std::vector<std::string> problems = core::WellKnownAttributeProblems(c.attributes);
  if (problems.empty()) return emit(Pass(name));
  std::string text;
  for (const std::string& problem : problems) text += (text.empty() ? "" : "; ") + problem;
  emit(Fail(name, text));
}

void ReservedClientOptions(Context& c, const Emit& emit) {
  const std::string name = "client.reserved_options_accepted";
  Result<Client> client =
      c.NewClient({{BERTH_OPTION_NODE_ID, int64_t{0}}, {BERTH_OPTION_NUM_NODES, int64_t{1}}});
  emit(client.ok() ? Pass(name)
                   : Fail(name, "a client with node_id = 0, num_nodes = 1 (what every job sets) "
                                "was refused: " + client.status().ToString()));

  const std::string unknown = "client.unknown_option_refused";
  const std::string option = "berth_conformance_no_such_option";
  Result<Client> refused = c.NewClient({{option, int64_t{1}}});
  if (refused.ok()) return emit(Fail(unknown, "a client option '" + option + "' was accepted"));
  if (refused.status().code() != StatusCode::kInvalidArgument ||
      refused.status().message().find(option) == std::string_view::npos) {
    return emit(Fail(unknown, "client option '" + option + "' gave " +
                                  refused.status().ToString() +
                                  ", not INVALID_ARGUMENT naming the option"));
  }
  emit(Pass(unknown));
}

}  // namespace

void LibraryChecks(Context& context, const Emit& emit) {
  ExportsOnlyGetApi(context, emit);
  WellKnownAttributes(context, emit);
  ReservedClientOptions(context, emit);
}

}  // namespace berth::conformance
