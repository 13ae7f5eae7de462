// The upstream interpreter tests (../shared/conformance/stablehlo, from
// BERTH_STABLEHLO_CONFORMANCE_DIR; once a sample, now the whole suite): every
// chunk parses and verifies but the known gaps below, and printing then
// parsing again gives the same IR, as does writing and reading its bytecode. When
// BERTH_STABLEHLO_UPSTREAM_DIR names a folder of more upstream test files
// (never committed), the same runs over those.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "tests/test_util.hpp"

namespace berth::stablehlo {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> MlirFiles(const char* env) {
  std::vector<fs::path> files;
  const char* dir = std::getenv(env);
  if (!dir || !fs::is_directory(dir)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".mlir") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Totals {
  int chunks = 0;
  int verified = 0;
  int round_tripped = 0;
  int bytecode_round_tripped = 0;  // WriteBytecode then ReadBytecode
  int known_gaps = 0;  // chunks refused for a reason listed in kKnownGaps
};

// Constructs of the upstream suite the parser does not take yet (issue 19:
// quantized element types). A chunk
// of `file` refused with a message containing `message` is counted as a
// known gap instead of a failure; each gap must still occur, so this list
// shrinks as the parser learns them.
struct KnownGap {
  const char* file;
  const char* message;
  int chunks;
};
constexpr KnownGap kKnownGaps[] = {
    {"quantized_ops.mlir", "quantized types are not supported", 5},
};

const KnownGap* FindGap(const fs::path& path, const Status& status) {
  for (const KnownGap& gap : kKnownGaps) {
    if (path.filename() == gap.file && status.message().find(gap.message) != std::string::npos) {
      return &gap;
    }
  }
  return nullptr;
}

Totals RunAll(const std::vector<fs::path>& files, std::map<const KnownGap*, int>* gaps_seen) {
  Totals t;
  for (const fs::path& path : files) {
    std::string text = Read(path);
    for (const TestChunk& chunk : SplitTestFile(text)) {
      ++t.chunks;
      ParseOptions options;
      options.first_line = chunk.first_line;
      options.verify = true;
      Result<Module> m = ParseModule(chunk.text, path.string(), options);
      if (!m.ok()) {
        if (const KnownGap* gap = FindGap(path, m.status()); gap != nullptr && gaps_seen) {
          ++(*gaps_seen)[gap];
          ++t.known_gaps;
          continue;
        }
      }
      EXPECT_TRUE(m.ok()) << m.status().ToString();
      if (!m.ok()) continue;
      ++t.verified;
      std::string printed = Print(*m);
      Result<Module> again = ParseModule(printed, path.string() + " (printed)", ParseOptions{1, true});
      EXPECT_TRUE(again.ok()) << path << " chunk " << chunk.index << ": "
                              << again.status().ToString() << "\n" << printed;
      if (!again.ok()) continue;
      std::string diff;
      EXPECT_TRUE(StructurallyEqual(*m, *again, &diff))
          << path << " chunk " << chunk.index << ": " << diff;
      if (diff.empty()) ++t.round_tripped;
      // The binary form reads back to the same IR, names included (the
      // printed texts agree), and verifies.
      Result<Module> read = ReadBytecode(WriteBytecode(*m), path.string());
      EXPECT_TRUE(read.ok()) << path << " chunk " << chunk.index << ": " << read.status().ToString();
      if (!read.ok()) continue;
      diff.clear();
      EXPECT_TRUE(StructurallyEqual(*m, *read, &diff)) << path << " chunk " << chunk.index << ": " << diff;
      EXPECT_EQ(Print(*read), printed) << path << " chunk " << chunk.index;
      if (diff.empty()) ++t.bytecode_round_tripped;
    }
  }
  return t;
}

TEST(ConformanceTest, EverySampleChunkParsesVerifiesAndRoundTrips) {
  std::vector<fs::path> files = MlirFiles("BERTH_STABLEHLO_CONFORMANCE_DIR");
  if (files.empty()) GTEST_SKIP() << "BERTH_STABLEHLO_CONFORMANCE_DIR is not a folder of .mlir files";
  std::map<const KnownGap*, int> gaps_seen;
  Totals t = RunAll(files, &gaps_seen);
  EXPECT_EQ(t.verified + t.known_gaps, t.chunks);
  EXPECT_EQ(t.round_tripped, t.verified);
  EXPECT_EQ(t.bytecode_round_tripped, t.verified);
  EXPECT_GT(t.chunks, 200);  // the 34-file sample had 237 chunks, the whole suite 524
  if (files.size() > 100) {
    // The whole upstream suite: every listed gap is still there, exactly.
    for (const KnownGap& gap : kKnownGaps) {
      EXPECT_EQ(gaps_seen[&gap], gap.chunks) << gap.file << ": " << gap.message;
    }
  }
  std::printf("sample: %d chunks in %zu files; %d verified, %d round-tripped (text), %d (bytecode), %d known gaps\n",
              t.chunks, files.size(), t.verified, t.round_tripped, t.bytecode_round_tripped, t.known_gaps);
}

TEST(ConformanceTest, EveryOpOfTheSpecParsesVerifiesAndRoundTrips) {
  // tests/data: Berth's own programs covering every op, written in the
  // upstream interpreter-test style.
  std::vector<fs::path> files = MlirFiles("BERTH_STABLEHLO_TEST_DATA_DIR");
  if (files.empty()) GTEST_SKIP() << "BERTH_STABLEHLO_TEST_DATA_DIR is not set";
  Totals t = RunAll(files, nullptr);
  EXPECT_EQ(t.verified, t.chunks);
  EXPECT_EQ(t.round_tripped, t.chunks);
  EXPECT_EQ(t.bytecode_round_tripped, t.chunks);
}

TEST(ConformanceTest, UpstreamSuiteWhenAvailable) {
  std::vector<fs::path> files = MlirFiles("BERTH_STABLEHLO_UPSTREAM_DIR");
  if (files.empty()) GTEST_SKIP() << "set BERTH_STABLEHLO_UPSTREAM_DIR to run the upstream suite";
  Totals t = RunAll(files, nullptr);
  std::printf("upstream: %d chunks in %zu files; %d verified, %d round-tripped\n", t.chunks,
              files.size(), t.verified, t.round_tripped);
  EXPECT_EQ(t.verified, t.chunks);
}

}  // namespace
}  // namespace berth::stablehlo
