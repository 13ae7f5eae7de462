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
    if (!type.IsTensor() || static_cast<int64_t>(shardy.dims.size()) != type.rank()) {
      return InvalidArgumentError("sdy.sharding lists " + std::to_string(shardy.dims.size()) +
                                  " dimension(s) for a value of type " + type.ToString());
    }
    if (shardy.inline_mesh) {
      BERTH_ASSIGN_OR_RETURN(Sharding sharding, ToSharding(shardy, *shardy.inline_mesh));
      return std::optional<Sharding>(std::move(sharding));
    }
    auto mesh = meshes.find(shardy.mesh_name);
    if (mesh == meshes.end()) {
      return InvalidArgumentError("sdy.sharding names mesh @" + shardy.mesh_name + ", which the module lacks");
    }
    BERTH_ASSIGN_OR_RETURN(Sharding sharding, ToSharding(shardy, mesh->second));
    return std::optional<Sharding>(std::move(sharding));
  }
  return std::optional<Sharding>();
}

namespace {

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
  if (mesh_override) {
    BERTH_RETURN_IF_ERROR(OverrideMesh(entry.meshes, *mesh_override));
    if (!num_partitions) num_partitions = mesh_override->num_devices();
  }
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
  for (size_t i = 0; i < main->num_results(); ++i) {
    BERTH_ASSIGN_OR_RETURN(std::optional<Sharding> sharding,
                           read(main->result_attrs(i), main->result_types()[i],
                                function + " result " + std::to_string(i)));
    entry.results.push_back(std::move(sharding));
  }
  return entry;
}

}  // namespace berth::spmd
