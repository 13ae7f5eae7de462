#include "phase_compile/intermediate_file.hpp"

#include <nlohmann/json.hpp>

#include "common/sha256.hpp"

namespace berth::ext::phase_compile {

using json = nlohmann::json;

namespace {

// The header's fields but the fingerprint, as Encode writes them.
json Fields(const IntermediateHeader& header) {
  json fields = {{"plugin", header.plugin}, {"platform", header.platform}, {"platform_version", header.platform_version},
                 {"phase", header.phase},   {"format", header.format},     {"text", header.text}};
  if (header.num_devices > 0) fields["devices"] = header.num_devices;
  return fields;
}

// The most devices a header may name.
constexpr int64_t kMaxDevices = int64_t{1} << 20;

std::string Dump(const json& fields) { return fields.dump(-1, ' ', false, json::error_handler_t::replace); }

// SHA-256 over the other fields and the payload: a changed field is caught
// like a changed byte of the output.
std::string Fingerprint(const IntermediateHeader& header, std::string_view payload) {
  common::Sha256 sha;
  sha.Update(Dump(Fields(header)));
  sha.Update("\n");
  sha.Update(payload);
  return sha.FinishHex();
}

}  // namespace

std::string EncodeIntermediate(IntermediateHeader header, std::string_view payload) {
  header.fingerprint = Fingerprint(header, payload);
  json fields = Fields(header);
  fields["sha256"] = header.fingerprint;
  std::string line(header.text ? kTextIntermediatePrefix : kBinaryIntermediatePrefix);
  line += Dump(fields);
  line += '\n';
  line += payload;
  return line;
}

bool LooksLikeIntermediate(std::string_view bytes) {
  return bytes.starts_with(kTextIntermediatePrefix) || bytes.starts_with(kBinaryIntermediatePrefix);
}

Result<IntermediateFile> DecodeIntermediate(std::string_view bytes, std::string_view source_name) {
  const std::string where(source_name);
  IntermediateFile file;
  if (bytes.starts_with(kTextIntermediatePrefix)) {
    file.header.text = true;
    bytes.remove_prefix(kTextIntermediatePrefix.size());
  } else if (bytes.starts_with(kBinaryIntermediatePrefix)) {
    bytes.remove_prefix(kBinaryIntermediatePrefix.size());
  } else {
    return InvalidArgumentError(where + ": not a compile intermediate (it does not start with '" +
                                std::string(kTextIntermediatePrefix) + "' or '" +
                                std::string(kBinaryIntermediatePrefix) + "')");
  }
  const size_t end = bytes.substr(0, kMaxIntermediateHeaderSize + 1).find('\n');
  if (end == std::string_view::npos) {
    return bytes.size() > kMaxIntermediateHeaderSize
               ? InvalidArgumentError(where + ": the intermediate's header line is longer than " +
                                      std::to_string(kMaxIntermediateHeaderSize) + " bytes")
               : DataLossError(where + ": the intermediate ends inside its header line (truncated)");
  }
  json fields = json::parse(bytes.substr(0, end), nullptr, /*allow_exceptions=*/false);
  if (fields.is_discarded() || !fields.is_object()) {
    return InvalidArgumentError(where + ": the intermediate's header is not a JSON object");
  }
  IntermediateHeader& h = file.header;
  for (auto [name, out] : {std::pair{"plugin", &h.plugin}, std::pair{"platform", &h.platform},
                           std::pair{"platform_version", &h.platform_version}, std::pair{"phase", &h.phase},
                           std::pair{"format", &h.format}, std::pair{"sha256", &h.fingerprint}}) {
    auto it = fields.find(name);
    if (it == fields.end() || !it->is_string()) {
      return InvalidArgumentError(where + ": the intermediate's header has no string \"" + name + "\"");
    }
    *out = it->get<std::string>();
  }
  if (h.plugin.empty() || h.phase.empty() || h.format.empty()) {
    return InvalidArgumentError(where + ": the intermediate's header names no plugin, phase or format");
  }
  auto text = fields.find("text");
  if (text == fields.end() || !text->is_boolean() || text->get<bool>() != h.text) {
    return InvalidArgumentError(where + ": the intermediate's header says \"text\" otherwise than its first line");
  }
  if (auto devices = fields.find("devices"); devices != fields.end()) {
    if (!devices->is_number_integer() || devices->get<int64_t>() < 1 || devices->get<int64_t>() > kMaxDevices) {
      return InvalidArgumentError(where + ": the intermediate's header has a \"devices\" that is not a count");
    }
    h.num_devices = devices->get<int64_t>();
  }
  std::string_view payload = bytes.substr(end + 1);
  if (Fingerprint(h, payload) != h.fingerprint) {
    return DataLossError(where + ": the " + h.format + " intermediate does not match its fingerprint (" +
                         std::to_string(payload.size()) + " bytes; truncated or altered since phase '" + h.phase +
                         "' wrote it)");
  }
  file.payload = std::string(payload);
  return file;
}

}  // namespace berth::ext::phase_compile
