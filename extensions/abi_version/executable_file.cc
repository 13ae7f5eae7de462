#include "abi_version/executable_file.hpp"

#include <array>
#include <exception>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/sha256.hpp"

namespace berth::ext::abi_version {
namespace {

using json = nlohmann::json;

constexpr std::string_view kFormatName = "berth-executable";
constexpr size_t kVersionOffset = 8;
constexpr size_t kHeaderLengthOffset = 12;
constexpr size_t kHeaderDigestOffset = 16;
constexpr size_t kDigestSize = 32;

void AppendU32(std::string* out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint32_t ReadU32(std::string_view bytes, size_t offset) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) {
    value |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[offset + i])) << (8 * i);
  }
  return value;
}

std::array<uint8_t, kDigestSize> Digest(std::string_view bytes) {
  common::Sha256 sha;
  sha.Update(bytes);
  return sha.Finish();
}

json VersionJson(int32_t major, int32_t minor) {
  return json{{"major", major}, {"minor", minor}};
}

bool IsSha256Hex(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// At most 40 bytes of an untrusted string, for a message.
std::string Clip(std::string_view text) {
  return text.size() <= 40 ? std::string(text) : std::string(text.substr(0, 40)) + "...";
}

std::string_view TypeName(const json& value) {
  if (value.is_number_integer()) return "an integer";
  if (value.is_number_float()) return "a fractional number";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_null()) return "null";
  if (value.is_array()) return "an array";
  return "an object";
}

// Builds the errors of one Decode call, each naming the source.
class Checker {
 public:
  explicit Checker(std::string_view source_name) : source_(source_name) {}

  Status Invalid(std::string_view what) const { return InvalidArgumentError(Message(what)); }
  Status Lost(std::string_view what) const { return DataLossError(Message(what)); }

  // A header string field; `non_empty` when an empty value is meaningless.
  Status String(const json& header, const char* field, bool non_empty, std::string* out) const {
    auto it = header.find(field);
    if (it == header.end()) return Missing(field, "a string");
    if (!it->is_string()) return WrongType(field, "a string", *it);
    if (non_empty && it->get_ref<const std::string&>().empty()) {
      return Invalid(std::string("header field \"") + field + "\" is an empty string");
    }
    *out = it->get<std::string>();
    return OkStatus();
  }

  // A header field {"major": M, "minor": N} of non-negative, bounded integers.
  Status Version(const json& header, const char* field, int32_t* major, int32_t* minor) const {
    auto it = header.find(field);
    if (it == header.end()) return Missing(field, "an object {\"major\", \"minor\"}");
    if (!it->is_object()) return WrongType(field, "an object {\"major\", \"minor\"}", *it);
    BERTH_RETURN_IF_ERROR(Component(*it, std::string(field) + ".major", "major", major));
    BERTH_RETURN_IF_ERROR(Component(*it, std::string(field) + ".minor", "minor", minor));
    return OkStatus();
  }

  // A header field holding a byte count.
  Status Size(const json& header, const char* field, uint64_t* out) const {
    auto it = header.find(field);
    if (it == header.end()) return Missing(field, "a non-negative integer");
    if (!it->is_number_integer()) return WrongType(field, "a non-negative integer", *it);
    if (!it->is_number_unsigned()) {
      return Invalid(std::string("header field \"") + field + "\" is negative (" +
                     std::to_string(it->get<int64_t>()) + ")");
    }
    *out = it->get<uint64_t>();
    return OkStatus();
  }

 private:
  std::string Message(std::string_view what) const {
    std::string message = "berth-executable file ";
    message += source_;
    message += ": ";
    message += what;
    return message;
  }

  Status Missing(std::string_view field, std::string_view expected) const {
    return Invalid("header field \"" + std::string(field) + "\" is missing; expected " +
                   std::string(expected));
  }

  Status WrongType(std::string_view field, std::string_view expected, const json& value) const {
    return Invalid("header field \"" + std::string(field) + "\" is " +
                   std::string(TypeName(value)) + "; expected " + std::string(expected));
  }

  Status Component(const json& version, const std::string& where, const char* key,
                   int32_t* out) const {
    std::string range = "an integer 0.." + std::to_string(kExecutableFileMaxVersionComponent);
    auto it = version.find(key);
    if (it == version.end()) return Missing(where, range);
    if (!it->is_number_integer()) return WrongType(where, range, *it);
    if (!it->is_number_unsigned() ||
        it->get<uint64_t>() > static_cast<uint64_t>(kExecutableFileMaxVersionComponent)) {
      std::string value = it->is_number_unsigned() ? std::to_string(it->get<uint64_t>())
                                                   : std::to_string(it->get<int64_t>());
      return Invalid("header field \"" + where + "\" is " + value + "; expected " + range);
    }
    *out = static_cast<int32_t>(it->get<uint64_t>());
    return OkStatus();
  }

  std::string_view source_;
};

}  // namespace

std::string AbiVersionString(AbiVersionNumber version) {
  return std::to_string(version.major) + "." + std::to_string(version.minor);
}

std::string EncodeExecutableFile(ExecutableFileHeader header, std::string_view payload) {
  json object = {
      {"format", kFormatName},
      {"plugin", std::move(header.plugin)},
      {"platform", std::move(header.platform)},
      {"api", VersionJson(header.api_major, header.api_minor)},
      {"runtime", VersionJson(header.runtime.major, header.runtime.minor)},
      {"executable", VersionJson(header.executable.major, header.executable.minor)},
      {"name", std::move(header.name)},
      {"payload_size", static_cast<uint64_t>(payload.size())},
      {"fingerprint", common::Sha256Hex(payload)},
  };
  // Replacing invalid UTF-8 instead of throwing keeps Encode infallible.
  std::string text = object.dump(-1, ' ', false, json::error_handler_t::replace);

  std::string out;
  out.reserve(kExecutableFilePrefixSize + text.size() + payload.size());
  out.append(kExecutableFileMagic);
  AppendU32(&out, kExecutableFileFormatVersion);
  AppendU32(&out, static_cast<uint32_t>(text.size()));
  std::array<uint8_t, kDigestSize> digest = Digest(text);
  out.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  out.append(text);
  out.append(payload);
  return out;
}

