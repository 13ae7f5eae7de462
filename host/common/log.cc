#include "berth/log.hpp"

#include <cstdio>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "common/env.hpp"

namespace berth {
namespace {

struct LogState {
  std::shared_mutex mutex;
  LogLevel default_level = LogLevel::kWarning;
  std::map<std::string, LogLevel, std::less<>> category_levels;
  LogSink sink;
  bool configured = false;
};

LogState& State() {
  static LogState* state = new LogState();  // never destroyed: usable at exit
  return *state;
}

bool ParseLevel(std::string_view word, LogLevel* level) {
  if (word == "error") *level = LogLevel::kError;
  else if (word == "warn" || word == "warning") *level = LogLevel::kWarning;
  else if (word == "info") *level = LogLevel::kInfo;
  else if (word == "debug") *level = LogLevel::kDebug;
  else return false;
  return true;
}

void DefaultSink(LogLevel level, std::string_view category, std::string_view message) {
  std::string line = "berth: ";
  line += LogLevelName(level);
  line += ": [";
  line += category;
  line += "] ";
  line += message;
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stderr);
}

// Reads BERTH_LOG once, the first time anything is logged. The flag is set
// before reading, so a line logged while reading the variable cannot recurse.
void EnsureConfigured() {
  LogState& state = State();
  {
    std::shared_lock lock(state.mutex);
    if (state.configured) return;
  }
  {
    std::unique_lock lock(state.mutex);
    if (state.configured) return;
    state.configured = true;
  }
  if (std::optional<std::string> spec = common::GetEnv("BERTH_LOG")) ConfigureLogging(*spec);
}

}  // namespace

std::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return "error";
    case LogLevel::kWarning: return "warn";
    case LogLevel::kInfo: return "info";
    case LogLevel::kDebug: return "debug";
  }
  return "unknown";
}

LogSink SetLogSink(LogSink sink) {
  LogState& state = State();
  std::unique_lock lock(state.mutex);
  LogSink previous = std::move(state.sink);
  state.sink = std::move(sink);
  return previous;
}

void ConfigureLogging(std::string_view spec) {
  LogState& state = State();
  std::string bad;
  {
    std::unique_lock lock(state.mutex);
    state.configured = true;
    state.category_levels.clear();
    size_t start = 0;
    while (start <= spec.size()) {
      size_t end = spec.find(',', start);
      if (end == std::string_view::npos) end = spec.size();
      std::string_view item = spec.substr(start, end - start);
      start = end + 1;
      if (item.empty()) continue;
      LogLevel level;
      size_t eq = item.find('=');
      if (eq == std::string_view::npos) {
        if (ParseLevel(item, &level)) state.default_level = level;
        else bad += (bad.empty() ? "" : ", ") + std::string(item);
      } else if (ParseLevel(item.substr(eq + 1), &level) && eq > 0) {
        state.category_levels[std::string(item.substr(0, eq))] = level;
      } else {
        bad += (bad.empty() ? "" : ", ") + std::string(item);
      }
    }
  }
  if (!bad.empty()) {
    Log(LogLevel::kWarning, "log",
        "BERTH_LOG: ignoring '" + bad +
            "'; expected error|warn|info|debug or category=LEVEL");
  }
}

bool LogEnabled(LogLevel level, std::string_view category) {
  EnsureConfigured();
  LogState& state = State();
  std::shared_lock lock(state.mutex);
  auto it = state.category_levels.find(category);
  LogLevel limit = it != state.category_levels.end() ? it->second : state.default_level;
  return static_cast<int>(level) <= static_cast<int>(limit);
}

void Log(LogLevel level, std::string_view category, std::string_view message) {
  if (!LogEnabled(level, category)) return;
  LogSink sink;
  {
    std::shared_lock lock(State().mutex);
    sink = State().sink;
  }
  if (sink) sink(level, category, message);
  else DefaultSink(level, category, message);
}

}  // namespace berth
