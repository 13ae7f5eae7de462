// The intermediate container: written, it reads back; every truncation and
// every altered byte of the payload is refused as DATA_LOSS, a damaged or
// missing header as INVALID_ARGUMENT; text intermediates stay text.
#include "phase_compile/intermediate_file.hpp"

#include <gtest/gtest.h>

#include <random>

namespace berth::ext::phase_compile {
namespace {

IntermediateHeader Header(bool text) {
  IntermediateHeader h;
  h.plugin = "cpu";
  h.platform = "cpu";
  h.platform_version = "0.1.0";
  h.phase = text ? "partition" : "plan";
  h.format = text ? "stablehlo-partitioned" : "cpu-plan";
  h.text = text;
  return h;
}

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string bytes(n, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  return bytes;
}

TEST(IntermediateFileTest, ReadsBackHeaderAndPayload) {
  for (bool text : {true, false}) {
    const std::string payload = text ? "func.func @main() {\n  return\n}\n" : RandomBytes(1000, 3);
    std::string file = EncodeIntermediate(Header(text), payload);
    EXPECT_TRUE(file.starts_with(text ? kTextIntermediatePrefix : kBinaryIntermediatePrefix));
    EXPECT_TRUE(LooksLikeIntermediate(file));
    Result<IntermediateFile> read = DecodeIntermediate(file, "f");
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    IntermediateHeader expected = Header(text);
    expected.fingerprint = read->header.fingerprint;
    EXPECT_EQ(read->header, expected);
    EXPECT_EQ(read->header.fingerprint.size(), 64u);
    EXPECT_EQ(read->payload, payload);
  }
}

TEST(IntermediateFileTest, TheDeviceCountTravelsWhenKnown) {
  IntermediateHeader header = Header(false);
  header.num_devices = 4;
  Result<IntermediateFile> read = DecodeIntermediate(EncodeIntermediate(header, "x"), "f");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->header.num_devices, 4);
  const std::string unknown = EncodeIntermediate(Header(false), "x");
  EXPECT_EQ(unknown.find("devices"), std::string::npos);  // not written when unknown
  std::string bad = EncodeIntermediate(header, "x");
  bad.replace(bad.find("\"devices\":4"), 11, "\"devices\":0");
  Result<IntermediateFile> refused = DecodeIntermediate(bad, "f");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument) << refused.status().ToString();
}

TEST(IntermediateFileTest, EveryTruncationIsRefused) {
  const std::string file = EncodeIntermediate(Header(false), RandomBytes(300, 5));
  for (size_t n = 0; n < file.size(); ++n) {
    Result<IntermediateFile> read = DecodeIntermediate(std::string_view(file).substr(0, n), "cut.bin");
    ASSERT_FALSE(read.ok()) << n;
    EXPECT_NE(read.status().message().find("cut.bin"), std::string::npos) << read.status().ToString();
  }
}

TEST(IntermediateFileTest, AnAlteredPayloadByteIsDataLoss) {
  const std::string payload = RandomBytes(200, 7);
  const std::string file = EncodeIntermediate(Header(false), payload);
  const size_t start = file.size() - payload.size();
  for (size_t i = start; i < file.size(); ++i) {
    std::string altered = file;
    altered[i] = static_cast<char>(altered[i] ^ 0x10);
    Result<IntermediateFile> read = DecodeIntermediate(altered, "x");
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.status().code(), StatusCode::kDataLoss) << read.status().ToString();
    EXPECT_NE(read.status().message().find("fingerprint"), std::string::npos);
  }
}

TEST(IntermediateFileTest, AnAlteredHeaderByteIsRefused) {
  const std::string file = EncodeIntermediate(Header(false), RandomBytes(50, 9));
  const size_t header_end = file.find('\n');
  for (size_t i = 0; i < header_end; ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string altered = file;
      altered[i] = static_cast<char>(altered[i] ^ (1 << bit));
      EXPECT_FALSE(DecodeIntermediate(altered, "x").ok()) << "byte " << i << " bit " << bit;
    }
  }
}

TEST(IntermediateFileTest, HeaderDamageIsInvalidArgument) {
  EXPECT_EQ(DecodeIntermediate("module {}", "plain.mlir").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(DecodeIntermediate("BERTH-INTERMEDIATE [1]\nx", "a").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(DecodeIntermediate("BERTH-INTERMEDIATE {\"plugin\":\"cpu\"}\nx", "b").status().code(),
            StatusCode::kInvalidArgument);
  std::string huge = "BERTH-INTERMEDIATE " + std::string(kMaxIntermediateHeaderSize + 10, ' ');
  Result<IntermediateFile> read = DecodeIntermediate(huge, "c");
  EXPECT_EQ(read.status().code(), StatusCode::kInvalidArgument) << read.status().ToString();
}

}  // namespace
}  // namespace berth::ext::phase_compile
