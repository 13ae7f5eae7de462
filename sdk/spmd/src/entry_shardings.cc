#include "berth/spmd/entry_shardings.hpp"

#include <algorithm>

#include "berth/spmd/gspmd.hpp"
#include "berth/spmd/shardy.hpp"
#include "berth/stablehlo/attributes.hpp"

namespace berth::spmd {
namespace {

namespace shlo = berth::stablehlo;

Status WithContext(const Status& status, const std::string& where) {
  return Status(status.code(), where + ": " + status.message());
}

// Every device a sharding names lies below `num_partitions`, and a tiled
// one cuts a value of `type`'s rank.
Status CheckFits(const Sharding& sharding, const shlo::Type& type, int64_t num_partitions) {
  if (sharding.IsTuple()) {
    if (!type.IsTuple() || type.types().size() != sharding.tuple_elements().size()) {
      return InvalidArgumentError("a tuple sharding of " + std::to_string(sharding.tuple_elements().size()) +
                                  " element(s) on a value of type " + type.ToString());
    }
    for (size_t i = 0; i < sharding.tuple_elements().size(); ++i) {
      BERTH_RETURN_IF_ERROR(CheckFits(sharding.tuple_elements()[i], type.types()[i], num_partitions));
    }
    return OkStatus();
  }
  if (sharding.IsMaximal() && sharding.maximal_device() >= num_partitions) {
    return InvalidArgumentError("device " + std::to_string(sharding.maximal_device()) + " is beyond the " +
                                std::to_string(num_partitions) + " partition(s)");
  }
  if (sharding.IsTiled()) {
    int64_t largest = *std::max_element(sharding.devices().begin(), sharding.devices().end());
    if (largest >= num_partitions) {
      return InvalidArgumentError("device " + std::to_string(largest) + " is beyond the " +
                                  std::to_string(num_partitions) + " partition(s)");
    }
    if (type.IsTuple() || type.IsToken()) {
      return InvalidArgumentError("a tiled sharding on a value of type " + type.ToString());
    }
    BERTH_RETURN_IF_ERROR(sharding.CheckRank(type.rank()));
  }
  return OkStatus();
}

}  // namespace

bool EntryShardings::IsPartitioned() const {
  auto any = [](const std::vector<std::optional<Sharding>>& v) {
    return std::any_of(v.begin(), v.end(), [](const auto& s) { return s.has_value(); });
  };
  return num_partitions > 1 || any(arguments) || any(results);
}

namespace {

// A Shardy sharding of a value of `type`, its mesh named in `meshes` or
// inline; `what` names the attribute in messages.
Result<Sharding> ShardyLayout(const ShardySharding& shardy, const shlo::Type& type,
                              const std::map<std::string, Mesh, std::less<>>& meshes, std::string_view what) {
  if (!type.IsTensor() || static_cast<int64_t>(shardy.dims.size()) != type.rank()) {
    return InvalidArgumentError(std::string(what) + " lists " + std::to_string(shardy.dims.size()) +
                                " dimension(s) for a value of type " + type.ToString());
  }
  if (shardy.inline_mesh) return ToSharding(shardy, *shardy.inline_mesh);
  auto mesh = meshes.find(shardy.mesh_name);
  if (mesh == meshes.end()) {
    return InvalidArgumentError(std::string(what) + " names mesh @" + shardy.mesh_name + ", which the module lacks");
  }
  return ToSharding(shardy, mesh->second);
}

}  // namespace

Result<std::optional<Sharding>> ShardingFromAttributes(const shlo::DictionaryAttr* attrs, const shlo::Type& type,
                                                       const std::map<std::string, Mesh, std::less<>>& meshes) {
  if (attrs == nullptr) return std::optional<Sharding>();
  if (const shlo::Attribute* gspmd = attrs->Get("mhlo.sharding")) {
    const auto* text = gspmd->dyn_cast<shlo::StringAttr>();
    if (text == nullptr) return InvalidArgumentError("mhlo.sharding is not a string");
    BERTH_ASSIGN_OR_RETURN(Sharding sharding, ParseGspmdSharding(text->value()));
    return std::optional<Sharding>(std::move(sharding));
  }
  if (const shlo::Attribute* sdy = attrs->Get("sdy.sharding")) {
    const auto* opaque = sdy->dyn_cast<shlo::OpaqueAttr>();
    if (opaque == nullptr) return InvalidArgumentError("sdy.sharding is not a #sdy.sharding<...> attribute");
    BERTH_ASSIGN_OR_RETURN(ShardySharding shardy, ParseShardySharding(opaque->text()));
    BERTH_ASSIGN_OR_RETURN(Sharding sharding, ShardyLayout(shardy, type, meshes, "sdy.sharding"));
    return std::optional<Sharding>(std::move(sharding));
  }
  return RoundTripSharding(attrs->Get("mhlo.frontend_attributes"), type, meshes);
}

Result<std::optional<std::string>> RoundTripText(const shlo::Attribute* frontend_attributes, std::string_view name) {
  const auto* dictionary = frontend_attributes == nullptr ? nullptr : frontend_attributes->dyn_cast<shlo::DictionaryAttr>();
  const shlo::Attribute* attr = dictionary == nullptr ? nullptr : dictionary->Get(name);
  if (attr == nullptr) return std::optional<std::string>();
  const auto* text = attr->dyn_cast<shlo::StringAttr>();
  if (text == nullptr) return InvalidArgumentError(std::string(name) + " is not a string");
  std::string out;
  const std::string_view value = text->value();
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '\\' && i + 1 < value.size() && (value[i + 1] == '"' || value[i + 1] == '\\')) ++i;
    out += value[i];
  }
  return std::optional<std::string>(std::move(out));
}

