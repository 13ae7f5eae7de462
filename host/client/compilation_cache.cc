#include "client/compilation_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include "berth/host.hpp"
#include "berth/log.hpp"
#include "common/env.hpp"

namespace berth::core {

namespace {

constexpr char kEntrySuffix[] = ".bexe";
constexpr int64_t kDefaultMaxBytes = int64_t{4} << 30;

void Warn(const std::string& message) { Log(LogLevel::kWarning, "compilation_cache", message); }

// A name no other writer picks: the process, the time and a random number.
std::string TemporaryName(std::string_view key) {
  thread_local std::mt19937_64 random(std::random_device{}() ^
                                      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::ostringstream name;
  name << "." << key << ".tmp." << ::getpid() << "." << std::hex << random();
  return name.str();
}

}  // namespace

Result<std::shared_ptr<CompilationCache>> CompilationCache::Open(const std::filesystem::path& dir,
                                                                 int64_t max_bytes) {
  if (dir.empty()) return InvalidArgumentError("compilation cache: the folder is empty");
  if (max_bytes < 1) {
    return InvalidArgumentError("compilation cache: the size limit is " + std::to_string(max_bytes) +
                                " bytes; it must be at least 1");
  }
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir, error)) {
    return FailedPreconditionError("compilation cache: cannot make the folder " + dir.string() + ": " +
                                   (error ? error.message() : std::string("not a folder")));
  }
  return std::shared_ptr<CompilationCache>(new CompilationCache(dir, max_bytes));
}

std::filesystem::path CompilationCache::EntryPath(std::string_view key) const {
  return dir_ / (std::string(key) + kEntrySuffix);
}

std::optional<std::string> CompilationCache::Load(std::string_view key) {
  const std::filesystem::path path = EntryPath(key);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ++misses_;
    return std::nullopt;
  }
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    ++misses_;
    Warn("cannot read " + path.string() + "; compiling instead");
    return std::nullopt;
  }
  // The use time, for eviction: least recently used goes first.
  std::error_code error;
  std::filesystem::last_write_time(path, std::filesystem::file_time_type::clock::now(), error);
  ++hits_;
  return bytes;
}

void CompilationCache::Store(std::string_view key, std::string_view bytes) {
  const std::filesystem::path temporary = dir_ / TemporaryName(key);
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      Warn("cannot write " + temporary.string() + "; the executable is not cached");
      return;
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, EntryPath(key), error);
  if (error) {
    std::filesystem::remove(temporary, error);
    Warn("cannot move the new entry into " + EntryPath(key).string() + "; the executable is not cached");
    return;
  }
  ++stores_;
  Evict();
}

void CompilationCache::Discard(std::string_view key, const Status& why) {
  Warn("the entry " + EntryPath(key).string() + " is not usable and is replaced: " + why.ToString());
  std::error_code ignored;
  std::filesystem::remove(EntryPath(key), ignored);
  ++discarded_;
}

void CompilationCache::Evict() {
  struct Entry {
    std::filesystem::path path;
    std::filesystem::file_time_type used;
    int64_t size;
  };
  std::vector<Entry> entries;
  int64_t total = 0;
  std::error_code error;
  for (const auto& item : std::filesystem::directory_iterator(dir_, error)) {
    const std::filesystem::path& path = item.path();
    if (path.extension() != kEntrySuffix || path.filename().string().starts_with(".")) continue;
    std::error_code stat_error;
    const auto size = static_cast<int64_t>(item.file_size(stat_error));
    const auto used = item.last_write_time(stat_error);
    if (stat_error) continue;  // another process removed it
    entries.push_back({path, used, size});
    total += size;
  }
  if (total <= max_bytes_) return;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const Entry& entry : entries) {
    if (total <= max_bytes_) break;
    std::error_code remove_error;
    if (std::filesystem::remove(entry.path, remove_error)) ++evictions_;
    total -= entry.size;
  }
}

CompilationCacheStats CompilationCache::stats() const {
  return {hits_.load(), misses_.load(), stores_.load(), evictions_.load(), discarded_.load()};
}

Result<std::shared_ptr<CompilationCache>> OpenClientCache(const ClientOptions& options) {
  std::filesystem::path dir = options.compilation_cache_dir;
  if (dir.empty()) {
    std::optional<std::string> from_env = common::GetEnv("BERTH_COMPILATION_CACHE_DIR");
    if (!from_env || from_env->empty()) return std::shared_ptr<CompilationCache>();
    dir = *from_env;
  }
  int64_t max_bytes = options.compilation_cache_max_bytes;
  if (max_bytes == 0) {
    max_bytes = kDefaultMaxBytes;
    if (std::optional<std::string> text = common::GetEnv("BERTH_COMPILATION_CACHE_MAX_BYTES")) {
      size_t used = 0;
      try {
        max_bytes = std::stoll(*text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != text->size()) {
        return InvalidArgumentError("BERTH_COMPILATION_CACHE_MAX_BYTES is '" + *text +
                                    "', not a number of bytes");
      }
    }
  }
  return CompilationCache::Open(dir, max_bytes);
}

CompilationKeyBuilder::CompilationKeyBuilder() { Add("berth compilation cache", int64_t{1}); }

CompilationKeyBuilder& CompilationKeyBuilder::Add(std::string_view name, std::string_view value) {
  hasher_.Update(std::string(name) + '\0' + std::to_string(value.size()) + ':');
  hasher_.Update(value);
  return *this;
}

CompilationKeyBuilder& CompilationKeyBuilder::Add(std::string_view name, int64_t value) {
  return Add(name, std::to_string(value));
}

CompilationKeyBuilder& CompilationKeyBuilder::Add(std::string_view name, const NamedValueMap& values) {
  Add(name, static_cast<int64_t>(values.size()));
  for (const auto& [key, value] : values) {
    std::string text(NamedValueTypeName(value));
    text += '=';
    switch (value.index()) {
      case 0: text += std::get<std::string>(value); break;
      case 1: text += std::to_string(std::get<int64_t>(value)); break;
      case 2:
        for (int64_t element : std::get<std::vector<int64_t>>(value)) text += std::to_string(element) + ",";
        break;
      case 3: {
        std::ostringstream exact;
        exact.precision(17);
        exact << std::get<double>(value);
        text += exact.str();
        break;
      }
      default: text += std::get<bool>(value) ? "true" : "false";
    }
    Add(key, text);
  }
  return *this;
}

std::string CompilationKeyBuilder::Finish() { return hasher_.FinishHex(); }

}  // namespace berth::core
