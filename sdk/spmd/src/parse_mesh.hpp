// The mesh body `<[...], device_ids=[...]>`, read by ParseMesh and by
// Shardy shardings with an inline mesh.
#ifndef BERTH_SPMD_SRC_PARSE_MESH_HPP_
#define BERTH_SPMD_SRC_PARSE_MESH_HPP_

#include "berth/spmd/mesh.hpp"
#include "src/text_cursor.hpp"

namespace berth::spmd::internal {

Result<Mesh> ParseMeshBody(TextCursor& cursor);

}  // namespace berth::spmd::internal

#endif  // BERTH_SPMD_SRC_PARSE_MESH_HPP_