Result<std::optional<Sharding>> RoundTripSharding(const shlo::Attribute* frontend_attributes, const shlo::Type& type,
                                                  const std::map<std::string, Mesh, std::less<>>& meshes) {
  BERTH_ASSIGN_OR_RETURN(std::optional<std::string> text, RoundTripText(frontend_attributes, "xla.sdy.sharding"));
  if (!text) return std::optional<Sharding>();
  ShardySharding shardy;
  if (text->starts_with("#sdy.sharding_per_value")) {
    BERTH_ASSIGN_OR_RETURN(std::vector<ShardySharding> per_value, ParseShardyShardingPerValue(*text));
    if (per_value.size() != 1) {
      return InvalidArgumentError("xla.sdy.sharding lists " + std::to_string(per_value.size()) +
                                  " sharding(s) for one value");
    }
    shardy = std::move(per_value[0]);
  } else {
    BERTH_ASSIGN_OR_RETURN(shardy, ParseShardySharding(*text));
  }
  BERTH_ASSIGN_OR_RETURN(Sharding sharding, ShardyLayout(shardy, type, meshes, "xla.sdy.sharding"));
  return std::optional<Sharding>(std::move(sharding));
}

bool IsFuncResultSharding(const shlo::Operation& op) {
  if (op.kind() != shlo::OpKind::kCustomCall) return false;
  const std::string_view target = op.call_target_name();
  return target == "local_xla.sdy.FuncResultSharding" || target == "xla.sdy.FuncResultSharding";
}

namespace {

// The meshes of XLA's round-trip form: the module's frontend attribute
// xla.sdy.meshes = "{mesh = #sdy.mesh<[\"x\"=2]>, other = #sdy.mesh<...>}".
Status ReadRoundTripMeshes(const shlo::Module& module, std::map<std::string, Mesh, std::less<>>& meshes,
                           int64_t& largest_mesh) {
  BERTH_ASSIGN_OR_RETURN(std::optional<std::string> text,
                         RoundTripText(module.attr("mhlo.frontend_attributes"), "xla.sdy.meshes"));
  if (!text) return OkStatus();
  std::string_view rest = *text;
  auto trim = [](std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\n')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\n')) v.remove_suffix(1);
    return v;
  };
  rest = trim(rest);
  if (rest.size() < 2 || rest.front() != '{' || rest.back() != '}') {
    return InvalidArgumentError("xla.sdy.meshes is not a {name = #sdy.mesh<...>, ...} dictionary: " +
                                *text);
  }
  rest = trim(rest.substr(1, rest.size() - 2));
  while (!rest.empty()) {
    // One `name = <mesh>` entry, up to a comma outside brackets and quotes.
    size_t end = 0;
    int depth = 0;
    bool quoted = false;
    for (; end < rest.size(); ++end) {
      const char c = rest[end];
      if (c == '"') quoted = !quoted;
      if (quoted) continue;
      if (c == '<' || c == '[' || c == '{' || c == '(') ++depth;
      if (c == '>' || c == ']' || c == '}' || c == ')') --depth;
      if (c == ',' && depth == 0) break;
    }
    const std::string_view entry = rest.substr(0, end);
    const size_t equals = entry.find('=');
    if (equals == std::string_view::npos) {
      return InvalidArgumentError("xla.sdy.meshes: expected name = #sdy.mesh<...>, got " + std::string(entry));
    }
    const std::string name(trim(entry.substr(0, equals)));
    Result<Mesh> mesh = ParseMesh(trim(entry.substr(equals + 1)));
    if (!mesh.ok()) return WithContext(mesh.status(), "xla.sdy.meshes: mesh " + name);
    largest_mesh = std::max(largest_mesh, mesh->num_devices());
    meshes.emplace(name, std::move(*mesh));
    rest = end < rest.size() ? trim(rest.substr(end + 1)) : std::string_view();
  }
  return OkStatus();
}

