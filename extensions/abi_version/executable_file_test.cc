#include "abi_version/executable_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/sha256.hpp"

namespace berth::ext::abi_version {
namespace {

using ::nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::string_view kSource = "cache/model.bexe";

ExecutableFileHeader SampleHeader() {
  ExecutableFileHeader header;
  header.plugin = "cpu";
  header.platform = "cpu";
  header.api_major = 0;
  header.api_minor = 7;
  header.runtime = {1, 2};
  header.executable = {3, 4};
  header.name = "matmul_main";
  return header;
}

std::string SampleFile(std::string_view payload = "payload bytes") {
  return EncodeExecutableFile(SampleHeader(), payload);
}

// The JSON header of an encoded file.
json HeaderOf(std::string_view file) {
  uint32_t size = 0;
  for (int i = 0; i < 4; ++i) size |= static_cast<uint32_t>(static_cast<uint8_t>(file[12 + i])) << (8 * i);
  return json::parse(file.substr(kExecutableFilePrefixSize, size));
}

// A file with any header text, container version and payload, whose header
// digest is correct, so that checks after the digest can be reached.
std::string BuildFile(std::string_view header_text, std::string_view payload,
                      uint32_t version = kExecutableFileFormatVersion) {
  std::string out(kExecutableFileMagic);
  auto append_u32 = [&out](uint32_t value) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  };
  append_u32(version);
  append_u32(static_cast<uint32_t>(header_text.size()));
  common::Sha256 sha;
  sha.Update(header_text);
  std::array<uint8_t, 32> digest = sha.Finish();
  out.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  out.append(header_text);
  out.append(payload);
  return out;
}

// The sample file with its header edited by `edit` and the digest redone.
template <typename Edit>
std::string EditedFile(Edit edit, std::string_view payload = "payload bytes") {
  json header = HeaderOf(SampleFile(payload));
  edit(header);
  return BuildFile(header.dump(), payload);
}

void ExpectError(const Result<ExecutableFile>& result, StatusCode code, std::string_view text) {
  ASSERT_FALSE(result.ok()) << "decoded although it should not";
  EXPECT_EQ(result.status().code(), code) << result.status().ToString();
  EXPECT_THAT(result.status().message(),
              StartsWith("berth-executable file " + std::string(kSource) + ": "));
  EXPECT_THAT(result.status().message(), HasSubstr(std::string(text)));
}

// `header` and `payload` encoded, then decoded again.
Result<ExecutableFile> EncodedAndDecoded(const ExecutableFileHeader& header,
                                         std::string_view payload) {
  return DecodeExecutableFile(EncodeExecutableFile(header, payload), kSource);
}

// Decoding the sample file with `edit` made to its header fails as
// ExpectError checks.
template <typename Edit>
void ExpectEditRejected(Edit edit, StatusCode code, std::string_view text) {
  ExpectError(DecodeExecutableFile(EditedFile(std::move(edit)), kSource), code, text);
}

// ----------------------------------------------------------------- round trip

TEST(ExecutableFileTest, RoundTripsHeaderAndPayload) {
  std::string file = SampleFile("the payload");
  Result<ExecutableFile> decoded = DecodeExecutableFile(file, kSource);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ExecutableFileHeader expected = SampleHeader();
  expected.fingerprint = common::Sha256Hex("the payload");
  EXPECT_EQ(decoded->header, expected);
  EXPECT_EQ(decoded->payload, "the payload");
}

TEST(ExecutableFileTest, RoundTripsEmptyPayload) {
  Result<ExecutableFile> decoded = DecodeExecutableFile(SampleFile(""), kSource);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->payload, "");
  EXPECT_EQ(decoded->header.fingerprint, common::Sha256Hex(""));
}

TEST(ExecutableFileTest, RoundTripsBinaryPayloadWithNuls) {
  std::string payload;
  for (int i = 0; i < 1024; ++i) payload.push_back(static_cast<char>(i % 256));
  payload += std::string(16, '\0');
  Result<ExecutableFile> decoded = DecodeExecutableFile(SampleFile(payload), kSource);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->payload, payload);
}

TEST(ExecutableFileTest, RoundTripsEmptyNameAndLargestVersions) {
  ExecutableFileHeader header = SampleHeader();
  header.name = "";
  header.api_major = header.api_minor = kExecutableFileMaxVersionComponent;
  header.runtime = {kExecutableFileMaxVersionComponent, 0};
  header.executable = {0, kExecutableFileMaxVersionComponent};
  Result<ExecutableFile> decoded = EncodedAndDecoded(header, "x");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  header.fingerprint = common::Sha256Hex("x");
  EXPECT_EQ(decoded->header, header);
}

