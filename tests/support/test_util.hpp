// Shared test helpers for the cross-component tests: everything in
// tests/support (temp folders, manifests, scoped environment, log capture)
// plus the fixture plugins' paths and live-object counts and shell commands.
// Needs BERTH_FIXTURE_DIR (tests/meson.build's test_cpp_args).
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

#include "log_capture.hpp"
#include "manifest_builder.hpp"
#include "scoped_env.hpp"
#include "temp_dir.hpp"

namespace berth::testing {

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

// The platform every fixture plugin's client reports.
inline constexpr const char* kFixturePlatform = "fixture";

// A manifest named `name` for fixture variant `variant`, declaring the
// fixtures' platform (a manifest declaring another is platform_mismatch).
inline std::string FixtureManifest(const std::string& name, const std::string& variant,
                                   nlohmann::json extra = nlohmann::json::object()) {
  extra["platform"] = kFixturePlatform;
  return PluginManifest(name, FixturePath(variant).string(), std::move(extra));
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

// A `rows` x `cols` tensor of `type` as StableHLO text, `dense<[[..], ..]> :
// tensor<RxCxT>`, element (r, c) `value(r, c)`, called row by row.
template <typename F>
std::string DenseMatrixText(int64_t rows, int64_t cols, const std::string& type, F&& value) {
  std::string text = "dense<[";
  for (int64_t r = 0; r < rows; ++r) {
    text += r ? ", [" : "[";
    for (int64_t c = 0; c < cols; ++c) text += (c ? ", " : "") + std::to_string(value(r, c));
    text += "]";
  }
  return text + "]> : tensor<" + std::to_string(rows) + "x" + std::to_string(cols) + "x" + type +
         ">";
}

}  // namespace berth::testing

#endif  // BERTH_TESTS_SUPPORT_TEST_UTIL_HPP_
