#include "manifest/manifest.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "berth/extension_chain.hpp"
#include "log_capture.hpp"
#include "manifest_builder.hpp"
#include "temp_dir.hpp"

namespace berth::core {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::testing::EndsWith;
using testing::LogCapture;
using testing::ManifestBuilder;
using testing::TempDir;

// Every rejection: no manifest, the reason code, a message naming the file
// that contains `text`, ending with the consequence.
void ExpectError(const ManifestParseResult& result, std::string_view reason,
                 std::string_view text, const fs::path& path = "/m/test.json") {
  ASSERT_FALSE(result.manifest.has_value()) << "accepted; expected " << reason;
  EXPECT_EQ(result.error.reason, reason) << result.error.message;
  EXPECT_THAT(result.error.message, StartsWith("manifest " + path.string() + ": "));
  EXPECT_THAT(result.error.message, HasSubstr(std::string(text)));
  EXPECT_THAT(result.error.message, EndsWith(". Skipped."));
}

ManifestParseResult Parse(std::string_view text) { return ParseManifest("/m/test.json", text); }
ManifestParseResult Parse(const ManifestBuilder& builder) { return Parse(builder.Text()); }

// ------------------------------------------------------------ valid input

TEST(ManifestTest, ParsesMinimalPluginWithDefaults) {
  ManifestParseResult r = Parse(ManifestBuilder::Plugin("cpu"));
  ASSERT_TRUE(r.manifest) << r.error.message;
  const Manifest& m = *r.manifest;
  EXPECT_EQ(m.path, fs::path("/m/test.json"));
  EXPECT_EQ(m.kind, ManifestKind::kPlugin);
  EXPECT_EQ(m.file_format_version, "1.0.0");
  EXPECT_EQ(m.name, "cpu");
  EXPECT_EQ(m.platform, "cpu");
  EXPECT_EQ(m.api_major, 1);
  EXPECT_EQ(m.api_minor, 0);
  EXPECT_EQ(m.priority, 0);
  EXPECT_EQ(m.description, "");
  EXPECT_FALSE(m.sha256);
  EXPECT_TRUE(m.create_options.empty());
  EXPECT_TRUE(m.applies_to.empty());
  EXPECT_EQ(m.raw, ManifestBuilder::Plugin("cpu").json()["plugin"]);
  EXPECT_EQ(r.name, "cpu");
  EXPECT_EQ(r.kind, ManifestKind::kPlugin);
  EXPECT_EQ(r.error.reason, "");
}

TEST(ManifestTest, ParsesDesignDocumentExample) {
  constexpr std::string_view kText = R"({
    "file_format_version": "1.0.0",
    "plugin": {
      "name": "cpu",
      "library_path": "../../lib/berth/libberth_cpu.so",
      "api_version": "1.0",
      "platform": "cpu",
      "priority": 100,
      "description": "Reference CPU backend",
      "create_options": {"device_count": 4},
      "sha256": "ABCDEF0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789"
    }
  })";
  ManifestParseResult r = ParseManifest("/opt/berth/etc/plugins.d/cpu.json", kText);
  ASSERT_TRUE(r.manifest) << r.error.message;
  const Manifest& m = *r.manifest;
  EXPECT_EQ(m.library_path, "../../lib/berth/libberth_cpu.so");
  EXPECT_EQ(m.library, fs::path("/opt/berth/lib/berth/libberth_cpu.so"));
  EXPECT_FALSE(m.library_is_bare_name);
  EXPECT_EQ(m.priority, 100);
  EXPECT_EQ(m.description, "Reference CPU backend");
  EXPECT_EQ(m.create_options, NamedValueMap({{"device_count", int64_t{4}}}));
  EXPECT_EQ(m.sha256, "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789");
}

TEST(ManifestTest, ParsesExtensionAndKeepsTypeSpecificFieldsInRaw) {
  ManifestBuilder b = ManifestBuilder::Extension("math_ffi");
  b.Set("applies_to", {"cpu", "cuda*"}).Set("functions", {{{"target", "my_add"}}});
  ManifestParseResult r = Parse(b);
  ASSERT_TRUE(r.manifest) << r.error.message;
  const Manifest& m = *r.manifest;
  EXPECT_EQ(m.kind, ManifestKind::kExtension);
  EXPECT_EQ(m.name, "math_ffi");
  EXPECT_EQ(m.extension_type, "ffi");
  EXPECT_EQ(m.extension_type_id, BERTH_Extension_Type_Ffi);
  EXPECT_EQ(m.applies_to, (std::vector<std::string>{"cpu", "cuda*"}));
  EXPECT_EQ(m.raw["functions"][0]["target"], "my_add");
  EXPECT_EQ(m.platform, "");
  EXPECT_EQ(r.kind, ManifestKind::kExtension);
}

TEST(ManifestTest, ExtensionTypeIdFollowsTheNameAndIsZeroForUnknownNames) {
  for (int type = BERTH_Extension_Type_Ffi; type <= BERTH_Extension_Type_LiveObjects; ++type) {
    ManifestBuilder b = ManifestBuilder::Extension("e");
    b.Set("type", berth::ExtensionTypeName(type));
    ManifestParseResult r = Parse(b);
    ASSERT_TRUE(r.manifest) << r.error.message;
    EXPECT_EQ(r.manifest->extension_type_id, type) << berth::ExtensionTypeName(type);
  }
  ManifestBuilder b = ManifestBuilder::Extension("e");
  b.Set("type", "vendor_tracing");
  ManifestParseResult r = Parse(b);
  ASSERT_TRUE(r.manifest) << r.error.message;
  EXPECT_EQ(r.manifest->extension_type, "vendor_tracing");
  EXPECT_EQ(r.manifest->extension_type_id, 0);
}

