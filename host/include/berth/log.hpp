// Host logging: levels and categories set by BERTH_LOG, and a sink an
// application (or a test) may install to capture lines.
#ifndef BERTH_LOG_HPP_
#define BERTH_LOG_HPP_

#include <functional>
#include <string>
#include <string_view>

#include "berth/api.hpp"

namespace berth {

enum class LogLevel : int { kError = 0, kWarning = 1, kInfo = 2, kDebug = 3 };

BERTH_API std::string_view LogLevelName(LogLevel level);

// Receives every line that passes the level filter.
using LogSink = std::function<void(LogLevel level, std::string_view category,
                                   std::string_view message)>;

// Replaces the sink (default: "berth: <level>: [<category>] <message>" on
// stderr). An empty function restores the default. Returns the previous sink.
BERTH_API LogSink SetLogSink(LogSink sink);

// Configures levels from a BERTH_LOG-style spec: "LEVEL" or
// "LEVEL,category=LEVEL,...", e.g. "warn,loader=debug". Unknown words are
// reported through the log itself and ignored.
BERTH_API void ConfigureLogging(std::string_view spec);

// Whether a line of this level in this category would be written.
BERTH_API bool LogEnabled(LogLevel level, std::string_view category);

// Writes one line when enabled. Thread-safe.
BERTH_API void Log(LogLevel level, std::string_view category, std::string_view message);

}  // namespace berth

#endif  // BERTH_LOG_HPP_