TEST(ExecutableFileTest, EncodeReplacesGivenFingerprintWithPayloadDigest) {
  ExecutableFileHeader header = SampleHeader();
  header.fingerprint = "stale";
  Result<ExecutableFile> decoded = EncodedAndDecoded(header, "abc");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->header.fingerprint, common::Sha256Hex("abc"));
}

TEST(ExecutableFileTest, EncodeReplacesInvalidUtf8InStrings) {
  ExecutableFileHeader header = SampleHeader();
  header.name = "bad\xff";
  Result<ExecutableFile> decoded = EncodedAndDecoded(header, "abc");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->header.name, "bad\xef\xbf\xbd");
}

TEST(ExecutableFileTest, WritesDocumentedLayout) {
  std::string file = SampleFile("abc");
  EXPECT_EQ(file.substr(0, 8), "BERTHEXE");
  EXPECT_EQ(file.substr(8, 4), std::string("\x01\x00\x00\x00", 4));
  json header = HeaderOf(file);
  EXPECT_EQ(header["format"], "berth-executable");
  EXPECT_EQ(header["payload_size"], 3);
  EXPECT_EQ(header["runtime"], json({{"major", 1}, {"minor", 2}}));
  EXPECT_EQ(file.substr(file.size() - 3), "abc");
}

TEST(ExecutableFileTest, LooksLikeExecutableFileChecksMagicOnly) {
  EXPECT_TRUE(LooksLikeExecutableFile(SampleFile()));
  EXPECT_TRUE(LooksLikeExecutableFile("BERTHEXE"));
  EXPECT_TRUE(LooksLikeExecutableFile("BERTHEXE and then anything"));
  EXPECT_FALSE(LooksLikeExecutableFile(""));
  EXPECT_FALSE(LooksLikeExecutableFile("BERTHEX"));
  EXPECT_FALSE(LooksLikeExecutableFile("{\"format\": \"berth-executable\"}"));
}

TEST(ExecutableFileTest, AbiVersionStringPrintsMajorDotMinor) {
  EXPECT_EQ(AbiVersionString({1, 2}), "1.2");
  EXPECT_EQ(AbiVersionString({0, 0}), "0.0");
}

// ------------------------------------------------------------ container level

TEST(ExecutableFileTest, RejectsEmptyInput) {
  ExpectError(DecodeExecutableFile("", kSource), StatusCode::kInvalidArgument,
              "the file is empty");
}

TEST(ExecutableFileTest, RejectsWrongMagic) {
  std::string file = SampleFile();
  file[0] = 'X';
  ExpectError(DecodeExecutableFile(file, kSource), StatusCode::kInvalidArgument,
              "not a berth-executable file");
  ExpectError(DecodeExecutableFile("{\"plugin\": \"cpu\"}", kSource),
              StatusCode::kInvalidArgument, "not a berth-executable file");
  ExpectError(DecodeExecutableFile("BERT", kSource), StatusCode::kInvalidArgument,
              "not a berth-executable file");
}

TEST(ExecutableFileTest, RejectsFileShorterThanPrefix) {
  std::string file = SampleFile();
  ExpectError(DecodeExecutableFile(file.substr(0, 10), kSource), StatusCode::kDataLoss,
              "truncated: the file is 10 bytes, shorter than its 48-byte fixed prefix");
  ExpectError(DecodeExecutableFile(file.substr(0, 30), kSource), StatusCode::kDataLoss,
              "truncated: the file is 30 bytes");
}

TEST(ExecutableFileTest, RejectsUnknownContainerVersionNamingBoth) {
  std::string file = BuildFile(HeaderOf(SampleFile()).dump(), "payload bytes", 2);
  ExpectError(DecodeExecutableFile(file, kSource), StatusCode::kInvalidArgument,
              "container format version 2 is not supported; this build reads version 1");
  ExpectError(DecodeExecutableFile(BuildFile("{}", "", 0), kSource),
              StatusCode::kInvalidArgument, "container format version 0 is not supported");
}

