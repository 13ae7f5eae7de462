// Manifest JSON for tests: a builder starting from a valid minimal plugin or
// extension manifest, and a one-call plugin manifest.
#ifndef BERTH_TESTS_SUPPORT_MANIFEST_BUILDER_HPP_
#define BERTH_TESTS_SUPPORT_MANIFEST_BUILDER_HPP_

#include <filesystem>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "berth/c_api.h"
#include "temp_dir.hpp"

namespace berth::testing {

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

// A plugin manifest as JSON text, declaring the ABI the SDK builds plugins
// for (BERTH_API_MAJOR.BERTH_API_MINOR) and platform `name`; `extra` fields
// are merged into "plugin".
inline std::string PluginManifest(const std::string& name, const std::string& library,
                                  nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json plugin = {{"name", name},
                           {"library_path", library},
                           {"api_version", std::to_string(BERTH_API_MAJOR) + "." + std::to_string(BERTH_API_MINOR)},
                           {"platform", name}};
  for (auto& [key, value] : extra.items()) plugin[key] = value;
  return nlohmann::json{{"file_format_version", "1.0.0"}, {"plugin", plugin}}.dump(2);
}

}  // namespace berth::testing

#endif  // BERTH_TESTS_SUPPORT_MANIFEST_BUILDER_HPP_
