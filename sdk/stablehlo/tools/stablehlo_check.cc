// stablehlo_check: parses and verifies StableHLO files and reports per file
// (and per `// -----` chunk with --split) whether they pass.
//
//   stablehlo_check [--split] [--no-verify] [--roundtrip] [--quiet] FILE...
//
// Exit code 0 when everything passed, 1 otherwise.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "berth/stablehlo/stablehlo.hpp"

namespace {

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace berth::stablehlo;
  bool split = false, verify = true, roundtrip = false, quiet = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--split") {
      split = true;
    } else if (arg == "--no-verify") {
      verify = false;
    } else if (arg == "--roundtrip") {
      roundtrip = true;
    } else if (arg == "--quiet") {
      quiet = true;
    } else if (arg == "--help" || arg == "-h") {
      std::printf("usage: stablehlo_check [--split] [--no-verify] [--roundtrip] [--quiet] FILE...\n");
      return 0;
    } else {
      files.push_back(arg);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "stablehlo_check: no input files (see --help)\n");
    return 2;
  }
  int total = 0, passed = 0;
  for (const std::string& path : files) {
    std::string text;
    if (!ReadFile(path, &text)) {
      std::fprintf(stderr, "%s: cannot read the file\n", path.c_str());
      ++total;
      continue;
    }
    std::vector<TestChunk> chunks;
    if (split) {
      chunks = SplitTestFile(text);
    } else {
      chunks.push_back({0, 1, text});
    }
    for (const TestChunk& chunk : chunks) {
      ++total;
      ParseOptions options;
      options.first_line = chunk.first_line;
      options.verify = verify;
      auto module = ParseModule(chunk.text, path, options);
      if (!module.ok()) {
        std::printf("FAIL %s#%d %s\n", path.c_str(), chunk.index, module.status().message().c_str());
        continue;
      }
      if (roundtrip) {
        std::string printed = Print(*module);
        auto again = ParseModule(printed, path + " (printed)");
        std::string diff;
        if (!again.ok()) {
          std::printf("FAIL %s#%d printed text does not parse: %s\n", path.c_str(), chunk.index,
                      again.status().message().c_str());
          continue;
        }
        if (!StructurallyEqual(*module, *again, &diff)) {
          std::printf("FAIL %s#%d round trip differs: %s\n", path.c_str(), chunk.index, diff.c_str());
          continue;
        }
      }
      ++passed;
      if (!quiet) std::printf("ok   %s#%d\n", path.c_str(), chunk.index);
    }
  }
  std::printf("%d of %d passed\n", passed, total);
  return passed == total ? 0 : 1;
}