TEST(ExecutableFileTest, RejectsHeaderLengthOverLimit) {
  std::string file = SampleFile();
  file.replace(12, 4, std::string("\x01\x00\x01\x00", 4));  // 65537
  ExpectError(DecodeExecutableFile(file, kSource), StatusCode::kInvalidArgument,
              "header length 65537 is over the 65536-byte limit");
  file.replace(12, 4, std::string("\xff\xff\xff\xff", 4));
  ExpectError(DecodeExecutableFile(file, kSource), StatusCode::kInvalidArgument,
              "header length 4294967295 is over");
}

TEST(ExecutableFileTest, RejectsHeaderLengthBeyondFile) {
  std::string file = SampleFile("");
  size_t after_prefix = file.size() - kExecutableFilePrefixSize;
  uint32_t claimed = static_cast<uint32_t>(after_prefix + 1);
  for (int i = 0; i < 4; ++i) file[12 + i] = static_cast<char>((claimed >> (8 * i)) & 0xff);
  ExpectError(DecodeExecutableFile(file, kSource), StatusCode::kDataLoss,
              "truncated: header length " + std::to_string(claimed) +
                  " is beyond the end of the file (" + std::to_string(after_prefix) +
                  " bytes follow the prefix)");
}

TEST(ExecutableFileTest, RejectsOversizedHeaderMadeByEncode) {
  ExecutableFileHeader header = SampleHeader();
  header.name = std::string(kExecutableFileMaxHeaderSize, 'n');
  ExpectError(EncodedAndDecoded(header, "x"), StatusCode::kInvalidArgument, "-byte limit");
}

TEST(ExecutableFileTest, RejectsHeaderDigestMismatch) {
  std::string file = SampleFile();
  // Same length, different content: only the digest can tell.
  size_t at = file.find("matmul_main");
  ASSERT_NE(at, std::string::npos);
  file[at] = 'M';
  ExpectError(DecodeExecutableFile(file, kSource), StatusCode::kDataLoss,
              "corrupted: header digest mismatch");
  file = SampleFile();
  file[20] ^= 0x01;
  ExpectError(DecodeExecutableFile(file, kSource), StatusCode::kDataLoss,
              "corrupted: header digest mismatch");
}

TEST(ExecutableFileTest, RejectsTruncatedPayloadSayingExpectedAndFound) {
  std::string file = SampleFile("0123456789");
  ExpectError(DecodeExecutableFile(file.substr(0, file.size() - 4), kSource),
              StatusCode::kDataLoss, "truncated: expected 10 payload bytes, found 6");
  ExpectError(DecodeExecutableFile(file.substr(0, file.size() - 10), kSource),
              StatusCode::kDataLoss, "truncated: expected 10 payload bytes, found 0");
}

TEST(ExecutableFileTest, RejectsTrailingBytes) {
  std::string file = SampleFile("0123456789") + "xyz";
  ExpectError(DecodeExecutableFile(file, kSource), StatusCode::kInvalidArgument,
              "3 trailing bytes after the 10-byte payload");
}

// --------------------------------------------------------------- header JSON

TEST(ExecutableFileTest, RejectsInvalidJsonHeader) {
  ExpectError(DecodeExecutableFile(BuildFile("{\"plugin\": ", ""), kSource),
              StatusCode::kInvalidArgument, "the header is not valid JSON");
  ExpectError(DecodeExecutableFile(BuildFile("", ""), kSource), StatusCode::kInvalidArgument,
              "the header is not valid JSON");
  ExpectError(DecodeExecutableFile(BuildFile("{} {}", ""), kSource),
              StatusCode::kInvalidArgument, "the header is not valid JSON");
}

TEST(ExecutableFileTest, RejectsHeaderThatIsNotAnObject) {
  ExpectError(DecodeExecutableFile(BuildFile("[1, 2]", ""), kSource),
              StatusCode::kInvalidArgument, "the header is an array; expected a JSON object");
  ExpectError(DecodeExecutableFile(BuildFile("\"s\"", ""), kSource),
              StatusCode::kInvalidArgument, "the header is a string; expected a JSON object");
}

TEST(ExecutableFileTest, RejectsEachMissingFieldNamingIt) {
  for (const char* field : {"format", "plugin", "platform", "api", "runtime", "executable",
                            "name", "fingerprint", "payload_size"}) {
    SCOPED_TRACE(field);
    std::string file = EditedFile([field](json& h) { h.erase(field); });
    ExpectError(DecodeExecutableFile(file, kSource), StatusCode::kInvalidArgument,
                "header field \"" + std::string(field) + "\" is missing");
  }
}

