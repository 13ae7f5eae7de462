// A fresh folder for one test, removed with its contents at the end (after
// giving back any permissions the test took away).
#ifndef BERTH_TESTS_SUPPORT_TEMP_DIR_HPP_
#define BERTH_TESTS_SUPPORT_TEMP_DIR_HPP_

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace berth::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "berth-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed for " << pattern;
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
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
  std::filesystem::path operator/(const std::filesystem::path& relative) const {
    return path_ / relative;
  }

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

}  // namespace berth::testing

#endif  // BERTH_TESTS_SUPPORT_TEMP_DIR_HPP_
