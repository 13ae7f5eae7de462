// Parsing MLIR text of StableHLO programs into a Module.
#ifndef BERTH_STABLEHLO_PARSER_HPP_
#define BERTH_STABLEHLO_PARSER_HPP_

#include <string_view>
#include <vector>

#include "berth/status.hpp"
#include "berth/stablehlo/ir.hpp"

namespace berth::stablehlo {

struct ParseOptions {
  // Line number of the text's first line in its file (for chunks of a test
  // file, so diagnostics name lines of the whole file).
  int first_line = 1;
  // Run Verify() after parsing and return its first error.
  bool verify = false;
  // Deepest nesting of regions, attributes and types the recursive parser
  // accepts (clamped to 1..256). Each level costs at most ~4 KB of stack in
  // optimized builds (several times that under sanitizers); lower it when
  // parsing on a thread with a small stack. Literal and opaque-attribute
  // nesting is scanned without recursion and always allows 256 levels.
  int max_nesting_depth = 256;
};

// Parses `text` (a `module`, or bare `func.func`s forming an implicit module).
// Errors are INVALID_ARGUMENT with the message "FILE:LINE:COL: error: ...";
// nesting deeper than 256 levels is an error, never a crash.
Result<Module> ParseModule(std::string_view text, std::string_view filename);
Result<Module> ParseModule(std::string_view text, std::string_view filename,
                           const ParseOptions& options);

// A chunk of a test file split on lines containing `// -----`.
struct TestChunk {
  int index = 0;        // 0-based
  int first_line = 1;   // line of the chunk's first line in the file
  std::string_view text;
};
std::vector<TestChunk> SplitTestFile(std::string_view text);

}  // namespace berth::stablehlo

#endif  // BERTH_STABLEHLO_PARSER_HPP_
