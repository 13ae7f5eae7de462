// Captures every host log line (all categories at debug) for a scope.
#ifndef BERTH_TESTS_SUPPORT_LOG_CAPTURE_HPP_
#define BERTH_TESTS_SUPPORT_LOG_CAPTURE_HPP_

#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "berth/log.hpp"

namespace berth::testing {

class LogCapture {
 public:
  struct Line {
    LogLevel level;
    std::string category;
    std::string message;
  };

  LogCapture() {
    ConfigureLogging("debug");
    previous_ = SetLogSink([this](LogLevel level, std::string_view category,
                                  std::string_view message) {
      std::lock_guard lock(mutex_);
      lines_.push_back(Line{level, std::string(category), std::string(message)});
    });
  }
  ~LogCapture() {
    SetLogSink(std::move(previous_));
    ConfigureLogging("warn");
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  // Lines at exactly `level` whose message contains `text`.
  int Count(LogLevel level, std::string_view text) const {
    std::lock_guard lock(mutex_);
    int n = 0;
    for (const Line& line : lines_) {
      if (line.level == level && line.message.find(text) != std::string::npos) ++n;
    }
    return n;
  }
  bool Has(LogLevel level, std::string_view text) const { return Count(level, text) > 0; }

  // Whether any line, "[category] message", of any level contains `text`.
  bool Contains(std::string_view text) const {
    std::lock_guard lock(mutex_);
    for (const Line& line : lines_) {
      if (("[" + line.category + "] " + line.message).find(text) != std::string::npos) return true;
    }
    return false;
  }

  // Every line, for failure messages.
  std::string All() const {
    std::lock_guard lock(mutex_);
    std::string out;
    for (const Line& line : lines_) {
      out += std::string(LogLevelName(line.level)) + " [" + line.category + "] " + line.message +
             "\n";
    }
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Line> lines_;
  LogSink previous_;
};

}  // namespace berth::testing

#endif  // BERTH_TESTS_SUPPORT_LOG_CAPTURE_HPP_
