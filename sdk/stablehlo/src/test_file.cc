// Splitting upstream-style test files into chunks on `// -----` lines.
#include "berth/stablehlo/parser.hpp"

namespace berth::stablehlo {

std::vector<TestChunk> SplitTestFile(std::string_view text) {
  std::vector<TestChunk> chunks;
  size_t chunk_start = 0;
  int chunk_line = 1;
  int line = 1;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view content = text.substr(pos, end - pos);
    if (content.find("// -----") != std::string_view::npos) {
      chunks.push_back({static_cast<int>(chunks.size()), chunk_line,
                        text.substr(chunk_start, pos - chunk_start)});
      chunk_start = nl == std::string_view::npos ? text.size() : nl + 1;
      chunk_line = line + 1;
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
    ++line;
  }
  chunks.push_back({static_cast<int>(chunks.size()), chunk_line, text.substr(chunk_start)});
  return chunks;
}

}  // namespace berth::stablehlo