TEST(ManifestTest, KeepsTypedCreateOptions) {
  ManifestBuilder b = ManifestBuilder::Plugin("cpu");
  b.Set("create_options", {{"text", "x"},
                           {"count", -3},
                           {"big", 18446744073709551615.0 / 4},
                           {"ratio", 0.5},
                           {"flag", true},
                           {"dims", {1, 2.0, -3}},
                           {"none", json::array()}});
  ManifestParseResult r = Parse(b);
  ASSERT_TRUE(r.manifest) << r.error.message;
  // Typed as the C ABI carries them, once, when the manifest is read.
  const NamedValueMap& o = r.manifest->create_options;
  ASSERT_EQ(o.size(), 7u);
  EXPECT_EQ(o.at("text"), NamedValueData(std::string("x")));
  EXPECT_EQ(o.at("count"), NamedValueData(int64_t{-3}));
  EXPECT_EQ(o.at("big"), NamedValueData(18446744073709551615.0 / 4));
  EXPECT_EQ(o.at("ratio"), NamedValueData(0.5));
  EXPECT_EQ(o.at("flag"), NamedValueData(true));
  // An integral float in an integer array is stored as an integer.
  EXPECT_EQ(o.at("dims"), NamedValueData(std::vector<int64_t>{1, 2, -3}));
  EXPECT_EQ(o.at("none"), NamedValueData(std::vector<int64_t>{}));
}

TEST(ManifestTest, AcceptsIntegralFloatPriorityLikeJsonSchema) {
  ManifestParseResult r = Parse(R"({"file_format_version": "1.0.0", "plugin": {"name": "a",
      "library_path": "a.so", "api_version": "1.2", "platform": "cpu", "priority": 1e2}})");
  ASSERT_TRUE(r.manifest) << r.error.message;
  EXPECT_EQ(r.manifest->priority, 100);
  EXPECT_EQ(r.manifest->api_minor, 2);
}

TEST(ManifestTest, RejectsIntegerLiteralJustBelowInt64) {
  // nlohmann reads it as the double -2^63; it must not pass as INT64_MIN.
  ExpectError(Parse(R"({"file_format_version": "1.0.0", "plugin": {"name": "a",
      "library_path": "a.so", "api_version": "1.0", "platform": "cpu",
      "priority": -9223372036854775809}})"),
              reason::kInvalidValue, "which is not a 64-bit integer");
}

TEST(ManifestTest, AcceptsNegativeAndLargePriority) {
  ManifestParseResult r = Parse(ManifestBuilder::Plugin("a").Set("priority", INT64_MIN));
  ASSERT_TRUE(r.manifest) << r.error.message;
  EXPECT_EQ(r.manifest->priority, INT64_MIN);
  r = Parse(ManifestBuilder::Plugin("a").Set("priority", INT64_MAX));
  ASSERT_TRUE(r.manifest) << r.error.message;
  EXPECT_EQ(r.manifest->priority, INT64_MAX);
}

TEST(ManifestTest, AcceptsNewerMinorFormatAndLogsUnknownFieldsAtDebug) {
  LogCapture log;
  ManifestBuilder b = ManifestBuilder::Plugin("cpu");
  b.SetTop("file_format_version", "1.7.3").SetTop("signature", "x").Set("preload", true);
  ManifestParseResult r = Parse(b);
  ASSERT_TRUE(r.manifest) << r.error.message;
  EXPECT_EQ(r.manifest->file_format_version, "1.7.3");
  EXPECT_TRUE(log.Has(LogLevel::kDebug, "file format \"1.7.3\" is newer")) << log.All();
  EXPECT_TRUE(log.Has(LogLevel::kDebug, "unknown field \"signature\" in the top level ignored"))
      << log.All();
  EXPECT_TRUE(log.Has(LogLevel::kDebug, "unknown field \"preload\" in \"plugin\" ignored"))
      << log.All();
  EXPECT_EQ(log.Count(LogLevel::kWarning, ""), 0) << log.All();
}

TEST(ManifestTest, IgnoresUnknownFieldsOfCurrentFormatWithDebugHint) {
  LogCapture log;
  ManifestParseResult r = Parse(ManifestBuilder::Plugin("cpu").Set("priorty", 5));
  ASSERT_TRUE(r.manifest) << r.error.message;
  EXPECT_TRUE(log.Has(LogLevel::kDebug, "unknown field \"priorty\" in \"plugin\" ignored; check "
                                        "its spelling"))
      << log.All();
}

TEST(ManifestTest, DoesNotLogTypeSpecificExtensionFields) {
  LogCapture log;
  ManifestParseResult r = Parse(ManifestBuilder::Extension("e").Set("functions", json::array()));
  ASSERT_TRUE(r.manifest) << r.error.message;
  EXPECT_FALSE(log.Has(LogLevel::kDebug, "functions")) << log.All();
}

TEST(ManifestTest, AcceptsUtf8ByteOrderMarkAndNonAsciiDescription) {
  std::string text = "\xEF\xBB\xBF" + ManifestBuilder::Plugin("cpu")
                                          .Set("description", "Référence \xF0\x9F\x9A\x80")
                                          .Text();
  ManifestParseResult r = Parse(text);
  ASSERT_TRUE(r.manifest) << r.error.message;
  EXPECT_EQ(r.manifest->description, "Référence \xF0\x9F\x9A\x80");
}

TEST(ManifestTest, AcceptsSchemaKeyAtTopLevel) {
  LogCapture log;
  ManifestParseResult r =
      Parse(ManifestBuilder::Plugin("cpu").SetTop("$schema", "manifest.schema.json"));
  ASSERT_TRUE(r.manifest) << r.error.message;
  EXPECT_FALSE(log.Has(LogLevel::kDebug, "$schema")) << log.All();
}

