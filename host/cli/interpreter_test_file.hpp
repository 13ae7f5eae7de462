// What a StableHLO interpreter test file's comments ask of a run, for
// `berth check`: the arguments its RUN line passes (`--interpret
// --args="[dense<...> : tensor<...>, ...]"`) and its CHECK lines, which
// match the results as the reference interpreter prints them.
#ifndef BERTH_HOST_CLI_INTERPRETER_TEST_FILE_HPP_
#define BERTH_HOST_CLI_INTERPRETER_TEST_FILE_HPP_

#include <string>
#include <string_view>
#include <vector>

#include "berth/status.hpp"
#include "cli/host_array.hpp"

namespace berth::cli {

// The arguments of the file's first RUN line that interprets it with
// --args and is not expected to fail (`not ...`); none when there is no such
// line. INVALID_ARGUMENT naming the element when one is not a dense literal.
Result<std::vector<HostArray>> RunLineArgs(std::string_view file_text);

// One `// CHECK:` or `// CHECK-NEXT:` line (FileCheck's default prefix;
// other prefixes belong to other RUN lines and are ignored).
struct CheckLine {
  bool next = false;  // CHECK-NEXT: on the line right after the previous match
  std::string pattern;
  int line = 0;  // in the file
};

// The CHECK lines of a case whose text starts at `first_line`.
std::vector<CheckLine> CheckLines(std::string_view case_text, int first_line);

// Whether `output` matches `checks` as FileCheck would for literal patterns:
// each CHECK's text on a line at or after the previous match, each
// CHECK-NEXT's on the line right after it; runs of spaces and tabs compare
// equal. FAILED_PRECONDITION "check failed: ..." naming the first CHECK line
// that does not match and what stood there.
Status MatchCheckLines(const std::vector<CheckLine>& checks, std::string_view output);

}  // namespace berth::cli

#endif  // BERTH_HOST_CLI_INTERPRETER_TEST_FILE_HPP_
