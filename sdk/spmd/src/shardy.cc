#include "berth/spmd/shardy.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "src/parse_mesh.hpp"
#include "src/text_cursor.hpp"
#include "src/tile_math.hpp"

namespace berth::spmd {
namespace {

using internal::TextCursor;

Result<AxisRef> ParseAxisRef(TextCursor& cursor) {
  AxisRef ref;
  BERTH_ASSIGN_OR_RETURN(ref.name, cursor.QuotedName("for a mesh axis"));
  if (cursor.Consume(":")) {
    BERTH_RETURN_IF_ERROR(cursor.Expect("(", "before a sub-axis' pre-size"));
    BERTH_ASSIGN_OR_RETURN(int64_t pre_size, cursor.Integer("for a sub-axis' pre-size"));
    BERTH_RETURN_IF_ERROR(cursor.Expect(")", "after a sub-axis' pre-size"));
    BERTH_ASSIGN_OR_RETURN(int64_t size, cursor.Integer("for a sub-axis' size"));
    ref.pre_size = pre_size;
    ref.size = size;
  }
  return ref;
}

// `{"x", "y"}` (replicated= and unreduced=).
Result<std::vector<AxisRef>> ParseAxisSet(TextCursor& cursor, std::string_view what) {
  BERTH_RETURN_IF_ERROR(cursor.Expect("=", "after '" + std::string(what) + "'"));
  BERTH_RETURN_IF_ERROR(cursor.Expect("{", "after '" + std::string(what) + "='"));
  std::vector<AxisRef> refs;
  if (cursor.Consume("}")) return refs;
  do {
    BERTH_ASSIGN_OR_RETURN(AxisRef ref, ParseAxisRef(cursor));
    refs.push_back(std::move(ref));
  } while (cursor.Consume(","));
  BERTH_RETURN_IF_ERROR(cursor.Expect("}", "to close '" + std::string(what) + "'"));
  return refs;
}

Result<DimSharding> ParseDim(TextCursor& cursor) {
  DimSharding dim;
  BERTH_RETURN_IF_ERROR(cursor.Expect("{", "to open a dimension's sharding"));
  if (cursor.Consume("?")) {
    dim.open = true;
  } else if (cursor.Peek() != '}') {
    do {
      if (cursor.Consume("?")) {
        dim.open = true;
        break;
      }
      BERTH_ASSIGN_OR_RETURN(AxisRef ref, ParseAxisRef(cursor));
      dim.axes.push_back(std::move(ref));
    } while (cursor.Consume(","));
  }
  BERTH_RETURN_IF_ERROR(cursor.Expect("}", "to close a dimension's sharding"));
  if (cursor.Consume("p")) {
    BERTH_ASSIGN_OR_RETURN(int64_t priority, cursor.Integer("for a priority"));
    if (priority < 0) return cursor.Error("negative priority");
    dim.priority = priority;
  }
  return dim;
}

// `<@mesh, [dims], replicated={...}, unreduced={...}>`.
Result<ShardySharding> ParseBody(TextCursor& cursor) {
  ShardySharding sharding;
  BERTH_RETURN_IF_ERROR(cursor.Expect("<", "to open the sharding"));
  if (cursor.Consume("@")) {
    BERTH_ASSIGN_OR_RETURN(sharding.mesh_name, cursor.Identifier("after '@'"));
  } else if (cursor.Consume("mesh")) {
    BERTH_ASSIGN_OR_RETURN(sharding.inline_mesh, internal::ParseMeshBody(cursor));
  } else {
    return cursor.Error("expected '@mesh_name' or an inline 'mesh<...>'");
  }
  BERTH_RETURN_IF_ERROR(cursor.Expect(",", "after the mesh"));
  BERTH_RETURN_IF_ERROR(cursor.Expect("[", "before the dimension shardings"));
  if (!cursor.Consume("]")) {
    do {
      BERTH_ASSIGN_OR_RETURN(DimSharding dim, ParseDim(cursor));
      sharding.dims.push_back(std::move(dim));
    } while (cursor.Consume(","));
    BERTH_RETURN_IF_ERROR(cursor.Expect("]", "after the dimension shardings"));
  }
  while (cursor.Consume(",")) {
    if (cursor.Consume("replicated")) {
      BERTH_ASSIGN_OR_RETURN(sharding.replicated, ParseAxisSet(cursor, "replicated"));
    } else if (cursor.Consume("unreduced")) {
      BERTH_ASSIGN_OR_RETURN(sharding.unreduced, ParseAxisSet(cursor, "unreduced"));
    } else {
      return cursor.Error("expected 'replicated' or 'unreduced'");
    }
  }
  BERTH_RETURN_IF_ERROR(cursor.Expect(">", "to close the sharding"));
  return sharding;
}

std::string PrintAxisRef(const AxisRef& ref) {
  std::string out = "\"" + ref.name + "\"";
  if (ref.pre_size && ref.size) out += ":(" + std::to_string(*ref.pre_size) + ")" + std::to_string(*ref.size);
  return out;
}

std::string PrintAxisList(const std::vector<AxisRef>& refs) {
  std::string out;
  for (size_t i = 0; i < refs.size(); ++i) out += (i ? ", " : "") + PrintAxisRef(refs[i]);
  return out;
}

// Where a reference sits in its axis: the interval [begin, end) of the
// "product of sizes from the major end" coordinate (a full axis of size n
// is [1, n)).
struct AxisSpan {
  size_t axis = 0;
  int64_t begin = 1;
  int64_t end = 1;
};

Result<AxisSpan> Resolve(const AxisRef& ref, const Mesh& mesh) {
  std::optional<size_t> axis = mesh.AxisIndex(ref.name);
  if (!axis) return InvalidArgumentError("Shardy sharding: the mesh has no axis \"" + ref.name + "\"");
  int64_t size = mesh.axes()[*axis].size;
  if (!ref.pre_size) return AxisSpan{*axis, 1, size};
  int64_t pre = *ref.pre_size;
  int64_t sub = ref.size.value_or(0);
  if (pre < 1 || sub < 1 || pre > size || sub > size || size % (pre * sub) != 0) {
    return InvalidArgumentError("Shardy sharding: sub-axis " + PrintAxisRef(ref) + " does not divide axis \"" +
                                ref.name + "\" of size " + std::to_string(size));
  }
  return AxisSpan{*axis, pre, pre * sub};
}

}  // namespace

Result<ShardySharding> ParseShardySharding(std::string_view text) {
  TextCursor cursor(text, "Shardy sharding");
  cursor.Consume("#sdy.sharding");
  BERTH_ASSIGN_OR_RETURN(ShardySharding sharding, ParseBody(cursor));
  BERTH_RETURN_IF_ERROR(cursor.ExpectEnd());
  return sharding;
}

Result<std::vector<ShardySharding>> ParseShardyShardingPerValue(std::string_view text) {
  TextCursor cursor(text, "Shardy sharding_per_value");
  cursor.Consume("#sdy.sharding_per_value");
  BERTH_RETURN_IF_ERROR(cursor.Expect("<", "to open the list"));
  BERTH_RETURN_IF_ERROR(cursor.Expect("[", "to open the list"));
  std::vector<ShardySharding> shardings;
  if (!cursor.Consume("]")) {
    do {
      BERTH_ASSIGN_OR_RETURN(ShardySharding sharding, ParseBody(cursor));
      shardings.push_back(std::move(sharding));
    } while (cursor.Consume(","));
    BERTH_RETURN_IF_ERROR(cursor.Expect("]", "to close the list"));
  }
  BERTH_RETURN_IF_ERROR(cursor.Expect(">", "to close the list"));
  BERTH_RETURN_IF_ERROR(cursor.ExpectEnd());
  return shardings;
}

Result<std::vector<std::string>> ParseManualAxes(std::string_view text) {
  TextCursor cursor(text, "Shardy manual_axes");
  const bool wrapped = cursor.Consume("#sdy<");
  if (wrapped) BERTH_RETURN_IF_ERROR(cursor.Expect("manual_axes", "after '#sdy<'"));
  BERTH_RETURN_IF_ERROR(cursor.Expect("{", "to open the axes"));
  std::vector<std::string> axes;
  if (!cursor.Consume("}")) {
    do {
      BERTH_ASSIGN_OR_RETURN(std::string axis, cursor.QuotedName("for a manual axis"));
      if (std::find(axes.begin(), axes.end(), axis) != axes.end()) {
        return cursor.Error("manual axis \"" + axis + "\" is listed twice");
      }
      axes.push_back(std::move(axis));
    } while (cursor.Consume(","));
    BERTH_RETURN_IF_ERROR(cursor.Expect("}", "to close the axes"));
  }
  if (wrapped) BERTH_RETURN_IF_ERROR(cursor.Expect(">", "to close #sdy<manual_axes...>"));
  BERTH_RETURN_IF_ERROR(cursor.ExpectEnd());
  return axes;
}

std::string PrintShardySharding(const ShardySharding& sharding) {
  std::string out = "#sdy.sharding<";
  out += sharding.inline_mesh ? "mesh" + sharding.inline_mesh->ToString() : "@" + sharding.mesh_name;
  out += ", [";
  for (size_t d = 0; d < sharding.dims.size(); ++d) {
    const DimSharding& dim = sharding.dims[d];
    out += d ? ", {" : "{";
    out += PrintAxisList(dim.axes);
    if (dim.open) out += dim.axes.empty() ? "?" : ", ?";
    out += "}";
    if (dim.priority) out += "p" + std::to_string(*dim.priority);
  }
  out += "]";
  if (!sharding.replicated.empty()) out += ", replicated={" + PrintAxisList(sharding.replicated) + "}";
  if (!sharding.unreduced.empty()) out += ", unreduced={" + PrintAxisList(sharding.unreduced) + "}";
  return out + ">";
}

Result<Sharding> ToSharding(const ShardySharding& sharding, const Mesh& given_mesh,
                            const std::vector<std::string>& manual_axes) {
  const Mesh& mesh = sharding.inline_mesh ? *sharding.inline_mesh : given_mesh;
  if (!sharding.unreduced.empty()) {
    return UnimplementedError("Shardy sharding " + PrintShardySharding(sharding) +
                              ": unreduced axes (a partial sum on each device) have no tile layout");
  }
  if (mesh.axes().empty()) {
    for (const DimSharding& dim : sharding.dims) {
      if (!dim.axes.empty()) return InvalidArgumentError("Shardy sharding: a dimension is split over an empty mesh");
    }
    if (mesh.has_explicit_device_ids()) return Sharding::Maximal(mesh.device_ids()[0]);
    return Sharding::Replicated();
  }

  // Every reference: the dimension it splits (-1 manual, -2 replicated), in
  // order, and where it sits in its axis.
  struct Use {
    int64_t dim;
    AxisSpan span;
  };
  std::vector<Use> uses;
  for (size_t d = 0; d < sharding.dims.size(); ++d) {
    for (const AxisRef& ref : sharding.dims[d].axes) {
      BERTH_ASSIGN_OR_RETURN(AxisSpan span, Resolve(ref, mesh));
      uses.push_back({static_cast<int64_t>(d), span});
    }
  }
  for (const std::string& name : manual_axes) {
    BERTH_ASSIGN_OR_RETURN(AxisSpan span, Resolve(AxisRef{name, std::nullopt, std::nullopt}, mesh));
    uses.push_back({-1, span});
  }
  for (const AxisRef& ref : sharding.replicated) {
    BERTH_ASSIGN_OR_RETURN(AxisSpan span, Resolve(ref, mesh));
    uses.push_back({-2, span});
  }

  // Each axis cut at every boundary a reference names: the factors.
  const size_t num_axes = mesh.axes().size();
  std::vector<std::set<int64_t>> cuts(num_axes);
  for (size_t a = 0; a < num_axes; ++a) cuts[a] = {1, mesh.axes()[a].size};
  for (const Use& use : uses) {
    cuts[use.span.axis].insert(use.span.begin);
    cuts[use.span.axis].insert(use.span.end);
  }
  struct Factor {
    size_t axis;
    int64_t begin, end;
    int64_t size() const { return end / begin; }
  };
  std::vector<Factor> factors;
  for (size_t a = 0; a < num_axes; ++a) {
    std::vector<int64_t> points(cuts[a].begin(), cuts[a].end());
    for (size_t i = 0; i + 1 < points.size(); ++i) {
      if (points[i + 1] % points[i] != 0) {
        return InvalidArgumentError("Shardy sharding: sub-axes of \"" + mesh.axes()[a].name +
                                    "\" overlap without nesting");
      }
      factors.push_back({a, points[i], points[i + 1]});
    }
  }
  std::vector<int64_t> factor_sizes;
  for (const Factor& f : factors) factor_sizes.push_back(f.size());

  // Which use claims each factor; a factor claimed twice is an axis used twice.
  std::vector<int64_t> owner(factors.size(), -1);
  std::vector<std::vector<int64_t>> factors_of_use(uses.size());
  for (size_t u = 0; u < uses.size(); ++u) {
    for (size_t f = 0; f < factors.size(); ++f) {
      if (factors[f].axis != uses[u].span.axis || factors[f].begin < uses[u].span.begin ||
          factors[f].end > uses[u].span.end) {
        continue;
      }
      if (owner[f] >= 0) {
        return InvalidArgumentError("Shardy sharding " + PrintShardySharding(sharding) + ": axis \"" +
                                    mesh.axes()[factors[f].axis].name + "\" is used more than once");
      }
      owner[f] = static_cast<int64_t>(u);
      factors_of_use[u].push_back(static_cast<int64_t>(f));
    }
  }

  // The device array over the factors, transposed to: each dimension's
  // axes in order, then the manual axes, then everything else (replicated).
  std::vector<int64_t> perm;
  std::vector<int64_t> tile_dims;
  for (size_t d = 0; d < sharding.dims.size(); ++d) {
    int64_t tiles = 1;
    for (size_t u = 0; u < uses.size(); ++u) {
      if (uses[u].dim != static_cast<int64_t>(d)) continue;
      for (int64_t f : factors_of_use[u]) {
        perm.push_back(f);
        tiles *= factor_sizes[static_cast<size_t>(f)];
      }
    }
    tile_dims.push_back(tiles);
  }
  std::vector<SubgroupKind> subgroups;
  int64_t manual = 1;
  for (size_t u = 0; u < uses.size(); ++u) {
    if (uses[u].dim != -1) continue;
    for (int64_t f : factors_of_use[u]) {
      perm.push_back(f);
      manual *= factor_sizes[static_cast<size_t>(f)];
    }
  }
  if (!manual_axes.empty()) {
    tile_dims.push_back(manual);
    subgroups.push_back(SubgroupKind::kManual);
  }
  int64_t replicated = 1;
  for (size_t f = 0; f < factors.size(); ++f) {
    if (owner[f] >= 0 && uses[static_cast<size_t>(owner[f])].dim != -2) continue;
    perm.push_back(static_cast<int64_t>(f));
    replicated *= factor_sizes[f];
  }
  tile_dims.push_back(replicated);
  subgroups.push_back(SubgroupKind::kReplicated);

  std::vector<int64_t> devices = internal::Transpose(mesh.device_ids(), factor_sizes, perm);
  BERTH_ASSIGN_OR_RETURN(Sharding tiled,
                         Sharding::Tiled(std::move(tile_dims), std::move(devices), std::move(subgroups)));
  return tiled.Canonical();
}

}  // namespace berth::spmd