// ---------------------------------------------------------- library paths

// An absolute library path is kept; a relative one is resolved against the
// manifest's folder, and a relative manifest's against the working folder.
TEST(ManifestTest, ResolvesLibraryPathAgainstTheManifestFolder) {
  struct Case {
    std::string manifest, library_path;
    fs::path expected;
  };
  const Case cases[] = {
      {"/etc/berth/plugins.d/cpu.json", "/opt/berth/lib/libcpu.so", "/opt/berth/lib/libcpu.so"},
      {"/etc/berth/plugins.d/cpu.json", "./sub/../lib/./libcpu.so",
       "/etc/berth/plugins.d/lib/libcpu.so"},
      {"configs/cpu.json", "../lib/libcpu.so",
       (fs::current_path() / "lib/libcpu.so").lexically_normal()},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.manifest + ": " + c.library_path);
    ManifestParseResult r = ParseManifest(
        c.manifest, ManifestBuilder::Plugin("cpu").Set("library_path", c.library_path).Text());
    ASSERT_TRUE(r.manifest) << r.error.message;
    EXPECT_EQ(r.manifest->library_path, c.library_path);
    EXPECT_EQ(r.manifest->library, c.expected);
    EXPECT_TRUE(r.manifest->library.is_absolute());
    EXPECT_FALSE(r.manifest->library_is_bare_name);
  }
}

TEST(ManifestTest, MarksBareLibraryNameForSystemSearch) {
  ManifestParseResult r =
      Parse(ManifestBuilder::Plugin("cpu").Set("library_path", "libberth_cpu.so.1"));
  ASSERT_TRUE(r.manifest) << r.error.message;
  EXPECT_TRUE(r.manifest->library_is_bare_name);
  EXPECT_EQ(r.manifest->library, fs::path("libberth_cpu.so.1"));
}

TEST(ManifestTest, RejectsLibraryPathNamingAFolder) {
  ExpectError(Parse(ManifestBuilder::Plugin("cpu").Set("library_path", "lib/")),
              reason::kInvalidValue, "\"library_path\" in \"plugin\" is \"lib/\", which names a "
                                     "folder");
}

TEST(ManifestTest, RejectsLibraryPathWithNul) {
  ExpectError(Parse(ManifestBuilder::Plugin("cpu").Set("library_path", std::string("a\0b.so", 6))),
              reason::kInvalidValue, "contains a NUL character");
}

// --------------------------------------------------------- file handling

TEST(ManifestTest, RejectsEmptyFile) {
  TempDir dir;
  fs::path path = dir.Write("empty.json", "");
  ExpectError(LoadManifestFile(path), reason::kEmpty, "the file is empty", path);
}

TEST(ManifestTest, RejectsWhitespaceOnlyText) {
  ExpectError(Parse(" \n\t\r\n  "), reason::kEmpty, "holds only blanks");
  ExpectError(Parse("\xEF\xBB\xBF\n"), reason::kEmpty, "holds only blanks");
}

TEST(ManifestTest, RejectsFileOverSizeLimit) {
  TempDir dir;
  std::string text = ManifestBuilder::Plugin("cpu").Set("description", std::string(2 << 20, 'x')).Text();
  fs::path path = dir.Write("big.json", text);
  ExpectError(LoadManifestFile(path), reason::kTooLarge, "over the 1048576-byte limit", path);
  ExpectError(Parse(text), reason::kTooLarge, "bytes, over the 1048576-byte limit");
}

TEST(ManifestTest, AcceptsFileJustUnderSizeLimit) {
  TempDir dir;
  std::string text = ManifestBuilder::Plugin("cpu").Text();
  text.append(kMaxManifestBytes - text.size(), ' ');
  ASSERT_EQ(text.size(), kMaxManifestBytes);
  ManifestParseResult r = LoadManifestFile(dir.Write("edge.json", text));
  EXPECT_TRUE(r.manifest) << r.error.message;
}

TEST(ManifestTest, RejectsFolderNamedLikeAManifest) {
  TempDir dir;
  fs::path path = dir.Mkdir("x.json");
  ExpectError(LoadManifestFile(path), reason::kNotAFile, "is a folder, not a manifest file", path);
}

TEST(ManifestTest, RejectsFifoWithoutBlocking) {
  TempDir dir;
  fs::path path = dir.path() / "pipe.json";
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  ExpectError(LoadManifestFile(path), reason::kNotAFile, "is not a regular file", path);
}

TEST(ManifestTest, RejectsMissingFileAsUnreadable) {
  TempDir dir;
  fs::path path = dir.path() / "gone.json";
  ExpectError(LoadManifestFile(path), reason::kUnreadable, "No such file or directory", path);
}

TEST(ManifestTest, RejectsFileWithoutReadPermission) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads files whatever their permissions";
  TempDir dir;
  fs::path path = ManifestBuilder::Plugin("cpu").WriteTo(dir, "secret.json");
  fs::permissions(path, fs::perms::none);
  ExpectError(LoadManifestFile(path), reason::kUnreadable, "make it readable", path);
}

TEST(ManifestTest, LoadsValidFile) {
  TempDir dir;
  fs::path path = ManifestBuilder::Plugin("cpu").Set("library_path", "lib/a.so").WriteTo(dir, "a.json");
  ManifestParseResult r = LoadManifestFile(path);
  ASSERT_TRUE(r.manifest) << r.error.message;
  EXPECT_EQ(r.manifest->path, path);
  EXPECT_EQ(r.manifest->library, dir.path() / "lib/a.so");
}

// ------------------------------------------------------------ bad syntax

