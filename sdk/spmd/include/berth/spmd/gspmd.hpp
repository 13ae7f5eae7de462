// GSPMD's sharding strings, as JAX writes them in `mhlo.sharding`
// attributes and on the @Sharding custom call:
//
//   {replicated}   {manual}   {maximal device=3}
//   {devices=[2,2]0,2,1,3}                    explicit device list
//   {devices=[4,2]<=[8]}                      iota
//   {devices=[2,4]<=[2,2,2]T(1,0,2)}          iota, reshaped and transposed
//   {devices=[2,1,2]<=[4] last_tile_dim_replicate}
//   {devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}
//   {{replicated}, {devices=[2]0,1}}          a tuple
//
// `metadata={...}` and `shard_as N` / `shard_like N` are accepted and
// dropped (they steer XLA's propagation, not the layout).
#ifndef BERTH_SPMD_GSPMD_HPP_
#define BERTH_SPMD_GSPMD_HPP_

#include <string>
#include <string_view>

#include "berth/spmd/sharding.hpp"
#include "berth/status.hpp"

namespace berth::spmd {

// INVALID_ARGUMENT naming the offset and what was expected on malformed text,
// and on a device count or list that does not match the tile dims.
Result<Sharding> ParseGspmdSharding(std::string_view text);

// The string XLA would print: the iota form `<=[N]` when the devices are
// 0..N-1 in order, else the explicit list. Parses back to an equal Sharding.
std::string PrintGspmdSharding(const Sharding& sharding);

}  // namespace berth::spmd

#endif  // BERTH_SPMD_GSPMD_HPP_
