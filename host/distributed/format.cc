#include "distributed/format.hpp"

#include <chrono>
#include <cstdio>

namespace berth::distributed {

std::string FormatSeconds(Duration duration) {
  double seconds = std::chrono::duration<double>(duration).count();
  char buffer[64];
  if (seconds == 0 || seconds >= 1 || seconds <= -1) {
    std::snprintf(buffer, sizeof(buffer), "%.1f s", seconds);
  } else if (seconds >= 0.01 || seconds <= -0.01) {
    std::snprintf(buffer, sizeof(buffer), "%.2f s", seconds);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.3f s", seconds);
  }
  return buffer;
}

std::string FormatBytes(uint64_t bytes) {
  char buffer[64];
  if (bytes < 1024) {
    std::snprintf(buffer, sizeof(buffer), "%llu bytes", static_cast<unsigned long long>(bytes));
  } else if (bytes < 1024 * 1024) {
    std::snprintf(buffer, sizeof(buffer), "%.1f KiB", bytes / 1024.0);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.1f MiB", bytes / (1024.0 * 1024.0));
  }
  return buffer;
}

std::string FormatIncarnation(uint64_t incarnation) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "0x%016llx", static_cast<unsigned long long>(incarnation));
  return buffer;
}

std::string Quote(std::string_view text) {
  constexpr size_t kShown = 80;
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < kShown; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\') {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '\'';
  if (text.size() > kShown) {
    out += "... (" + std::to_string(text.size()) + " bytes)";
  }
  return out;
}

std::string FormatNodeList(const std::vector<int>& nodes) {
  std::string out = nodes.size() == 1 ? "node " : "nodes ";
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(nodes[i]);
  }
  return out;
}

int64_t ToMillisCeil(Duration duration) {
  if (duration <= Duration::zero()) return 0;
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(duration).count();
  return ms < 0 ? INT64_MAX / 1000 : ms;
}

}  // namespace berth::distributed
