// libFuzzer target: DecodeExecutableFile must reject any bytes it does not
// accept with INVALID_ARGUMENT or DATA_LOSS and a message naming the source,
// never crash, hang or leak; whatever it accepts must survive Encode and
// Decode again unchanged.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/sha256.hpp"
#include "abi_version/executable_file.hpp"

namespace {

using berth::Result;
using berth::StatusCode;
using berth::ext::abi_version::DecodeExecutableFile;
using berth::ext::abi_version::EncodeExecutableFile;
using berth::ext::abi_version::ExecutableFile;

constexpr std::string_view kSource = "/fuzz/input.bexe";

void CheckRoundTrip(const ExecutableFile& file) {
  std::string encoded = EncodeExecutableFile(file.header, file.payload);
  Result<ExecutableFile> again = DecodeExecutableFile(encoded, kSource);
  if (!again.ok()) std::abort();
  if (!(again->header == file.header) || again->payload != file.payload) std::abort();
  // Encode is canonical: a decoded file encodes to the same bytes again.
  if (EncodeExecutableFile(again->header, again->payload) != encoded) std::abort();
}

void DecodeAndCheck(std::string_view bytes) {
  Result<ExecutableFile> decoded = DecodeExecutableFile(bytes, kSource);
  if (decoded.ok()) {
    CheckRoundTrip(*decoded);
    return;
  }
  berth::Status status = decoded.status();  // a copy: message() borrows from it
  if (status.code() != StatusCode::kInvalidArgument && status.code() != StatusCode::kDataLoss) {
    std::abort();
  }
  const std::string& message = status.message();
  std::string prefix = "berth-executable file " + std::string(kSource) + ": ";
  if (message.size() <= prefix.size() || message.compare(0, prefix.size(), prefix) != 0) {
    std::abort();
  }
}

// The input with its header digest made correct, so that mutations of the
// JSON header reach the field checks instead of stopping at the digest.
bool WithHeaderDigestFixed(std::string_view bytes, std::string* out) {
  if (bytes.size() < berth::ext::abi_version::kExecutableFilePrefixSize ||
      !berth::ext::abi_version::LooksLikeExecutableFile(bytes)) {
    return false;
  }
  uint32_t header_size = 0;
  for (int i = 0; i < 4; ++i) {
    header_size |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[12 + i])) << (8 * i);
  }
  if (header_size > bytes.size() - berth::ext::abi_version::kExecutableFilePrefixSize) return false;
  berth::common::Sha256 sha;
  sha.Update(bytes.substr(berth::ext::abi_version::kExecutableFilePrefixSize, header_size));
  std::array<uint8_t, 32> digest = sha.Finish();
  *out = std::string(bytes);
  out->replace(16, digest.size(), reinterpret_cast<const char*>(digest.data()), digest.size());
  return *out != bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  DecodeAndCheck(bytes);
  std::string fixed;
  if (WithHeaderDigestFixed(bytes, &fixed)) DecodeAndCheck(fixed);
  return 0;
}