TEST(ManifestTest, RejectsTruncatedJsonWithLineAndColumn) {
  std::string text = ManifestBuilder::Plugin("cpu").Text();
  text.resize(text.find("\"name\": \"cpu\",") + 14);
  ManifestParseResult r = Parse(text);
  // The end of the text: one past the last byte of the line it stops in.
  ExpectError(r, reason::kInvalidJson, "invalid JSON at line 6, column 19: ");
  EXPECT_THAT(r.error.message, HasSubstr("unexpected end of input"));
}

TEST(ManifestTest, ReportsLineAndColumnOfSyntaxError) {
  // The stray 'x' is the 3rd byte of line 3.
  ExpectError(Parse("{\n  \"file_format_version\": \"1.0.0\",\n  x\n}"), reason::kInvalidJson,
              "invalid JSON at line 3, column 3: ");
}

TEST(ManifestTest, ReportsLineAndColumnOfMissingComma) {
  // nlohmann notices at the end of the token that should have had a comma before it.
  ExpectError(Parse("{\"a\": 1\n \"b\": 2}"), reason::kInvalidJson, "at line 2, column 4");
}

TEST(ManifestTest, RejectsTrailingGarbage) {
  ExpectError(Parse(ManifestBuilder::Plugin("cpu").Text() + "\n}"), reason::kInvalidJson,
              "expected end of input");
}

TEST(ManifestTest, RejectsComments) {
  ExpectError(Parse("// c\n" + ManifestBuilder::Plugin("cpu").Text()), reason::kInvalidJson,
              "invalid JSON at line 1, column 1");
}

TEST(ManifestTest, RejectsDuplicateKeys) {
  ExpectError(Parse(R"({"file_format_version": "1.0.0", "plugin": {"name": "a", "name": "b"}})"),
              reason::kInvalidJson, "the key \"name\" appears twice in \"plugin\"; remove one");
  ExpectError(Parse(R"({"plugin": {}, "plugin": {}})"), reason::kInvalidJson,
              "the key \"plugin\" appears twice in the top-level object");
}

TEST(ManifestTest, RejectsNumberOverflow) {
  ExpectError(Parse(R"({"file_format_version": "1.0.0", "x": 1e999})"), reason::kInvalidJson,
              "number overflow");
}

TEST(ManifestTest, RejectsTopLevelThatIsNotAnObject) {
  ExpectError(Parse("[1, 2]"), reason::kNotAnObject, "the top level is an array");
  ExpectError(Parse("\"cpu\""), reason::kNotAnObject, "the top level is a string");
  ExpectError(Parse("42"), reason::kNotAnObject, "the top level is an integer");
  ExpectError(Parse("null"), reason::kNotAnObject, "the top level is null");
}

// Invalid UTF-8 anywhere is rejected before parsing, with its position.
class InvalidUtf8Test : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(InvalidUtf8Test, RejectsWithPosition) {
  const auto& [bad, where] = GetParam();
  std::string text = "{\"file_format_version\": \"1.0.0\",\n \"x\": \"" + bad + "\"}";
  ExpectError(Parse(text), reason::kInvalidUtf8, where + ") is not valid UTF-8");
}

INSTANTIATE_TEST_SUITE_P(
    ManifestTest, InvalidUtf8Test,
    ::testing::Values(
        std::pair{std::string("\xff"), std::string("the byte at offset 40 (line 2, column 8")},
        std::pair{std::string("\x80"), std::string("offset 40 (line 2, column 8")},
        std::pair{std::string("\xc0\xaf"), std::string("line 2, column 8")},          // overlong
        std::pair{std::string("\xe0\x80\xaf"), std::string("line 2, column 8")},      // overlong
        std::pair{std::string("\xed\xa0\x80"), std::string("line 2, column 8")},      // surrogate
        std::pair{std::string("\xf4\x90\x80\x80"), std::string("line 2, column 8")},  // > U+10FFFF
        std::pair{std::string("ab\xe2\x82"), std::string("offset 42 (line 2, column 10")}));

TEST(ManifestTest, RejectsInvalidUtf8OutsideStrings) {
  ExpectError(Parse("{\xfe}"), reason::kInvalidUtf8, "offset 1 (line 1, column 2)");
  ExpectError(Parse("{}\xc3"), reason::kInvalidUtf8, "offset 2 (line 1, column 3)");
}

// ---------------------------------------------------------------- depth

TEST(ManifestTest, RejectsHundredThousandDeepArraysWithoutOverflowingTheStack) {
  std::string text(100000, '[');
  ExpectError(Parse(text), reason::kTooDeep, "nested deeper than 64 levels");
  text += std::string(100000, ']');
  ExpectError(Parse(text), reason::kTooDeep, "nested deeper than 64 levels");
}

TEST(ManifestTest, RejectsHundredThousandDeepObjectsInsideAManifest) {
  std::string text = R"({"file_format_version": "1.0.0", "plugin": {"name": "a", "x": )";
  for (int i = 0; i < 100000; ++i) text += "{\"k\":";
  ExpectError(Parse(text), reason::kTooDeep, "nested deeper than 64 levels");
}

TEST(ManifestTest, AcceptsNestingUpToTheLimit) {
  // The manifest object is level 1, "plugin" level 2, "x" then holds 62 more.
  std::string deep = std::string(62, '[') + std::string(62, ']');
  std::string text = R"({"file_format_version": "1.0.0", "plugin": {"name": "a",
      "library_path": "a.so", "api_version": "1.0", "platform": "cpu", "x": )" + deep + "}}";
  ManifestParseResult r = Parse(text);
  EXPECT_TRUE(r.manifest) << r.error.message;
  text.insert(text.find("\"x\": ") + 5, "[");
  text.insert(text.size() - 2, "]");
  ExpectError(Parse(text), reason::kTooDeep, "deeper than 64");
}

// ------------------------------------------------------- format version

