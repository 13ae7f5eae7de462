// Shared test helpers: temp folders, manifest writers, scoped environment,
// captured log lines, and reading a fixture plugin's live-object count.
#ifndef BERTH_TESTS_SUPPORT_TEST_UTIL_HPP_
#define BERTH_TESTS_SUPPORT_TEST_UTIL_HPP_

#include <dlfcn.h>
#include <sys/wait.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "berth/log.hpp"

namespace berth::testing {

// A folder removed (with its contents) when the object goes away.
class TempDir {
 public:
  TempDir() {
    std::random_device random;
    path_ = std::filesystem::temp_directory_path() /
            ("berth-test-" + std::to_string(::getpid()) + "-" + std::to_string(random()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

  std::filesystem::path Write(const std::string& name, const std::string& contents) const {
    std::filesystem::path file = path_ / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << contents;
    return file;
  }

 private:
  std::filesystem::path path_;
};

// A plugin manifest as JSON text; `extra` fields are merged into "plugin".
inline std::string PluginManifest(const std::string& name, const std::string& library,
                                  nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json plugin = {{"name", name},
                           {"library_path", library},
                           {"api_version", "1.0"},
                           {"platform", name}};
  for (auto& [key, value] : extra.items()) plugin[key] = value;
  return nlohmann::json{{"file_format_version", "1.0.0"}, {"plugin", plugin}}.dump(2);
}

// Sets (or unsets) an environment variable for the scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = ::getenv(name)) old_ = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
    else ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// Collects log lines for the scope (all levels that pass BERTH_LOG).
class LogCapture {
 public:
  LogCapture() {
    ConfigureLogging("debug");
    previous_ = SetLogSink([this](LogLevel, std::string_view category, std::string_view message) {
      std::lock_guard lock(mutex_);
      lines_.push_back("[" + std::string(category) + "] " + std::string(message));
    });
  }
  ~LogCapture() {
    SetLogSink(std::move(previous_));
    ConfigureLogging("warn");
  }

  std::vector<std::string> lines() const {
    std::lock_guard lock(mutex_);
    return lines_;
  }
  bool Contains(const std::string& needle) const {
    for (const std::string& line : lines()) {
      if (line.find(needle) != std::string::npos) return true;
    }
    return false;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
  LogSink previous_;
};

// Whether the library at `path` is mapped in this process right now.
inline bool IsLoaded(const std::filesystem::path& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  ::dlclose(handle);
  return true;
}

// The fixture plugin's count of live objects (-1 when it is not loaded).
inline int64_t FixtureLiveObjects(const std::filesystem::path& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return -1;
  auto* fn = reinterpret_cast<int64_t (*)()>(::dlsym(handle, "BERTH_Fixture_LiveObjects"));
  int64_t count = fn != nullptr ? fn() : -1;
  ::dlclose(handle);
  return count;
}

// Path of a fixture variant's library in the build tree.
inline std::filesystem::path FixturePath(const std::string& variant) {
  return std::filesystem::path(BERTH_FIXTURE_DIR) / ("libberth_fixture_" + variant + ".so");
}

// Output and exit status of a shell command (stderr is captured separately
// when `stderr_file` is given).
struct CommandResult {
  int exit_code = -1;
  std::string out;
};

inline CommandResult RunCommand(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char chunk[4096];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), pipe)) > 0) result.out.append(chunk, n);
  int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

// Quotes a string for /bin/sh.
inline std::string ShellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

}  // namespace berth::testing

#endif  // BERTH_TESTS_SUPPORT_TEST_UTIL_HPP_