TEST(ExecutableFileTest, RejectsMissingVersionComponentNamingIt) {
  std::string file = EditedFile([](json& h) { h["executable"].erase("minor"); });
  ExpectError(DecodeExecutableFile(file, kSource), StatusCode::kInvalidArgument,
              "header field \"executable.minor\" is missing; expected an integer 0..65535");
}

TEST(ExecutableFileTest, RejectsEachWronglyTypedFieldNamingIt) {
  struct Case {
    const char* field;
    json value;
    const char* message;
  };
  const Case cases[] = {
      {"format", 1, "header field \"format\" is an integer; expected a string"},
      {"plugin", json::array(), "header field \"plugin\" is an array; expected a string"},
      {"platform", nullptr, "header field \"platform\" is null; expected a string"},
      {"api", "0.7", "header field \"api\" is a string; expected an object"},
      {"runtime", json::array({1, 2}), "header field \"runtime\" is an array; expected an object"},
      {"executable", true, "header field \"executable\" is a boolean; expected an object"},
      {"name", 3.5, "header field \"name\" is a fractional number; expected a string"},
      {"fingerprint", json::object(), "header field \"fingerprint\" is an object; expected a string"},
      {"payload_size", "13", "header field \"payload_size\" is a string; expected a non-negative"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.field);
    std::string file = EditedFile([&c](json& h) { h[c.field] = c.value; });
    ExpectError(DecodeExecutableFile(file, kSource), StatusCode::kInvalidArgument, c.message);
  }
}

TEST(ExecutableFileTest, RejectsWronglyTypedVersionComponent) {
  ExpectEditRejected([](json& h) { h["runtime"]["major"] = 1.5; }, StatusCode::kInvalidArgument,
                     "header field \"runtime.major\" is a fractional number; expected an integer");
  ExpectEditRejected([](json& h) { h["api"]["minor"] = "7"; }, StatusCode::kInvalidArgument,
                     "header field \"api.minor\" is a string");
}

TEST(ExecutableFileTest, RejectsNegativeVersions) {
  ExpectEditRejected([](json& h) { h["runtime"]["minor"] = -1; }, StatusCode::kInvalidArgument,
                     "header field \"runtime.minor\" is -1; expected an integer 0..65535");
  ExpectEditRejected([](json& h) { h["api"]["major"] = INT64_MIN; }, StatusCode::kInvalidArgument,
                     "header field \"api.major\" is -9223372036854775808");
}

TEST(ExecutableFileTest, RejectsAbsurdVersions) {
  ExpectEditRejected([](json& h) { h["executable"]["major"] = 65536; },
                     StatusCode::kInvalidArgument,
                     "header field \"executable.major\" is 65536; expected an integer 0..65535");
  ExpectEditRejected([](json& h) { h["executable"]["minor"] = UINT64_MAX; },
                     StatusCode::kInvalidArgument,
                     "header field \"executable.minor\" is 18446744073709551615");
}

TEST(ExecutableFileTest, RejectsWrongFormatName) {
  ExpectEditRejected(
      [](json& h) { h["format"] = "berth-manifest"; }, StatusCode::kInvalidArgument,
      "header field \"format\" is \"berth-manifest\"; expected \"berth-executable\"");
}

TEST(ExecutableFileTest, RejectsEmptyPluginOrPlatform) {
  ExpectEditRejected([](json& h) { h["plugin"] = ""; }, StatusCode::kInvalidArgument,
                     "header field \"plugin\" is an empty string");
  ExpectEditRejected([](json& h) { h["platform"] = ""; }, StatusCode::kInvalidArgument,
                     "header field \"platform\" is an empty string");
}

TEST(ExecutableFileTest, RejectsNegativePayloadSize) {
  ExpectEditRejected([](json& h) { h["payload_size"] = -13; }, StatusCode::kInvalidArgument,
                     "header field \"payload_size\" is negative (-13)");
}

TEST(ExecutableFileTest, RejectsPayloadSizeMismatch) {
  // The payload is 13 bytes; the header claims otherwise.
  ExpectEditRejected([](json& h) { h["payload_size"] = 20; }, StatusCode::kDataLoss,
                     "truncated: expected 20 payload bytes, found 13");
  ExpectEditRejected([](json& h) { h["payload_size"] = 5; }, StatusCode::kInvalidArgument,
                     "8 trailing bytes after the 5-byte payload");
  ExpectEditRejected([](json& h) { h["payload_size"] = UINT64_MAX; }, StatusCode::kDataLoss,
                     "truncated: expected 18446744073709551615 payload bytes, found 13");
}