TEST(ManifestTest, RejectsMissingFileFormatVersion) {
  ExpectError(Parse(ManifestBuilder::Plugin("cpu").RemoveTop("file_format_version")),
              reason::kMissingField,
              "\"file_format_version\" is missing; add \"file_format_version\": \"1.0.0\"");
}

TEST(ManifestTest, RejectsFileFormatVersionOfWrongType) {
  ExpectError(Parse(ManifestBuilder::Plugin("cpu").SetTop("file_format_version", 1)),
              reason::kWrongType, "\"file_format_version\" must be a string, not an integer");
}

TEST(ManifestTest, RejectsMalformedFileFormatVersion) {
  for (const char* bad : {"1.0", "1.0.0.0", "v1.0.0", "01.0.0", "1.0.-1", "", "1..0", "1.0.0 ",
                          "1.0000000000.0"}) {
    SCOPED_TRACE(bad);
    ExpectError(Parse(ManifestBuilder::Plugin("cpu").SetTop("file_format_version", bad)),
                reason::kInvalidValue, "which is not MAJOR.MINOR.PATCH; write it like \"1.0.0\"");
  }
}

TEST(ManifestTest, RejectsUnknownFileFormatMajor) {
  ExpectError(Parse(ManifestBuilder::Plugin("cpu").SetTop("file_format_version", "2.0.0")),
              reason::kUnsupportedFormat, "(major version 2), but this host reads only major "
                                          "version 1");
  ExpectError(Parse(ManifestBuilder::Plugin("cpu").SetTop("file_format_version", "0.9.0")),
              reason::kUnsupportedFormat, "major version 0");
}

// ------------------------------------------------------------------ kind

TEST(ManifestTest, RejectsManifestWithBothKinds) {
  ManifestBuilder b = ManifestBuilder::Plugin("cpu");
  b.SetTop("extension", ManifestBuilder::Extension("e").json()["extension"]);
  ExpectError(Parse(b), reason::kAmbiguousKind,
              "both \"plugin\" and \"extension\" are present");
}

TEST(ManifestTest, RejectsManifestWithNeitherKind) {
  ExpectError(Parse(R"({"file_format_version": "1.0.0"})"), reason::kMissingField,
              "neither \"plugin\" nor \"extension\" is present");
}

TEST(ManifestTest, RejectsKindThatIsNotAnObject) {
  ExpectError(Parse(R"({"file_format_version": "1.0.0", "plugin": ["cpu"]})"), reason::kWrongType,
              "\"plugin\" must be an object, not an array");
  ExpectError(Parse(R"({"file_format_version": "1.0.0", "extension": "ffi"})"),
              reason::kWrongType, "\"extension\" must be an object, not a string");
}

// -------------------------------------------------------- missing fields

struct MissingCase {
  bool extension;
  std::string field;
  std::string fix;
};

class MissingFieldTest : public ::testing::TestWithParam<MissingCase> {};

TEST_P(MissingFieldTest, RejectsWithFix) {
  const MissingCase& c = GetParam();
  ManifestBuilder b = c.extension ? ManifestBuilder::Extension("e") : ManifestBuilder::Plugin("p");
  ManifestParseResult r = Parse(b.Remove(c.field));
  std::string kind = c.extension ? "extension" : "plugin";
  ExpectError(r, reason::kMissingField,
              "\"" + c.field + "\" is missing from \"" + kind + "\"; add " + c.fix);
  EXPECT_EQ(r.kind, c.extension ? ManifestKind::kExtension : ManifestKind::kPlugin);
  if (c.field != "name") {
    EXPECT_EQ(r.name, c.extension ? "e" : "p");
  }
}

INSTANTIATE_TEST_SUITE_P(
    ManifestTest, MissingFieldTest,
    ::testing::Values(
        MissingCase{false, "name", "a name made of letters, digits"},
        MissingCase{false, "library_path", "the path of the plugin's shared library"},
        MissingCase{false, "api_version", "the Berth C API version"},
        MissingCase{false, "platform", "the platform the plugin drives, e.g. \"platform\": \"cpu\""},
        MissingCase{true, "name", "a name made of letters"},
        MissingCase{true, "type", "the extension type, e.g. \"type\": \"ffi\""},
        MissingCase{true, "library_path", "the path of the extension's shared library"},
        MissingCase{true, "api_version", "the Berth C API version"},
        MissingCase{true, "applies_to", "the platforms (globs) the extension attaches to"}),
    [](const ::testing::TestParamInfo<MissingCase>& info) {
      return std::string(info.param.extension ? "Extension_" : "Plugin_") + info.param.field;
    });

// ------------------------------------------------------------ wrong types

struct WrongTypeCase {
  bool extension;
  std::string field;
  json value;
  std::string expected_and_actual;  // "a string, not an integer"
};

class WrongTypeTest : public ::testing::TestWithParam<WrongTypeCase> {};

TEST_P(WrongTypeTest, RejectsNamingExpectedAndActualType) {
  const WrongTypeCase& c = GetParam();
  ManifestBuilder b = c.extension ? ManifestBuilder::Extension("e") : ManifestBuilder::Plugin("p");
  std::string kind = c.extension ? "extension" : "plugin";
  ExpectError(Parse(b.Set(c.field, c.value)), reason::kWrongType,
              "\"" + c.field + "\" in \"" + kind + "\" must be " + c.expected_and_actual +
                  "; write it like \"" + c.field + "\": ");
}

