// The cases of the upstream StableHLO interpreter suite
// (../shared/conformance/stablehlo beside the checkout): each public
// function with a body of each chunk of each .mlir file, in a fixed order
// (files sorted by path). Shared by the planner test, the host kernel
// generator and the test that runs the planned cases on the host.
#ifndef BERTH_TESTS_CUDA_CONFORMANCE_CASES_HPP_
#define BERTH_TESTS_CUDA_CONFORMANCE_CASES_HPP_

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "berth/stablehlo/parser.hpp"

namespace berth::cuda::testing {

struct ConformanceCase {
  std::string file;  // relative to the suite's folder
  int first_line = 1;
  const stablehlo::Module* module = nullptr;  // the chunk, parsed and verified
  const stablehlo::Function* function = nullptr;
  std::string text;  // the chunk's text
  // "file:line:function", a key naming the case.
  std::string Key() const {
    return file + ":" + std::to_string(first_line) + ":" + std::string(function->name());
  }
};

#ifdef BERTH_SOURCE_ROOT
inline std::filesystem::path ConformanceSuiteRoot() {
  return std::filesystem::path(BERTH_SOURCE_ROOT) / ".." / "shared" / "conformance" / "stablehlo";
}
#endif

// Calls `visit` for each case under `root`; returns the number of chunks
// that do not parse alone (e.g. quantized types, which the cpu plugin
// lowers first). No cases when `root` does not exist.
inline int ForEachConformanceCase(const std::filesystem::path& root,
                                  const std::function<void(const ConformanceCase&)>& visit) {
  if (!std::filesystem::exists(root)) return 0;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().extension() == ".mlir") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  int unparsed = 0;
  for (const std::filesystem::path& path : files) {
    std::ifstream file(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(file)),
                           std::istreambuf_iterator<char>());
    const std::string name = std::filesystem::relative(path, root).generic_string();
    for (const stablehlo::TestChunk& chunk : stablehlo::SplitTestFile(text)) {
      stablehlo::ParseOptions options;
      options.first_line = chunk.first_line;
      options.verify = true;
      Result<stablehlo::Module> module = stablehlo::ParseModule(chunk.text, name, options);
      if (!module.ok()) {
        ++unparsed;
        continue;
      }
      for (const stablehlo::Function* function : module->functions()) {
        if (function->is_declaration() || function->visibility() != stablehlo::Visibility::kPublic)
          continue;
        ConformanceCase c;
        c.file = name;
        c.first_line = chunk.first_line;
        c.module = &*module;
        c.function = function;
        c.text = std::string(chunk.text);
        visit(c);
      }
    }
  }
  return unparsed;
}

}  // namespace berth::cuda::testing

#endif  // BERTH_TESTS_CUDA_CONFORMANCE_CASES_HPP_
