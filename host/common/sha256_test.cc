#include "common/sha256.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "temp_dir.hpp"

namespace berth::common {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

// FIPS 180-4 example vectors (NIST CSRC "SHA256.pdf") and the long message.
TEST(Sha256Test, MatchesStandardVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_EQ(Sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256Test, HandlesEveryLengthAroundTheBlockBoundary) {
  // Lengths 55, 56 and 64 change how the padding is laid out; feeding the
  // same bytes in pieces must give the same digest as one call.
  for (size_t length = 0; length <= 130; ++length) {
    std::string text(length, 'x');
    for (size_t i = 0; i < length; ++i) text[i] = static_cast<char>('a' + i % 26);
    Sha256 pieces;
    for (size_t i = 0; i < length; i += 7) pieces.Update(std::string_view(text).substr(i, 7));
    std::array<uint8_t, 32> a = pieces.Finish();
    Sha256 whole;
    whole.Update(text);
    EXPECT_EQ(a, whole.Finish()) << length;
  }
  EXPECT_EQ(Sha256Hex(std::string(55, 'a')),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(Sha256Hex(std::string(56, 'a')),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(Sha256Hex(std::string(64, 'a')),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST(Sha256Test, HashesFilesInChunks) {
  TempDir dir;
  std::string text(200000, 'a');  // spans several 64 KiB chunks
  fs::path path = dir.Write("lib.so", text);
  Result<std::string> digest = Sha256File(path);
  ASSERT_TRUE(digest.ok()) << digest.status().ToString();
  EXPECT_EQ(*digest, Sha256Hex(text));
  Result<std::string> empty = Sha256File(dir.Write("empty", ""));
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256Test, ReportsMissingFileAsNotFound) {
  TempDir dir;
  Result<std::string> digest = Sha256File(dir.path() / "missing.so");
  ASSERT_FALSE(digest.ok());
  EXPECT_EQ(digest.status().code(), StatusCode::kNotFound);
  EXPECT_NE(digest.status().message().find("missing.so: cannot open"), std::string::npos);
}

TEST(Sha256Test, ReportsFolderAsInvalidArgument) {
  TempDir dir;
  Result<std::string> digest = Sha256File(dir.path());
  ASSERT_FALSE(digest.ok());
  EXPECT_EQ(digest.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(digest.status().message().find("not a regular file"), std::string::npos);
}

TEST(Sha256Test, ReportsUnreadableFileAsPermissionDenied) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads files whatever their permissions";
  TempDir dir;
  fs::path path = dir.Write("locked.so", "x");
  fs::permissions(path, fs::perms::none);
  Result<std::string> digest = Sha256File(path);
  ASSERT_FALSE(digest.ok());
  EXPECT_EQ(digest.status().code(), StatusCode::kPermissionDenied);
}

}  // namespace
}  // namespace berth::common
