// Test helpers for manifest and discovery tests: a per-test temp folder, a
// builder of manifest JSON, and a capture of log lines.
#ifndef BERTH_HOST_MANIFEST_MANIFEST_TEST_UTIL_HPP_
#define BERTH_HOST_MANIFEST_MANIFEST_TEST_UTIL_HPP_

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "berth/log.hpp"
#include "manifest/manifest.hpp"

namespace berth::host::testing {

// A fresh folder under /tmp (or $TMPDIR), removed with its contents at the end.
class TempDir {
 public:
  TempDir() {
    std::filesystem::path base = std::filesystem::temp_directory_path();
    std::string pattern = (base / "berth-manifest-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed for " << pattern;
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    // Give back permissions a test may have removed, so removal succeeds.
    for (auto it = std::filesystem::recursive_directory_iterator(
             path_, std::filesystem::directory_options::skip_permission_denied, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      std::filesystem::permissions(it->path(), std::filesystem::perms::owner_all,
                                   std::filesystem::perm_options::add, ec);
    }
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Writes `text` to `relative` (parent folders created); returns the full path.
  std::filesystem::path Write(const std::filesystem::path& relative, std::string_view text) const {
    std::filesystem::path full = path_ / relative;
    std::filesystem::create_directories(full.parent_path());
    std::ofstream out(full, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) ADD_FAILURE() << "cannot write " << full;
    return full;
  }

  std::filesystem::path Mkdir(const std::filesystem::path& relative) const {
    std::filesystem::path full = path_ / relative;
    std::filesystem::create_directories(full);
    return full;
  }

 private:
  std::filesystem::path path_;
};

// Builds manifest JSON starting from a valid minimal plugin or extension.
class ManifestBuilder {
 public:
  static ManifestBuilder Plugin(std::string name) {
    ManifestBuilder b("plugin");
    b.doc_["plugin"] = {{"name", std::move(name)},
                        {"library_path", "libberth_test.so"},
                        {"api_version", "1.0"},
                        {"platform", "cpu"}};
    return b;
  }
  static ManifestBuilder Extension(std::string name) {
    ManifestBuilder b("extension");
    b.doc_["extension"] = {{"name", std::move(name)},
                           {"type", "ffi"},
                           {"library_path", "libberth_ext.so"},
                           {"api_version", "1.0"},
                           {"applies_to", {"cpu"}}};
    return b;
  }

  // Sets or removes a field of the "plugin"/"extension" object.
  ManifestBuilder& Set(const std::string& key, nlohmann::json value) {
    doc_[kind_][key] = std::move(value);
    return *this;
  }
  ManifestBuilder& Remove(const std::string& key) {
    doc_[kind_].erase(key);
    return *this;
  }
  // Sets or removes a top-level field.
  ManifestBuilder& SetTop(const std::string& key, nlohmann::json value) {
    doc_[key] = std::move(value);
    return *this;
  }
  ManifestBuilder& RemoveTop(const std::string& key) {
    doc_.erase(key);
    return *this;
  }

  const nlohmann::json& json() const { return doc_; }
  std::string Text() const { return doc_.dump(2); }

  // Writes the manifest into `dir` as `relative`; returns its path.
  std::filesystem::path WriteTo(const TempDir& dir, const std::filesystem::path& relative) const {
    return dir.Write(relative, Text());
  }

 private:
  explicit ManifestBuilder(std::string kind) : kind_(std::move(kind)) {
    doc_ = {{"file_format_version", "1.0.0"}};
  }

  std::string kind_;
  nlohmann::json doc_;
};

// Captures every log line (all categories at debug) for the scope's life.
class LogCapture {
 public:
  struct Line {
    LogLevel level;
    std::string category;
    std::string message;
  };

  LogCapture() {
    ConfigureLogging("debug");
    previous_ = SetLogSink([this](LogLevel level, std::string_view category,
                                  std::string_view message) {
      std::lock_guard lock(mutex_);
      lines_.push_back(Line{level, std::string(category), std::string(message)});
    });
  }
  ~LogCapture() {
    SetLogSink(std::move(previous_));
    ConfigureLogging("warn");
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  // Lines at exactly `level` whose message contains `text`.
  int Count(LogLevel level, std::string_view text) const {
    std::lock_guard lock(mutex_);
    int n = 0;
    for (const Line& line : lines_) {
      if (line.level == level && line.message.find(text) != std::string::npos) ++n;
    }
    return n;
  }
  bool Has(LogLevel level, std::string_view text) const { return Count(level, text) > 0; }

  // Every line, for failure messages.
  std::string All() const {
    std::lock_guard lock(mutex_);
    std::string out;
    for (const Line& line : lines_) {
      out += std::string(LogLevelName(line.level)) + " [" + line.category + "] " + line.message +
             "\n";
    }
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Line> lines_;
  LogSink previous_;
};

}  // namespace berth::host::testing

#endif  // BERTH_HOST_MANIFEST_MANIFEST_TEST_UTIL_HPP_
