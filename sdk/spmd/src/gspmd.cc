#include "berth/spmd/gspmd.hpp"

#include <numeric>

#include "src/text_cursor.hpp"
#include "src/tile_math.hpp"

namespace berth::spmd {
namespace {

using internal::TextCursor;

// The product of a list of `what` dimension sizes, each at least 1.
Result<int64_t> SizesProduct(TextCursor& cursor, const std::vector<int64_t>& dims,
                             std::string_view what) {
  const std::string name(what);
  if (dims.empty()) return cursor.Error("no " + name + " dimensions");
  for (int64_t dim : dims) {
    if (dim < 1) return cursor.Error(name + " dimension " + std::to_string(dim) + " < 1");
  }
  std::optional<int64_t> product = internal::CheckedProduct(dims);
  if (!product) return cursor.Error("the " + name + " dimensions' product of sizes overflows");
  return *product;
}

// `<=[reshape] T(perm)`: 0..N-1 laid out over `reshape`, transposed.
Result<std::vector<int64_t>> ParseIotaDevices(TextCursor& cursor, int64_t count) {
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> reshape, cursor.IntegerList("after '<='"));
  BERTH_ASSIGN_OR_RETURN(int64_t total, SizesProduct(cursor, reshape, "iota reshape"));
  if (total != count) {
    return cursor.Error("the iota holds " + std::to_string(total) + " devices for " +
                        std::to_string(count) + " tiles");
  }
  std::vector<int64_t> perm(reshape.size());
  std::iota(perm.begin(), perm.end(), 0);
  if (cursor.Consume("T")) {
    BERTH_RETURN_IF_ERROR(cursor.Expect("(", "after 'T'"));
    perm.clear();
    do {
      BERTH_ASSIGN_OR_RETURN(int64_t p, cursor.Integer("in the iota transpose"));
      perm.push_back(p);
    } while (cursor.Consume(","));
    BERTH_RETURN_IF_ERROR(cursor.Expect(")", "to close the iota transpose"));
    if (perm.size() != reshape.size() || !internal::IsPermutation(perm)) {
      return cursor.Error("the iota transpose is not a permutation of its " + std::to_string(reshape.size()) +
                          " reshape dimensions");
    }
  }
  std::vector<int64_t> iota(static_cast<size_t>(count));
  std::iota(iota.begin(), iota.end(), 0);
  return internal::Transpose(iota, reshape, perm);
}

// After the layout: `last_tile_dim_replicate`, `last_tile_dims={...}`,
// `metadata={...}`, `shard_as N`, `shard_like N`, in any order.
Status ParseSuffixes(TextCursor& cursor, std::vector<SubgroupKind>* subgroups) {
  while (cursor.Peek() != '}' && !cursor.AtEnd()) {
    if (cursor.Consume("metadata")) {
      BERTH_RETURN_IF_ERROR(cursor.Expect("=", "after 'metadata'"));
      BERTH_RETURN_IF_ERROR(cursor.SkipBraced("for the metadata"));
    } else if (cursor.Consume("shard_as") || cursor.Consume("shard_like")) {
      BERTH_RETURN_IF_ERROR(cursor.Integer("for the shard group").status());
    } else if (subgroups != nullptr && cursor.Consume("last_tile_dim_replicate")) {
      if (!subgroups->empty()) return cursor.Error("the last tile dims are described twice");
      subgroups->push_back(SubgroupKind::kReplicated);
    } else if (subgroups != nullptr && cursor.Consume("last_tile_dims")) {
      if (!subgroups->empty()) return cursor.Error("the last tile dims are described twice");
      BERTH_RETURN_IF_ERROR(cursor.Expect("=", "after 'last_tile_dims'"));
      BERTH_RETURN_IF_ERROR(cursor.Expect("{", "after 'last_tile_dims='"));
      do {
        if (cursor.Consume("manual")) {
          subgroups->push_back(SubgroupKind::kManual);
        } else if (cursor.Consume("replicated")) {
          subgroups->push_back(SubgroupKind::kReplicated);
        } else {
          return cursor.Error("expected 'manual' or 'replicated' in last_tile_dims");
        }
      } while (cursor.Consume(","));
      BERTH_RETURN_IF_ERROR(cursor.Expect("}", "to close last_tile_dims"));
    } else {
      return cursor.Error("unexpected text in the sharding");
    }
  }
  return OkStatus();
}

Result<Sharding> ParseTiled(TextCursor& cursor) {
  BERTH_RETURN_IF_ERROR(cursor.Expect("=", "after 'devices'"));
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> tile_dims, cursor.IntegerList("for the tile dimensions"));
  BERTH_ASSIGN_OR_RETURN(int64_t count, SizesProduct(cursor, tile_dims, "tile"));
  if (count > kMaxDevices) return cursor.Error("more than " + std::to_string(kMaxDevices) + " devices");
  std::vector<int64_t> devices;
  if (cursor.Consume("<=")) {
    BERTH_ASSIGN_OR_RETURN(devices, ParseIotaDevices(cursor, count));
  } else {
    do {
      BERTH_ASSIGN_OR_RETURN(int64_t device, cursor.Integer("in the device list"));
      devices.push_back(device);
      if (static_cast<int64_t>(devices.size()) > count) break;
    } while (cursor.Consume(","));
  }
  std::vector<SubgroupKind> subgroups;
  BERTH_RETURN_IF_ERROR(ParseSuffixes(cursor, &subgroups));
  Result<Sharding> sharding = Sharding::Tiled(std::move(tile_dims), std::move(devices), std::move(subgroups));
  if (!sharding.ok()) return cursor.Error(sharding.status().message());
  return sharding;
}

