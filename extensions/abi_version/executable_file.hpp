// The `berth-executable` file container: a plugin's serialized executable
// wrapped with the plugin, platform and versions that made it, so that a host
// can refuse a file clearly before the plugin ever sees its bytes. Byte layout
// and checks: docs/berth-executable.md.
#ifndef BERTH_EXTENSIONS_ABI_VERSION_EXECUTABLE_FILE_HPP_
#define BERTH_EXTENSIONS_ABI_VERSION_EXECUTABLE_FILE_HPP_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "berth/status.hpp"

namespace berth::ext::abi_version {

// The first 8 bytes of every berth-executable file.
inline constexpr std::string_view kExecutableFileMagic = "BERTHEXE";
// The container format version this code writes and the only one it reads.
inline constexpr uint32_t kExecutableFileFormatVersion = 1;
// Magic, format version, header length and header digest.
inline constexpr size_t kExecutableFilePrefixSize = 8 + 4 + 4 + 32;
// The most JSON header bytes Decode accepts.
inline constexpr size_t kExecutableFileMaxHeaderSize = 64 * 1024;
// The largest major or minor version component Decode accepts.
inline constexpr int32_t kExecutableFileMaxVersionComponent = 65535;

// An ABI version such as the BERTH_AbiVersion_Number a plugin reports.
struct AbiVersionNumber {
  int32_t major = 0;
  int32_t minor = 0;
  bool operator==(const AbiVersionNumber&) const = default;
};

// "1.2".
std::string AbiVersionString(AbiVersionNumber version);

// What a berth-executable file says about the payload it carries.
struct ExecutableFileHeader {
  std::string plugin;                    // manifest name of the plugin, e.g. "cpu"
  std::string platform;                  // e.g. "cpu"
  int32_t api_major = 0, api_minor = 0;  // Berth C API negotiated
  AbiVersionNumber runtime;              // runtime ABI version of the serializing client
  AbiVersionNumber executable;           // executable ABI version stamped by the plugin
  std::string name;                      // executable name (informational)
  std::string fingerprint;               // sha256 hex of the payload; filled by Encode
  bool operator==(const ExecutableFileHeader&) const = default;
};

// The bytes of a berth-executable file holding `payload`. `header.fingerprint`
// is ignored and replaced by the payload's digest. Never fails; strings are
// written as UTF-8 with invalid sequences replaced by U+FFFD, and a header
// whose strings together exceed kExecutableFileMaxHeaderSize makes a file that
// Decode rejects.
std::string EncodeExecutableFile(ExecutableFileHeader header, std::string_view payload);

// A decoded file: its header and its payload, both checked.
struct ExecutableFile {
  ExecutableFileHeader header;
  std::string payload;
};

// Checks and splits the bytes of a berth-executable file; `source_name` (a
// path or other label) is named in every error. INVALID_ARGUMENT when the
// bytes are not a berth-executable file of a version this code reads or break
// its format; DATA_LOSS when they are truncated or corrupted. Allocates only
// after the sizes are checked against the input.
Result<ExecutableFile> DecodeExecutableFile(std::string_view bytes, std::string_view source_name);

// Whether `bytes` starts with the berth-executable magic; checks nothing else.
bool LooksLikeExecutableFile(std::string_view bytes);

}  // namespace berth::ext::abi_version

#endif  // BERTH_EXTENSIONS_ABI_VERSION_EXECUTABLE_FILE_HPP_