INSTANTIATE_TEST_SUITE_P(
    ManifestTest, WrongTypeTest,
    ::testing::Values(
        WrongTypeCase{false, "name", 7, "a string, not an integer"},
        WrongTypeCase{false, "library_path", json::array(), "a string, not an array"},
        WrongTypeCase{false, "api_version", 1.0, "a string, not a number with a fraction or exponent"},
        WrongTypeCase{false, "platform", nullptr, "a string, not null"},
        WrongTypeCase{false, "priority", "100", "an integer, not a string"},
        WrongTypeCase{false, "priority", true, "an integer, not a boolean"},
        WrongTypeCase{false, "description", json::object(), "a string, not an object"},
        WrongTypeCase{false, "create_options", json::array(), "an object, not an array"},
        WrongTypeCase{false, "create_options", "device_count=4", "an object, not a string"},
        WrongTypeCase{false, "sha256", 123, "a string, not an integer"},
        WrongTypeCase{true, "name", false, "a string, not a boolean"},
        WrongTypeCase{true, "type", json::array({"ffi"}), "a string, not an array"},
        WrongTypeCase{true, "library_path", 1, "a string, not an integer"},
        WrongTypeCase{true, "api_version", json::object(), "a string, not an object"},
        WrongTypeCase{true, "applies_to", "cpu", "an array of strings, not a string"},
        WrongTypeCase{true, "priority", json::array(), "an integer, not an array"},
        WrongTypeCase{true, "description", 5, "a string, not an integer"},
        WrongTypeCase{true, "sha256", nullptr, "a string, not null"}),
    [](const ::testing::TestParamInfo<WrongTypeCase>& info) {
      return std::string(info.param.extension ? "Extension_" : "Plugin_") + info.param.field +
             "_" + std::to_string(info.index);
    });

// ---------------------------------------------------------- invalid values

struct InvalidCase {
  bool extension;
  std::string field;
  json value;
  std::string text;
};

class InvalidValueTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(InvalidValueTest, RejectsWithExplanation) {
  const InvalidCase& c = GetParam();
  ManifestBuilder b = c.extension ? ManifestBuilder::Extension("e") : ManifestBuilder::Plugin("p");
  ExpectError(Parse(b.Set(c.field, c.value)), reason::kInvalidValue, c.text);
}

INSTANTIATE_TEST_SUITE_P(
    ManifestTest, InvalidValueTest,
    ::testing::Values(
        InvalidCase{false, "name", "", "\"name\" in \"plugin\" is empty"},
        InvalidCase{false, "name", "my cpu", "is \"my cpu\", which contains \" \" at offset 2; "
                                             "use only letters, digits, '_', '.' and '-'"},
        InvalidCase{false, "name", "a/b", "contains \"/\" at offset 1"},
        InvalidCase{false, "name", "caf\xc3\xa9", "contains a non-ASCII character at offset 3"},
        InvalidCase{false, "name", "a\nb", "is \"a\\u000ab\", which contains \"\\u000a\""},
        InvalidCase{false, "library_path", "", "\"library_path\" in \"plugin\" is empty"},
        InvalidCase{false, "platform", "", "\"platform\" in \"plugin\" is empty"},
        InvalidCase{false, "api_version", "1", "is \"1\", which is not MAJOR.MINOR"},
        InvalidCase{false, "api_version", "1.0.0", "which is not MAJOR.MINOR"},
        InvalidCase{false, "api_version", "-1.0", "which is not MAJOR.MINOR"},
        InvalidCase{false, "api_version", "1.x", "which is not MAJOR.MINOR"},
        InvalidCase{false, "api_version", "", "\"api_version\" in \"plugin\" is empty"},
        InvalidCase{false, "priority", 1.5, "\"priority\" in \"plugin\" is 1.5, which is not a "
                                            "64-bit integer"},
        InvalidCase{false, "priority", 9223372036854775808ull, "is 9223372036854775808, which is"},
        InvalidCase{false, "priority", 1e300, "which is not a 64-bit integer"},
        InvalidCase{false, "priority", -9223372036854775808.0, "which is not a 64-bit integer"},
        InvalidCase{false, "sha256", "abc", "\"sha256\" in \"plugin\" is \"abc\" (3 characters), "
                                            "which is not 64 hex digits"},
        InvalidCase{false, "sha256", std::string(63, 'a') + "g", "(64 characters), which is not"},
        InvalidCase{false, "sha256", std::string(65, 'a'), "(65 characters)"},
        InvalidCase{false, "create_options", {{"nested", {{"a", 1}}}},
                    "\"create_options.nested\" in \"plugin\" is an object; option values must be "
                    "strings, integers, floats, booleans or arrays of integers"},
        InvalidCase{false, "create_options", {{"nothing", nullptr}},
                    "\"create_options.nothing\" in \"plugin\" is null"},
        InvalidCase{false, "create_options", {{"names", {"a", "b"}}},
                    "is an array whose element 0 is a string; array options may hold only "
                    "integers"},
        InvalidCase{false, "create_options", {{"dims", {1, 2.5}}},
                    "element 1 is a number with a fraction or exponent"},
        InvalidCase{false, "create_options", {{"dims", {1, 18446744073709551615ull}}},
                    "element 1 is an integer outside the 64-bit range"},
        InvalidCase{false, "create_options", {{"huge", 18446744073709551615ull}},
                    "\"create_options.huge\" in \"plugin\" is 18446744073709551615, which does "
                    "not fit a 64-bit signed integer"},
        InvalidCase{false, "create_options", {{"", 1}}, "has an option with an empty name"},
        InvalidCase{true, "type", "", "\"type\" in \"extension\" is empty"},
        InvalidCase{true, "applies_to", json::array(),
                    "\"applies_to\" in \"extension\" is empty, so the extension would attach to "
                    "nothing"},
        InvalidCase{true, "applies_to", {"cpu", ""}, "element 1 is an empty string"},
        InvalidCase{true, "applies_to", {"cpu", 3}, "element 1 is an integer; every element "
                                                    "must be a non-empty platform glob"},
        InvalidCase{true, "sha256", "xyz", "which is not 64 hex digits"},
        InvalidCase{true, "priority", 0.25, "\"priority\" in \"extension\" is 0.25"}),
    [](const ::testing::TestParamInfo<InvalidCase>& info) {
      return std::string(info.param.extension ? "Extension_" : "Plugin_") + info.param.field +
             "_" + std::to_string(info.index);
    });