// `override` in place of the module's one mesh, which it must match axis for
// axis by name.
Status OverrideMesh(std::map<std::string, Mesh, std::less<>>& meshes, const Mesh& override) {
  std::string wanted;
  for (const MeshAxis& axis : override.axes()) wanted += (wanted.empty() ? "" : ",") + axis.name;
  if (meshes.size() != 1) {
    return InvalidArgumentError("a mesh (" + wanted + ") replaces the module's sdy.mesh, but the module has " +
                                std::to_string(meshes.size()) + " meshes");
  }
  Mesh& mesh = meshes.begin()->second;
  std::string have;
  for (const MeshAxis& axis : mesh.axes()) have += (have.empty() ? "" : ",") + axis.name;
  bool same = mesh.axes().size() == override.axes().size();
  for (const MeshAxis& axis : mesh.axes()) same = same && override.AxisIndex(axis.name).has_value();
  if (!same) {
    return InvalidArgumentError("the mesh given names axes " + wanted + "; mesh @" + meshes.begin()->first +
                                " of the module has " + have);
  }
  mesh = override;
  return OkStatus();
}

// How many devices a GSPMD sharding names (the largest id + 1; 1 for
// replicated and manual ones, and for text that does not parse: that is
// reported where the sharding is read).
int64_t DevicesNamed(const shlo::Attribute* attr) {
  const auto* text = attr == nullptr ? nullptr : attr->dyn_cast<shlo::StringAttr>();
  if (text == nullptr) return 1;
  Result<Sharding> sharding = ParseGspmdSharding(text->value());
  if (!sharding.ok()) return 1;
  std::vector<const Sharding*> pending = {&*sharding};
  int64_t devices = 1;
  while (!pending.empty()) {
    const Sharding* next = pending.back();
    pending.pop_back();
    if (next->IsMaximal()) devices = std::max(devices, next->maximal_device() + 1);
    for (int64_t device : next->devices()) devices = std::max(devices, device + 1);
    for (const Sharding& element : next->tuple_elements()) pending.push_back(&element);
  }
  return devices;
}

int64_t DevicesNamed(const shlo::Block& block) {
  int64_t devices = 1;
  for (const shlo::Operation* op : block.operations()) {
    devices = std::max(devices, DevicesNamed(op->attr("mhlo.sharding")));
    for (const shlo::Region* region : op->regions()) {
      for (const shlo::Block* inner : region->blocks()) devices = std::max(devices, DevicesNamed(*inner));
    }
  }
  return devices;
}

// The partitions a module's GSPMD shardings imply where it states none
// (older JAX exports carry no mhlo.num_partitions): the most devices any
// sharding on an entry value or an op names.
int64_t DevicesNamed(const shlo::Module& module) {
  int64_t devices = 1;
  for (const shlo::Function* function : module.functions()) {
    if (function->is_declaration()) continue;
    for (size_t i = 0; i < function->num_arguments(); ++i) {
      const shlo::DictionaryAttr* attrs = function->argument_attrs(i);
      if (attrs != nullptr) devices = std::max(devices, DevicesNamed(attrs->Get("mhlo.sharding")));
    }
    for (size_t i = 0; i < function->num_results(); ++i) {
      const shlo::DictionaryAttr* attrs = function->result_attrs(i);
      if (attrs != nullptr) devices = std::max(devices, DevicesNamed(attrs->Get("mhlo.sharding")));
    }
    devices = std::max(devices, DevicesNamed(function->entry_block()));
  }
  return devices;
}

}  // namespace

