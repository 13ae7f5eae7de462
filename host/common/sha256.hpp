// SHA-256 (FIPS 180-4), used to check a manifest's "sha256" pin against the
// library file before it is loaded.
#ifndef BERTH_HOST_COMMON_SHA256_HPP_
#define BERTH_HOST_COMMON_SHA256_HPP_

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "berth/status.hpp"

namespace berth::common {

// Incremental SHA-256: Update any number of times, then Finish once.
class Sha256 {
 public:
  Sha256();
  void Update(std::string_view bytes);
  // The 32-byte digest. The object must not be updated afterwards.
  std::array<uint8_t, 32> Finish();
  // The same as 64 lower-case hex digits.
  std::string FinishHex();

  // The compression function over `count` 64-byte blocks, as Update uses it:
  // with the CPU's SHA extensions where it has them (x86 SHA-NI, chosen once
  // at run time), else in portable C++. Both give the same state; the
  // portable one and the accelerated one are exposed for tests.
  using State = std::array<uint32_t, 8>;
  static void CompressPortable(State& state, const uint8_t* blocks, size_t count);
  // False (state untouched) where the CPU has no SHA extensions.
  static bool CompressAccelerated(State& state, const uint8_t* blocks, size_t count);
  static bool HasAcceleration();

 private:
  void Compress(const uint8_t* blocks, size_t count) {
    if (!CompressAccelerated(state_, blocks, count)) CompressPortable(state_, blocks, count);
  }

  State state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

// The digest of `bytes` as 64 lower-case hex digits.
std::string Sha256Hex(std::string_view bytes);

// The digest of a file's contents as 64 lower-case hex digits, read in 64 KiB
// chunks. Errors name the file: NOT_FOUND, PERMISSION_DENIED,
// INVALID_ARGUMENT (not a regular file) or DATA_LOSS (read failure).
Result<std::string> Sha256File(const std::filesystem::path& path);

}  // namespace berth::common

#endif  // BERTH_HOST_COMMON_SHA256_HPP_