TEST(ManifestTest, NormalisesSha256ToLowerCase) {
  std::string upper = "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF";
  ManifestParseResult r = Parse(ManifestBuilder::Extension("e").Set("sha256", upper));
  ASSERT_TRUE(r.manifest) << r.error.message;
  std::string lower = upper;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  EXPECT_EQ(r.manifest->sha256, lower);
}

TEST(ManifestTest, QuotesHugeValuesShortly) {
  std::string name(5000, 'a');
  name += ' ';
  ManifestParseResult r = Parse(ManifestBuilder::Plugin(name));
  ExpectError(r, reason::kInvalidValue, "...\", which contains \" \" at offset 5000");
  EXPECT_LT(r.error.message.size(), 400u);
}

TEST(ManifestTest, ReportsBestEffortNameAndKindOfRejectedManifest) {
  ManifestParseResult r = Parse(ManifestBuilder::Extension("math").Set("applies_to", 1));
  ASSERT_FALSE(r.manifest);
  EXPECT_EQ(r.name, "math");
  EXPECT_EQ(r.kind, ManifestKind::kExtension);
}

TEST(ManifestTest, NamesTheFileInEveryMessage) {
  ManifestParseResult r =
      ParseManifest("/odd\npath/a.json", ManifestBuilder::Plugin("cpu").Remove("platform").Text());
  EXPECT_THAT(r.error.message, StartsWith("manifest /odd?path/a.json: \"platform\" is missing"));
}

// ------------------------------------------------------------------ glob

TEST(GlobMatchTest, MatchesStarsAndQuestionMarks) {
  EXPECT_TRUE(GlobMatch("cpu", "cpu"));
  EXPECT_FALSE(GlobMatch("cpu", "cpu2"));
  EXPECT_FALSE(GlobMatch("cpu2", "cpu"));
  EXPECT_TRUE(GlobMatch("cuda*", "cuda"));
  EXPECT_TRUE(GlobMatch("cuda*", "cuda_12"));
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("", ""));
  EXPECT_FALSE(GlobMatch("", "a"));
  EXPECT_TRUE(GlobMatch("c?u", "cpu"));
  EXPECT_FALSE(GlobMatch("c?u", "cu"));
  EXPECT_TRUE(GlobMatch("*a*b*c", "xxaxxbxxbxc"));
  EXPECT_FALSE(GlobMatch("*a*b*c", "xxaxxbxxbx"));
  EXPECT_TRUE(GlobMatch("a*", "a*"));
  EXPECT_TRUE(GlobMatch("**?", "z"));
  EXPECT_FALSE(GlobMatch("?", ""));
}

TEST(GlobMatchTest, IsFastOnPathologicalPatterns) {
  std::string text(20000, 'a');
  std::string pattern;
  for (int i = 0; i < 50; ++i) pattern += "*a";
  pattern += "b";
  EXPECT_FALSE(GlobMatch(pattern, text));
}

// --------------------------------------------------------------- robustness

TEST(ManifestTest, NeverThrowsOnMutatedInput) {
  std::string base = ManifestBuilder::Extension("e").Set("create_options", {{"a", {1, 2}}}).Text();
  std::mt19937 rng(1234);
  const std::string alphabet = "{}[]\",:0123456789.eE-+ \\u\nabnultrf\x80\xff";
  for (int round = 0; round < 3000; ++round) {
    std::string text = base;
    int edits = 1 + static_cast<int>(rng() % 6);
    for (int i = 0; i < edits && !text.empty(); ++i) {
      size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0: text[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: text.erase(at, 1 + rng() % 8); break;
        default: text.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      }
    }
    ManifestParseResult r;
    ASSERT_NO_THROW(r = Parse(text)) << text;
    if (!r.manifest) {
      EXPECT_FALSE(r.error.reason.empty()) << text;
    }
  }
}

TEST(ManifestTest, FuzzCorpusParsesWithoutCrashing) {
  int files = 0;
  int valid = 0;
  for (const auto& entry : fs::directory_iterator(BERTH_MANIFEST_FUZZ_CORPUS)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    ManifestParseResult r = ParseManifest(entry.path(), text.str());
    ++files;
    if (r.manifest) {
      ++valid;
    } else {
      EXPECT_FALSE(r.error.reason.empty()) << entry.path();
    }
  }
  EXPECT_GE(files, 5);
  EXPECT_GE(valid, 2);
}

// ------------------------------------------------------------------ schema

json LoadSchema() {
  std::ifstream in(BERTH_MANIFEST_SCHEMA);
  EXPECT_TRUE(in) << "cannot open " << BERTH_MANIFEST_SCHEMA;
  return json::parse(in);
}

// Follows a local "$ref": "#/$defs/x" once (the schema nests them at most twice).
const json& Resolve(const json& schema, const json& node) {
  const json* current = &node;
  for (int i = 0; i < 4 && current->contains("$ref"); ++i) {
    std::string ref = (*current)["$ref"].get<std::string>();
    current = &schema.at(json::json_pointer(ref.substr(1)));
  }
  return *current;
}

std::vector<std::string> Strings(const json& array) {
  std::vector<std::string> out = array.get<std::vector<std::string>>();
  return out;
}

std::vector<std::string> Strings(std::span<const std::string_view> list) {
  return std::vector<std::string>(list.begin(), list.end());
}

