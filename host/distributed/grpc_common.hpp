// gRPC plumbing shared by the coordination server and client: status
// conversion, the authentication metadata and channel arguments. Internal to
// host/distributed; public headers never include gRPC.
#ifndef BERTH_HOST_DISTRIBUTED_GRPC_COMMON_HPP_
#define BERTH_HOST_DISTRIBUTED_GRPC_COMMON_HPP_

#include <grpcpp/grpcpp.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "berth/status.hpp"

namespace berth::distributed {

// Call metadata that carries the shared secret (lower case, as gRPC wants).
inline constexpr char kTokenMetadataKey[] = "berth-token";

// Trailing metadata the service adds to every answer, so a client can tell
// an error the service produced from one of the transport (no connection,
// deadline passed before any answer).
inline constexpr char kServiceMarkerKey[] = "berth-coordination";

// gRPC status messages travel in a header; keep ours well under its limit.
inline constexpr size_t kMaxStatusMessageBytes = 4096;

// The canonical codes are numerically the same on both sides.
grpc::Status ToGrpcStatus(const Status& status);
Status FromGrpcStatus(const grpc::Status& status);

// Compares in time that depends only on the lengths, not on where the first
// difference is.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// OK when `token` can travel as an ASCII metadata value (printable, no
// spaces); the error never contains the token itself.
Status ValidateToken(std::string_view token);

}  // namespace berth::distributed

#endif  // BERTH_HOST_DISTRIBUTED_GRPC_COMMON_HPP_
