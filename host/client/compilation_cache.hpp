// The persistent compilation cache: compiled executables kept on disk as
// `berth-executable` files (docs/berth-executable.md), one per key, the key
// a SHA-256 of everything that changes what a compile gives
// (CompilationKey). Safe across threads and processes: entries are written
// to a temporary file in the same folder and renamed into place, so a
// reader sees a whole entry or none; the least recently used entries are
// removed once the folder holds more than its limit. Nothing here fails a
// compile: a folder that cannot be read or written is a warning.
#ifndef BERTH_HOST_CLIENT_COMPILATION_CACHE_HPP_
#define BERTH_HOST_CLIENT_COMPILATION_CACHE_HPP_

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "berth/client.hpp"
#include "berth/host.hpp"
#include "berth/status.hpp"
#include "common/sha256.hpp"

namespace berth::core {

class CompilationCache {
 public:
  // The folder `dir` (created if missing), holding at most `max_bytes` of
  // entries. INVALID_ARGUMENT for an empty path or a limit below 1;
  // the folder's own errors name it.
  static Result<std::shared_ptr<CompilationCache>> Open(const std::filesystem::path& dir, int64_t max_bytes);

  const std::filesystem::path& dir() const { return dir_; }
  int64_t max_bytes() const { return max_bytes_; }
  // Where the entry of `key` lives.
  std::filesystem::path EntryPath(std::string_view key) const;

  // The entry of `key`, its use time refreshed (a hit), or nullopt (a miss).
  std::optional<std::string> Load(std::string_view key);
  // Writes the entry of `key` whole (a temporary file renamed into place),
  // then removes the least recently used entries beyond the limit.
  void Store(std::string_view key, std::string_view bytes);
  // Drops an entry that could not be used (corrupted, or made for another
  // plugin or version).
  void Discard(std::string_view key, const Status& why);

  CompilationCacheStats stats() const;

 private:
  CompilationCache(std::filesystem::path dir, int64_t max_bytes) : dir_(std::move(dir)), max_bytes_(max_bytes) {}
  void Evict();

  std::filesystem::path dir_;
  int64_t max_bytes_;
  std::atomic<int64_t> hits_{0}, misses_{0}, stores_{0}, evictions_{0}, discarded_{0};
};

// The folder and limit a client's cache takes: ClientOptions' fields, else
// BERTH_COMPILATION_CACHE_DIR and BERTH_COMPILATION_CACHE_MAX_BYTES (default
// 4 GiB); null when no folder is named (the cache is off).
Result<std::shared_ptr<CompilationCache>> OpenClientCache(const ClientOptions& options);

// A cache key, hashed as fields are added: each field named and
// length-prefixed, so that no two different inputs hash alike.
class CompilationKeyBuilder {
 public:
  CompilationKeyBuilder();
  CompilationKeyBuilder& Add(std::string_view name, std::string_view value);
  CompilationKeyBuilder& Add(std::string_view name, int64_t value);
  CompilationKeyBuilder& Add(std::string_view name, const NamedValueMap& values);
  // 64 lower-case hex digits.
  std::string Finish();

 private:
  common::Sha256 hasher_;
};

}  // namespace berth::core

#endif  // BERTH_HOST_CLIENT_COMPILATION_CACHE_HPP_
