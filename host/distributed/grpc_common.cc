#include "distributed/grpc_common.hpp"

namespace berth::distributed {

grpc::Status ToGrpcStatus(const Status& status) {
  if (status.ok()) return grpc::Status::OK;
  std::string message = status.message();
  if (message.size() > kMaxStatusMessageBytes) {
    message.resize(kMaxStatusMessageBytes);
    message += "... (truncated)";
  }
  return grpc::Status(static_cast<grpc::StatusCode>(static_cast<int>(status.code())), message);
}

Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return OkStatus();
  return Status(StatusCodeFromInt(static_cast<int>(status.error_code())), status.error_message());
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  const size_t n = a.size() > b.size() ? a.size() : b.size();
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  // Read through a volatile so the compiler cannot stop the loop early.
  volatile unsigned char result = diff;
  return result == 0;
}

Status ValidateToken(std::string_view token) {
  for (char c : token) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f) {
      return InvalidArgumentError(
          "the coordination token must be printable ASCII without spaces (it travels as gRPC "
          "metadata); generate one with e.g. `openssl rand -hex 32`");
    }
  }
  return OkStatus();
}

}  // namespace berth::distributed