TEST(ManifestSchemaTest, IsValidJsonOfDraft2020_12) {
  json schema;
  ASSERT_NO_THROW(schema = LoadSchema());
  EXPECT_EQ(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
  EXPECT_EQ(schema["type"], "object");
}

TEST(ManifestSchemaTest, RequiredFieldsMatchTheParser) {
  json schema = LoadSchema();
  // The lists as this test knows them, the parser's lists, and the schema's.
  const std::vector<std::string> top = {"file_format_version"};
  const std::vector<std::string> plugin = {"name", "library_path", "api_version", "platform"};
  const std::vector<std::string> extension = {"name", "type", "library_path", "api_version",
                                              "applies_to"};
  EXPECT_EQ(Strings(RequiredTopLevelFields()), top);
  EXPECT_EQ(Strings(RequiredFields(ManifestKind::kPlugin)), plugin);
  EXPECT_EQ(Strings(RequiredFields(ManifestKind::kExtension)), extension);
  EXPECT_EQ(Strings(schema["required"]), top);
  EXPECT_EQ(Strings(schema["$defs"]["plugin"]["required"]), plugin);
  EXPECT_EQ(Strings(schema["$defs"]["extension"]["required"]), extension);
  // Exactly one kind.
  EXPECT_EQ(schema["oneOf"], json::parse(R"([{"required": ["plugin"]}, {"required": ["extension"]}])"));
  EXPECT_EQ(Resolve(schema, schema["properties"]["plugin"]), schema["$defs"]["plugin"]);
  EXPECT_EQ(Resolve(schema, schema["properties"]["extension"]), schema["$defs"]["extension"]);
}

TEST(ManifestSchemaTest, ParserRejectsEachFieldTheSchemaRequiresWhenMissing) {
  json schema = LoadSchema();
  for (const char* kind : {"plugin", "extension"}) {
    for (const std::string& field : Strings(schema["$defs"][kind]["required"])) {
      SCOPED_TRACE(std::string(kind) + "." + field);
      ManifestBuilder b = std::string(kind) == "plugin" ? ManifestBuilder::Plugin("p")
                                                        : ManifestBuilder::Extension("e");
      ExpectError(Parse(b.Remove(field)), reason::kMissingField, "\"" + field + "\" is missing");
    }
  }
  ExpectError(Parse(ManifestBuilder::Plugin("p").RemoveTop("file_format_version")),
              reason::kMissingField, "\"file_format_version\" is missing");
}

// A value of a JSON type the schema's `type` does not allow.
json ValueOfOtherType(const std::string& type) {
  if (type == "string") return 12;
  return "not-" + type;
}

TEST(ManifestSchemaTest, ParserChecksTheTypeOfEveryFieldTheSchemaLists) {
  json schema = LoadSchema();
  for (const char* kind : {"plugin", "extension"}) {
    const json& properties = schema["$defs"][kind]["properties"];
    for (const auto& [field, node] : properties.items()) {
      SCOPED_TRACE(std::string(kind) + "." + field);
      const json& rule = Resolve(schema, node);
      ASSERT_TRUE(rule.contains("type"));
      ManifestBuilder b = std::string(kind) == "plugin" ? ManifestBuilder::Plugin("p")
                                                        : ManifestBuilder::Extension("e");
      ManifestParseResult r = Parse(b.Set(field, ValueOfOtherType(rule["type"])));
      ExpectError(r, reason::kWrongType, "\"" + field + "\" in \"" + kind + "\" must be ");
    }
  }
}

// Sample values for each patterned field; the schema's pattern (as an
// ECMAScript regex) and the parser must agree on every one.
TEST(ManifestSchemaTest, PatternsAgreeWithTheParser) {
  json schema = LoadSchema();
  struct Field {
    std::string name;
    json pattern_node;
    std::vector<std::string> samples;
  };
  const json& defs = schema["$defs"];
  std::vector<Field> fields = {
      {"file_format_version", schema["properties"]["file_format_version"],
       {"1.0.0", "1.2.3", "1.10.0", "1.999999999.0", "2.0.0", "0.1.0", "1.0", "1.0.0.0", "01.0.0",
        "1.00.0", "1.0.x", "", " 1.0.0", "1.1234567890.0"}},
      {"name", defs["name"], {"cpu", "a.b-c_D9", "-", "", "a b", "a/b", "é", "a\tb", "a*"}},
      {"api_version", defs["api_version"],
       {"1.0", "0.0", "12.34", "1", "1.0.0", "01.0", "1.01", "-1.0", "a.b", "1.", ".1", ""}},
      {"sha256", defs["sha256"],
       {std::string(64, 'a'), std::string(64, 'F'), std::string(64, '0'), std::string(63, 'a'),
        std::string(65, 'a'), std::string(63, 'a') + "g", ""}},
      {"library_path", defs["library_path"],
       {"a.so", "/a/b.so", "../a.so", "lib/", "/", "", std::string("a\0b", 3)}},
  };
  for (const Field& field : fields) {
    const json& rule = Resolve(schema, field.pattern_node);
    ASSERT_TRUE(rule.contains("pattern")) << field.name;
    std::regex pattern(rule["pattern"].get<std::string>(), std::regex::ECMAScript);
    for (const std::string& sample : field.samples) {
      SCOPED_TRACE(field.name + " = \"" + sample + "\"");
      bool schema_accepts = std::regex_search(sample, pattern);
      ManifestBuilder b = ManifestBuilder::Plugin("p");
      if (field.name == "file_format_version") b.SetTop(field.name, sample);
      else b.Set(field.name, sample);
      ManifestParseResult r = Parse(b);
      EXPECT_EQ(r.manifest.has_value(), schema_accepts) << r.error.message;
    }
  }
}

}  // namespace
}  // namespace berth::core