Result<Sharding> ParseSharding(TextCursor& cursor, int depth) {
  if (depth > 64) return cursor.Error("tuple shardings nested too deeply");
  BERTH_RETURN_IF_ERROR(cursor.Expect("{", "to open the sharding"));
  if (cursor.Peek() == '{' || cursor.Peek() == '}') {
    std::vector<Sharding> elements;
    if (cursor.Peek() == '{') {
      do {
        BERTH_ASSIGN_OR_RETURN(Sharding element, ParseSharding(cursor, depth + 1));
        elements.push_back(std::move(element));
      } while (cursor.Consume(","));
    }
    BERTH_RETURN_IF_ERROR(cursor.Expect("}", "to close the tuple sharding"));
    return Sharding::Tuple(std::move(elements));
  }
  Sharding sharding;
  if (cursor.Consume("replicated")) {
    BERTH_RETURN_IF_ERROR(ParseSuffixes(cursor, nullptr));
  } else if (cursor.Consume("manual")) {
    sharding = Sharding::Manual();
    BERTH_RETURN_IF_ERROR(ParseSuffixes(cursor, nullptr));
  } else if (cursor.Consume("maximal")) {
    BERTH_RETURN_IF_ERROR(cursor.Expect("device", "after 'maximal'"));
    BERTH_RETURN_IF_ERROR(cursor.Expect("=", "after 'maximal device'"));
    BERTH_ASSIGN_OR_RETURN(int64_t device, cursor.Integer("for the maximal device"));
    Result<Sharding> maximal = Sharding::Maximal(device);
    if (!maximal.ok()) return cursor.Error(maximal.status().message());
    sharding = *maximal;
    BERTH_RETURN_IF_ERROR(ParseSuffixes(cursor, nullptr));
  } else if (cursor.Consume("devices")) {
    BERTH_ASSIGN_OR_RETURN(sharding, ParseTiled(cursor));
  } else if (cursor.Consume("unknown")) {
    return UnimplementedError("GSPMD sharding {unknown}: a sharding left for XLA's propagation to choose is "
                              "not supported; give the value a layout or leave the attribute out");
  } else {
    return cursor.Error("expected replicated, manual, maximal, devices or a tuple");
  }
  BERTH_RETURN_IF_ERROR(cursor.Expect("}", "to close the sharding"));
  return sharding;
}

bool IsIota(const std::vector<int64_t>& devices) {
  for (size_t i = 0; i < devices.size(); ++i) {
    if (devices[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

std::string JoinIntegers(const std::vector<int64_t>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + std::to_string(values[i]);
  return out;
}

}  // namespace

Result<Sharding> ParseGspmdSharding(std::string_view text) {
  TextCursor cursor(text, "GSPMD sharding");
  BERTH_ASSIGN_OR_RETURN(Sharding sharding, ParseSharding(cursor, 0));
  BERTH_RETURN_IF_ERROR(cursor.ExpectEnd());
  return sharding;
}

std::string PrintGspmdSharding(const Sharding& sharding) {
  switch (sharding.kind()) {
    case ShardingKind::kReplicated: return "{replicated}";
    case ShardingKind::kManual: return "{manual}";
    case ShardingKind::kMaximal: return "{maximal device=" + std::to_string(sharding.maximal_device()) + "}";
    case ShardingKind::kTuple: {
      std::string out = "{";
      for (size_t i = 0; i < sharding.tuple_elements().size(); ++i) {
        out += (i ? ", " : "") + PrintGspmdSharding(sharding.tuple_elements()[i]);
      }
      return out + "}";
    }
    case ShardingKind::kTiled: break;
  }
  std::string out = "{devices=[" + JoinIntegers(sharding.tile_dims()) + "]";
  if (IsIota(sharding.devices())) {
    out += "<=[" + std::to_string(sharding.devices().size()) + "]";
  } else {
    out += JoinIntegers(sharding.devices());
  }
  const std::vector<SubgroupKind>& subgroups = sharding.subgroups();
  if (subgroups.size() == 1 && subgroups[0] == SubgroupKind::kReplicated) {
    out += " last_tile_dim_replicate";
  } else if (!subgroups.empty()) {
    out += " last_tile_dims={";
    for (size_t i = 0; i < subgroups.size(); ++i) out += std::string(i ? ", " : "") + SubgroupKindName(subgroups[i]);
    out += "}";
  }
  return out + "}";
}

}  // namespace berth::spmd
