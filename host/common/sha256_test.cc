#include "common/sha256.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <vector>
#include <string>

#include <gtest/gtest.h>

#include "temp_dir.hpp"

namespace berth::common {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

// The accelerated compression (x86 SHA-NI where the CPU has it) gives the
// portable one's state on random blocks, any number at once, from random
// states; the digests above are then checked through whichever Update uses.
TEST(Sha256Test, AcceleratedCompressionMatchesThePortableOne) {
  if (!Sha256::HasAcceleration()) GTEST_SKIP() << "this CPU has no SHA extensions (the portable path is all there is)";
  std::mt19937 rng(256);
  for (size_t blocks : {size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{64}}) {
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<uint8_t> data(64 * blocks);
      for (uint8_t& b : data) b = static_cast<uint8_t>(rng());
      Sha256::State portable;
      for (uint32_t& word : portable) word = static_cast<uint32_t>(rng());
      Sha256::State accelerated = portable;
      Sha256::CompressPortable(portable, data.data(), blocks);
      ASSERT_TRUE(Sha256::CompressAccelerated(accelerated, data.data(), blocks));
      ASSERT_EQ(accelerated, portable) << blocks << " blocks, trial " << trial;
    }
  }
}

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