TEST(ExecutableFileTest, RejectsMalformedFingerprint) {
  std::string file = EditedFile([](json& h) { h["fingerprint"] = "ABC"; });
  ExpectError(DecodeExecutableFile(file, kSource), StatusCode::kInvalidArgument,
              "header field \"fingerprint\" is \"ABC\"; expected 64 lower-case hex digits");
  file = EditedFile([](json& h) { h["fingerprint"] = std::string(1000, 'z'); });
  Result<ExecutableFile> decoded = DecodeExecutableFile(file, kSource);
  ExpectError(decoded, StatusCode::kInvalidArgument, "...\"; expected 64 lower-case hex");
  EXPECT_LT(decoded.status().message().size(), 200u) << "long values are clipped";
}

TEST(ExecutableFileTest, RejectsFingerprintMismatch) {
  std::string file = SampleFile("0123456789");
  file.back() = 'X';
  ExpectError(DecodeExecutableFile(file, kSource), StatusCode::kDataLoss,
              "corrupted: payload fingerprint mismatch");
  file = EditedFile([](json& h) { h["fingerprint"] = common::Sha256Hex("something else"); });
  ExpectError(DecodeExecutableFile(file, kSource), StatusCode::kDataLoss,
              "corrupted: payload fingerprint mismatch");
}

TEST(ExecutableFileTest, IgnoresUnknownHeaderFields) {
  std::string file = EditedFile([](json& h) { h["written_by"] = {{"tool", "berth"}}; });
  Result<ExecutableFile> decoded = DecodeExecutableFile(file, kSource);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->header.plugin, "cpu");
}

// The fuzzer's seeds must stay valid files, or it starts from nothing.
TEST(ExecutableFileTest, DecodesEveryFuzzSeed) {
  int seeds = 0;
  for (const auto& entry : std::filesystem::directory_iterator(BERTH_EXECUTABLE_FUZZ_CORPUS)) {
    SCOPED_TRACE(entry.path().string());
    std::ifstream in(entry.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Result<ExecutableFile> decoded = DecodeExecutableFile(bytes, entry.path().string());
    EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
    ++seeds;
  }
  EXPECT_GE(seeds, 2);
}

// ----------------------------------------------------------------- exhaustive

TEST(ExecutableFileTest, RejectsEveryFlippedBit) {
  std::string file = SampleFile(std::string("a\0b", 3));
  for (size_t i = 0; i < file.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = file;
      flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
      Result<ExecutableFile> decoded = DecodeExecutableFile(flipped, kSource);
      ASSERT_FALSE(decoded.ok()) << "byte " << i << " bit " << bit << " flipped was accepted";
      StatusCode code = decoded.status().code();
      EXPECT_TRUE(code == StatusCode::kInvalidArgument || code == StatusCode::kDataLoss)
          << decoded.status().ToString();
      EXPECT_THAT(decoded.status().message(), HasSubstr(std::string(kSource)));
    }
  }
}

TEST(ExecutableFileTest, RejectsEveryByteReplacedByItsComplement) {
  std::string payload;
  for (int i = 0; i < 300; ++i) payload.push_back(static_cast<char>(i * 7));
  std::string file = SampleFile(payload);
  for (size_t i = 0; i < file.size(); ++i) {
    std::string flipped = file;
    flipped[i] = static_cast<char>(~flipped[i]);
    EXPECT_FALSE(DecodeExecutableFile(flipped, kSource).ok()) << "byte " << i;
  }
}

TEST(ExecutableFileTest, RejectsEveryTruncation) {
  std::string file = SampleFile("0123456789");
  for (size_t length = 0; length < file.size(); ++length) {
    Result<ExecutableFile> decoded = DecodeExecutableFile(file.substr(0, length), kSource);
    ASSERT_FALSE(decoded.ok()) << "truncated to " << length << " bytes was accepted";
    StatusCode code = decoded.status().code();
    EXPECT_TRUE(code == StatusCode::kInvalidArgument || code == StatusCode::kDataLoss)
        << decoded.status().ToString();
  }
}

}  // namespace
}  // namespace berth::ext::abi_version