bool LooksLikeExecutableFile(std::string_view bytes) {
  return bytes.substr(0, kExecutableFileMagic.size()) == kExecutableFileMagic;
}

Result<ExecutableFile> DecodeExecutableFile(std::string_view bytes, std::string_view source_name) {
  Checker check(source_name);
  if (bytes.empty()) return check.Invalid("the file is empty; not a berth-executable file");
  if (!LooksLikeExecutableFile(bytes)) {
    return check.Invalid("not a berth-executable file (its first bytes are not \"" +
                         std::string(kExecutableFileMagic) + "\")");
  }
  if (bytes.size() < kHeaderDigestOffset) {
    return check.Lost("truncated: the file is " + std::to_string(bytes.size()) +
                      " bytes, shorter than its " + std::to_string(kExecutableFilePrefixSize) +
                      "-byte fixed prefix");
  }
  // The version decides the rest of the layout, so it is checked first.
  uint32_t version = ReadU32(bytes, kVersionOffset);
  if (version != kExecutableFileFormatVersion) {
    return check.Invalid("container format version " + std::to_string(version) +
                         " is not supported; this build reads version " +
                         std::to_string(kExecutableFileFormatVersion));
  }
  if (bytes.size() < kExecutableFilePrefixSize) {
    return check.Lost("truncated: the file is " + std::to_string(bytes.size()) +
                      " bytes, shorter than its " + std::to_string(kExecutableFilePrefixSize) +
                      "-byte fixed prefix");
  }
  uint32_t header_size = ReadU32(bytes, kHeaderLengthOffset);
  if (header_size > kExecutableFileMaxHeaderSize) {
    return check.Invalid("header length " + std::to_string(header_size) + " is over the " +
                         std::to_string(kExecutableFileMaxHeaderSize) + "-byte limit");
  }
  size_t after_prefix = bytes.size() - kExecutableFilePrefixSize;
  if (header_size > after_prefix) {
    return check.Lost("truncated: header length " + std::to_string(header_size) +
                      " is beyond the end of the file (" + std::to_string(after_prefix) +
                      " bytes follow the prefix)");
  }
  std::string_view header_text = bytes.substr(kExecutableFilePrefixSize, header_size);
  std::array<uint8_t, kDigestSize> digest = Digest(header_text);
  if (bytes.substr(kHeaderDigestOffset, kDigestSize) !=
      std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size())) {
    return check.Lost("corrupted: header digest mismatch");
  }

  json header;
  try {
    header = json::parse(header_text.begin(), header_text.end(), nullptr,
                         /*allow_exceptions=*/false);
  } catch (const std::exception& e) {
    return check.Invalid(std::string("the header is not valid JSON: ") + e.what());
  }
  if (header.is_discarded()) return check.Invalid("the header is not valid JSON");
  if (!header.is_object()) {
    return check.Invalid("the header is " + std::string(TypeName(header)) +
                         "; expected a JSON object");
  }

  std::string format;
  BERTH_RETURN_IF_ERROR(check.String(header, "format", /*non_empty=*/true, &format));
  if (format != kFormatName) {
    return check.Invalid("header field \"format\" is \"" + Clip(format) + "\"; expected \"" +
                         std::string(kFormatName) + "\"");
  }
  ExecutableFile file;
  ExecutableFileHeader& h = file.header;
  BERTH_RETURN_IF_ERROR(check.String(header, "plugin", /*non_empty=*/true, &h.plugin));
  BERTH_RETURN_IF_ERROR(check.String(header, "platform", /*non_empty=*/true, &h.platform));
  BERTH_RETURN_IF_ERROR(check.Version(header, "api", &h.api_major, &h.api_minor));
  BERTH_RETURN_IF_ERROR(check.Version(header, "runtime", &h.runtime.major, &h.runtime.minor));
  BERTH_RETURN_IF_ERROR(
      check.Version(header, "executable", &h.executable.major, &h.executable.minor));
  BERTH_RETURN_IF_ERROR(check.String(header, "name", /*non_empty=*/false, &h.name));
  BERTH_RETURN_IF_ERROR(check.String(header, "fingerprint", /*non_empty=*/true, &h.fingerprint));
  if (!IsSha256Hex(h.fingerprint)) {
    return check.Invalid("header field \"fingerprint\" is \"" + Clip(h.fingerprint) +
                         "\"; expected 64 lower-case hex digits (a sha256)");
  }
  uint64_t payload_size = 0;
  BERTH_RETURN_IF_ERROR(check.Size(header, "payload_size", &payload_size));

  size_t found = after_prefix - header_size;
  if (payload_size > found) {
    return check.Lost("truncated: expected " + std::to_string(payload_size) +
                      " payload bytes, found " + std::to_string(found));
  }
  if (payload_size < found) {
    return check.Invalid(std::to_string(found - payload_size) +
                         " trailing bytes after the " + std::to_string(payload_size) +
                         "-byte payload");
  }
  std::string_view payload = bytes.substr(kExecutableFilePrefixSize + header_size);
  if (common::Sha256Hex(payload) != h.fingerprint) {
    return check.Lost("corrupted: payload fingerprint mismatch (the header says " +
                      h.fingerprint + ")");
  }
  file.payload = std::string(payload);
  return file;
}

}  // namespace berth::ext::abi_version
