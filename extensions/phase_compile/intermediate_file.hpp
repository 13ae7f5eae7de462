// The file form of a phased compile's intermediate (docs/phase-compile.md): a
// phase's output with the plugin, platform and version that made it, the
// phase, the output's format and a SHA-256 fingerprint of the output, on one
// JSON line in front of it:
//
//   // berth-intermediate {"format":"stablehlo-partitioned",...}\n<text>   (text outputs: still MLIR)
//   BERTH-INTERMEDIATE {"format":"cpu-plan",...}\n<bytes>                  (binary outputs)
//
// A host refuses a file of another plugin or version, or whose bytes do not
// match their fingerprint, before the plugin sees them.
#ifndef BERTH_EXTENSIONS_PHASE_COMPILE_INTERMEDIATE_FILE_HPP_
#define BERTH_EXTENSIONS_PHASE_COMPILE_INTERMEDIATE_FILE_HPP_

#include <cstdint>
#include <string>
#include <string_view>

#include "berth/status.hpp"

namespace berth::ext::phase_compile {

inline constexpr std::string_view kTextIntermediatePrefix = "// berth-intermediate ";
inline constexpr std::string_view kBinaryIntermediatePrefix = "BERTH-INTERMEDIATE ";
// The longest header line Decode reads.
inline constexpr size_t kMaxIntermediateHeaderSize = 64 * 1024;

struct IntermediateHeader {
  std::string plugin;            // manifest name, e.g. "cpu"
  std::string platform;          // e.g. "cpu"
  std::string platform_version;  // the compiler's version: intermediates do not cross versions
  std::string phase;             // the phase that wrote it, e.g. "partition"
  std::string format;            // its output format, e.g. "stablehlo-partitioned"
  bool text = false;             // the output is text (the text prefix)
  // Devices the program runs on, when the writer knew it (a tool that read
  // its source); 0: unknown. Tools size their client with it.
  int64_t num_devices = 0;
  // SHA-256 hex of the other fields (as written) and the payload; set by Encode.
  std::string fingerprint;
  bool operator==(const IntermediateHeader&) const = default;
};

struct IntermediateFile {
  IntermediateHeader header;
  std::string payload;
};

// `header.fingerprint` is computed. Strings that are not UTF-8 are written with
// U+FFFD in their place.
std::string EncodeIntermediate(IntermediateHeader header, std::string_view payload);

// Splits and checks a file; errors name `source_name`. INVALID_ARGUMENT for
// bytes that are not an intermediate or break its header; DATA_LOSS when the
// payload or a header field does not match the fingerprint (truncated, altered).
Result<IntermediateFile> DecodeIntermediate(std::string_view bytes, std::string_view source_name);

// Whether `bytes` start like an intermediate (either prefix); checks nothing else.
bool LooksLikeIntermediate(std::string_view bytes);

}  // namespace berth::ext::phase_compile

#endif  // BERTH_EXTENSIONS_PHASE_COMPILE_INTERMEDIATE_FILE_HPP_