Result<EntryShardings> ReadEntryShardings(const shlo::Module& module, std::optional<int64_t> num_partitions,
                                          const std::optional<Mesh>& mesh_override) {
  EntryShardings entry;
  int64_t largest_mesh = 1;
  for (const shlo::Operation* op : module.top_level_ops()) {
    if (op->kind() != shlo::OpKind::kSdyMesh) continue;
    std::string name(op->GetString("sym_name"));
    const auto* text = op->attr_as<shlo::OpaqueAttr>("mesh");
    if (text == nullptr) return InvalidArgumentError("sdy.mesh @" + name + " has no mesh attribute");
    Result<Mesh> mesh = ParseMesh(text->text());
    if (!mesh.ok()) return WithContext(mesh.status(), "sdy.mesh @" + name);
    largest_mesh = std::max(largest_mesh, mesh->num_devices());
    entry.meshes.emplace(name, std::move(*mesh));
  }
  BERTH_RETURN_IF_ERROR(ReadRoundTripMeshes(module, entry.meshes, largest_mesh));
  if (mesh_override) {
    BERTH_RETURN_IF_ERROR(OverrideMesh(entry.meshes, *mesh_override));
    if (!num_partitions) num_partitions = mesh_override->num_devices();
  }
  if (!num_partitions && !module.num_partitions() && entry.meshes.empty()) num_partitions = DevicesNamed(module);
  entry.num_partitions = num_partitions.value_or(module.num_partitions().value_or(largest_mesh));
  if (entry.num_partitions < 1 || entry.num_partitions > kMaxDevices) {
    return InvalidArgumentError("num_partitions = " + std::to_string(entry.num_partitions) +
                                " is out of range");
  }
  const shlo::Function* main = module.entry_function();
  if (main == nullptr) return InvalidArgumentError("the module has no entry function");
  auto read = [&](const shlo::DictionaryAttr* attrs, const shlo::Type& type,
                  const std::string& where) -> Result<std::optional<Sharding>> {
    Result<std::optional<Sharding>> sharding = ShardingFromAttributes(attrs, type, entry.meshes);
    if (!sharding.ok()) return WithContext(sharding.status(), where);
    if (*sharding) {
      Status fits = CheckFits(**sharding, type, entry.num_partitions);
      if (!fits.ok()) return WithContext(fits, where);
    }
    return sharding;
  };
  std::string function = "@" + std::string(main->name());
  for (size_t i = 0; i < main->num_arguments(); ++i) {
    BERTH_ASSIGN_OR_RETURN(std::optional<Sharding> sharding,
                           read(main->argument_attrs(i), main->argument_types()[i],
                                function + " argument " + std::to_string(i)));
    entry.arguments.push_back(std::move(sharding));
  }
  // The round-trip form marks a result by the custom call that returns it.
  const std::span<shlo::Operation* const> body = main->entry_block().operations();
  const shlo::Operation* returned = body.empty() ? nullptr : body.back();
  for (size_t i = 0; i < main->num_results(); ++i) {
    const std::string where = function + " result " + std::to_string(i);
    BERTH_ASSIGN_OR_RETURN(std::optional<Sharding> sharding,
                           read(main->result_attrs(i), main->result_types()[i], where));
    const shlo::Operation* marker = returned != nullptr && i < returned->num_operands()
                                        ? returned->operand(i)->defining_op()
                                        : nullptr;
    if (!sharding && marker != nullptr && IsFuncResultSharding(*marker) && marker->num_operands() == 1) {
      Result<std::optional<Sharding>> marked =
          RoundTripSharding(marker->attr("mhlo.frontend_attributes"), main->result_types()[i], entry.meshes);
      if (!marked.ok()) return WithContext(marked.status(), where);
      sharding = std::move(*marked);
      if (sharding) {
        Status fits = CheckFits(*sharding, main->result_types()[i], entry.num_partitions);
        if (!fits.ok()) return WithContext(fits, where);
      }
    }
    entry.results.push_back(std::move(sharding));
  }
  return entry;
}

}  // namespace berth::spmd
