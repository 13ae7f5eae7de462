#include "manifest/manifest.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "berth/extension_chain.hpp"
#include "berth/log.hpp"

namespace berth::core {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr std::string_view kLogCategory = "manifest";
constexpr size_t kMaxQuotedBytes = 64;

constexpr std::array<std::string_view, 1> kTopLevelRequired = {"file_format_version"};
constexpr std::array<std::string_view, 4> kPluginRequired = {"name", "library_path",
                                                             "api_version", "platform"};
constexpr std::array<std::string_view, 5> kExtensionRequired = {
    "name", "type", "library_path", "api_version", "applies_to"};

// Fields this host understands; anything else is ignored (and logged at debug).
constexpr std::array<std::string_view, 4> kTopLevelKnown = {"file_format_version", "plugin",
                                                            "extension", "$schema"};
constexpr std::array<std::string_view, 8> kPluginKnown = {
    "name",     "library_path", "api_version",    "platform",
    "priority", "description",  "create_options", "sha256"};

bool Contains(std::span<const std::string_view> list, std::string_view word) {
  for (std::string_view item : list) {
    if (item == word) return true;
  }
  return false;
}

// ------------------------------------------------------------ message pieces

// Replaces control characters so a file name cannot break a log line.
std::string Printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u == 0x7f) ? '?' : c;
  }
  return out;
}

// A string value quoted for a message: escaped, and cut after kMaxQuotedBytes
// (on a UTF-8 character boundary) so a huge value cannot flood the log.
std::string Quote(std::string_view value) {
  bool cut = false;
  if (value.size() > kMaxQuotedBytes) {
    size_t end = kMaxQuotedBytes;
    while (end > 0 && (static_cast<unsigned char>(value[end]) & 0xC0) == 0x80) --end;
    value = value.substr(0, end);
    cut = true;
  }
  std::string out = "\"";
  for (char c : value) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    } else {
      out += c;
    }
  }
  out += cut ? "...\"" : "\"";
  return out;
}

// "a string", "an integer", ... for "must be X, not Y" messages.
std::string_view TypeName(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number with a fraction or exponent";
    default: return "an unsupported value";
  }
}

struct LineColumn {
  size_t line = 1;
  size_t column = 1;
};

// Line and column (both from 1, column in bytes) of the byte at `offset`.
LineColumn Locate(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  LineColumn where;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++where.line;
      line_start = i + 1;
    }
  }
  where.column = offset - line_start + 1;
  return where;
}

std::string AtLineColumn(std::string_view text, size_t offset) {
  LineColumn where = Locate(text, offset);
  return "line " + std::to_string(where.line) + ", column " + std::to_string(where.column);
}

// ------------------------------------------------------------- byte checks

bool IsJsonBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// True when the text holds nothing but JSON whitespace (after an optional BOM).
bool IsBlank(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  for (char c : text) {
    if (!IsJsonBlank(c)) return false;
  }
  return true;
}

// Offset of the first byte that does not start a well-formed UTF-8 sequence
// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), or npos.
size_t FindInvalidUtf8(std::string_view text) {
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t length = 0;
    unsigned char low = 0x80;   // allowed range of the second byte
    unsigned char high = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c == 0xE0) {
      length = 3;
      low = 0xA0;  // below is overlong
    } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
      length = 3;
    } else if (c == 0xED) {
      length = 3;
      high = 0x9F;  // above are UTF-16 surrogates
    } else if (c == 0xF0) {
      length = 4;
      low = 0x90;  // below is overlong
    } else if (c >= 0xF1 && c <= 0xF3) {
      length = 4;
    } else if (c == 0xF4) {
      length = 4;
      high = 0x8F;  // above is past U+10FFFF
    } else {
      return i;  // continuation byte, C0/C1, or F5..FF
    }
    if (n - i < length) return i;
    unsigned char second = static_cast<unsigned char>(text[i + 1]);
    if (second < low || second > high) return i;
    for (size_t k = 2; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

// ---------------------------------------------------------------- parsing

// Builds the document from SAX events. nlohmann's SAX parser keeps its own
// state on the heap, so with the depth limit enforced here neither parsing
// nor destroying the result can exhaust the stack, whatever the input. Also
// rejects duplicate keys, which nlohmann would silently resolve.
class BoundedDomBuilder final : public json::json_sax_t {
 public:
  enum class Stop { kNone, kTooDeep, kDuplicateKey, kSyntax };

  bool null() override { return Add(json(nullptr)); }
  bool boolean(bool value) override { return Add(json(value)); }
  bool number_integer(number_integer_t value) override { return Add(json(value)); }
  bool number_unsigned(number_unsigned_t value) override { return Add(json(value)); }
  bool number_float(number_float_t value, const string_t& /*text*/) override {
    return Add(json(value));
  }
  bool string(string_t& value) override { return Add(json(std::move(value))); }
  bool binary(binary_t& value) override { return Add(json::binary(std::move(value))); }

  bool start_object(std::size_t /*elements*/) override { return Open(json::object()); }
  bool key(string_t& name) override {
    Frame& top = stack_.back();
    auto& members = top.node->get_ref<json::object_t&>();
    auto [it, inserted] = members.try_emplace(std::move(name));
    if (!inserted) {
      stop_ = Stop::kDuplicateKey;
      detail_ = "the key " + Quote(it->first) + " appears twice in " + ObjectPath();
      return false;
    }
    top.slot = &it->second;
    return true;
  }
  bool end_object() override {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t /*elements*/) override { return Open(json::array()); }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }

  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::json::exception& error) override {
    stop_ = Stop::kSyntax;
    // nlohmann counts the bytes it has read, from 1: the last one is where it
    // noticed the error (one past the end for a truncated text).
    error_offset_ = position > 0 ? position - 1 : 0;
    detail_ = ErrorDetail(error.what());
    return false;
  }

  json& root() { return root_; }
  Stop stop() const { return stop_; }
  // 0-based offset of the byte where parsing failed.
  size_t error_offset() const { return error_offset_; }
  const std::string& detail() const { return detail_; }

 private:
  struct Frame {
    json* node;
    json* slot = nullptr;  // for objects: the member whose value comes next
  };

  // Places a value where the document currently is; returns where it lives.
  // Only the innermost container grows, so pointers on the stack stay valid.
  json* Insert(json&& value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Frame& top = stack_.back();
    if (top.node->is_array()) {
      top.node->push_back(std::move(value));
      return &top.node->back();
    }
    *top.slot = std::move(value);
    return top.slot;
  }

  bool Add(json&& value) {
    Insert(std::move(value));
    return true;
  }

  bool Open(json&& container) {
    if (stack_.size() >= static_cast<size_t>(kMaxJsonDepth)) {
      stop_ = Stop::kTooDeep;
      return false;
    }
    json* node = Insert(std::move(container));
    stack_.push_back(Frame{node});
    return true;
  }

  // Where the innermost object is, e.g. "the top-level object" or "\"plugin\"".
  std::string ObjectPath() const {
    std::string path;
    for (size_t i = 0; i + 1 < stack_.size(); ++i) {
      if (stack_[i].node->is_array()) {
        path += "[]";
        continue;
      }
      // The member holding the next frame's container is this frame's slot.
      for (const auto& [member, value] : stack_[i].node->get_ref<const json::object_t&>()) {
        if (&value == stack_[i].slot) {
          if (!path.empty()) path += '.';
          path += member;
          break;
        }
      }
    }
    return path.empty() ? "the top-level object" : Quote(path);
  }

  // nlohmann's what() is "[json.exception.parse_error.101] parse error at
  // line 1, column 2: syntax error ..."; keep the part after the position,
  // which is given separately in our own terms.
  static std::string ErrorDetail(std::string_view what) {
    if (what.starts_with("[")) {
      size_t close = what.find("] ");
      if (close != std::string_view::npos) what.remove_prefix(close + 2);
    }
    if (what.starts_with("parse error")) {
      size_t colon = what.find(": ");
      if (colon != std::string_view::npos) what.remove_prefix(colon + 2);
    }
    return Printable(what.substr(0, 200));
  }

  json root_;
  std::vector<Frame> stack_;
  Stop stop_ = Stop::kNone;
  size_t error_offset_ = 0;
  std::string detail_;
};

// Parses "MAJOR.MINOR" or "MAJOR.MINOR.PATCH": each part 0 or a number without
// a leading zero, at most 9 digits (so it fits an int).
bool ParseVersion(std::string_view text, size_t parts, int* out) {
  for (size_t i = 0; i < parts; ++i) {
    bool last = i + 1 == parts;
    size_t end = last ? text.size() : text.find('.');
    if (end == std::string_view::npos) return false;
    std::string_view part = text.substr(0, end);
    if (part.empty() || part.size() > 9) return false;
    if (part.size() > 1 && part[0] == '0') return false;
    for (char c : part) {
      if (c < '0' || c > '9') return false;
    }
    std::from_chars(part.data(), part.data() + part.size(), out[i]);
    text.remove_prefix(last ? end : end + 1);
  }
  return true;
}

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '.' || c == '-';
}

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// An integer value as int64, accepting (like JSON Schema's "integer") a float
// with no fractional part. Returns false for fractions and out-of-range values.
bool AsInt64(const json& value, int64_t* out) {
  if (value.is_number_integer() && !value.is_number_unsigned()) {
    *out = value.get<int64_t>();
    return true;
  }
  if (value.is_number_unsigned()) {
    uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
    *out = static_cast<int64_t>(u);
    return true;
  }
  if (value.is_number_float()) {
    double d = value.get<double>();
    // Integer literals outside int64 reach us as doubles too (nlohmann turns
    // -9223372036854775809 into -2^63), so the bounds are open at both ends:
    // every integral double strictly between -2^63 and 2^63 fits. Only the
    // float spelling of INT64_MIN ("-9223372036854775808.0") is lost.
    if (std::trunc(d) != d || d <= -9223372036854775808.0 || d >= 9223372036854775808.0) {
      return false;
    }
    *out = static_cast<int64_t>(d);
    return true;
  }
  return false;
}

// Checks the parsed document; on the first problem records the reason and a
// sentence "manifest FILE: <problem>; <fix>. Skipped." and returns false.
class Checker {
 public:
  Checker(const fs::path& path, ManifestParseResult* result)
      : path_(path), result_(result) {}

  bool Fail(std::string_view reason, std::string_view text) {
    result_->manifest.reset();
    result_->error.reason = std::string(reason);
    result_->error.message = "manifest " + File() + ": " + std::string(text) + ". Skipped.";
    return false;
  }

  // Checks `root`; on success moves the "plugin"/"extension" object into m->raw.
  bool Check(json& root, Manifest* m) {
    if (!root.is_object()) {
      return Fail(reason::kNotAnObject,
                  "the top level is " + std::string(TypeName(root)) +
                      "; a manifest is one JSON object such as "
                      "{\"file_format_version\": \"1.0.0\", \"plugin\": {...}}");
    }
    if (!CheckFormatVersion(root, m)) return false;

    auto plugin = root.find("plugin");
    auto extension = root.find("extension");
    if (plugin != root.end() && extension != root.end()) {
      return Fail(reason::kAmbiguousKind,
                  "both \"plugin\" and \"extension\" are present; a manifest describes one "
                  "library, so keep one of them and move the other into its own file");
    }
    if (plugin == root.end() && extension == root.end()) {
      return Fail(reason::kMissingField,
                  "neither \"plugin\" nor \"extension\" is present; add a \"plugin\" object for "
                  "a backend or an \"extension\" object for an extension module");
    }
    m->kind = plugin != root.end() ? ManifestKind::kPlugin : ManifestKind::kExtension;
    result_->kind = m->kind;
    kind_ = ManifestKindName(m->kind);
    json& body = plugin != root.end() ? *plugin : *extension;
    if (!body.is_object()) {
      return Fail(reason::kWrongType, Quoted(kind_) + " must be an object, not " +
                                          std::string(TypeName(body)) + "; write it as " +
                                          Quoted(kind_) + ": {\"name\": ..., ...}");
    }
    LogUnknownFields(root, kTopLevelKnown, "the top level");
    if (!CheckBody(body, m)) return false;
    m->raw = std::move(body);
    return true;
  }

 private:
  // The file as named in messages (only built when a message is).
  std::string File() const { return Printable(path_.native()); }

  static std::string Quoted(std::string_view key) { return "\"" + std::string(key) + "\""; }

  // `"key" in "plugin"`.
  std::string Field(std::string_view key) const { return Quoted(key) + " in " + Quoted(kind_); }

  // What a field is for and an example value, for "add ..." and "write ..." fixes.
  std::string Purpose(std::string_view key) const {
    if (key == "file_format_version") return "the manifest format version";
    if (key == "name") return "a name made of letters, digits, '_', '.' and '-'";
    if (key == "library_path") return "the path of the " + std::string(kind_) + "'s shared library";
    if (key == "api_version") return "the Berth C API version the library was built against";
    if (key == "platform") return "the platform the plugin drives";
    if (key == "type") return "the extension type";
    if (key == "applies_to") return "the platforms (globs) the extension attaches to";
    return "the field";
  }
  static std::string_view Example(std::string_view key) {
    if (key == "file_format_version") return "\"1.0.0\"";
    if (key == "name") return "\"cpu\"";
    if (key == "library_path") return "\"./libberth_cpu.so\" (a library beside the manifest)";
    if (key == "api_version") return "\"1.2\"";
    if (key == "platform") return "\"cpu\"";
    if (key == "type") return "\"ffi\"";
    if (key == "applies_to") return "[\"cpu\", \"cuda*\"]";
    if (key == "priority") return "100";
    if (key == "description") return "\"Reference CPU backend\"";
    if (key == "create_options") return "{\"device_count\": 4}";
    if (key == "sha256") return "\"<64 hex digits of the library's SHA-256>\"";
    return "...";
  }

  bool WrongType(std::string_view key, std::string_view expected, const json& actual) {
    return Fail(reason::kWrongType, Field(key) + " must be " + std::string(expected) + ", not " +
                                        std::string(TypeName(actual)) + "; write it like " +
                                        Quoted(key) + ": " + std::string(Example(key)));
  }

  bool CheckFormatVersion(const json& root, Manifest* m) {
    auto it = root.find("file_format_version");
    if (it == root.end()) {
      return Fail(reason::kMissingField,
                  "\"file_format_version\" is missing; add \"file_format_version\": \"1.0.0\"");
    }
    if (!it->is_string()) {
      return Fail(reason::kWrongType, "\"file_format_version\" must be a string, not " +
                                          std::string(TypeName(*it)) +
                                          "; write it like \"file_format_version\": \"1.0.0\"");
    }
    const std::string& text = it->get_ref<const std::string&>();
    int version[3] = {0, 0, 0};
    if (!ParseVersion(text, 3, version)) {
      return Fail(reason::kInvalidValue,
                  "\"file_format_version\" is " + Quote(text) +
                      ", which is not MAJOR.MINOR.PATCH; write it like \"1.0.0\"");
    }
    if (version[0] != 1) {
      return Fail(reason::kUnsupportedFormat,
                  "\"file_format_version\" is " + Quote(text) + " (major version " +
                      std::to_string(version[0]) +
                      "), but this host reads only major version 1; write the manifest in "
                      "format 1.x.y or use a Berth host that reads format " +
                      std::to_string(version[0]));
    }
    m->file_format_version = text;
    newer_minor_ = version[1] > 0;
    if (newer_minor_ && LogEnabled(LogLevel::kDebug, kLogCategory)) {
      Log(LogLevel::kDebug, kLogCategory,
          "manifest " + File() + ": file format " + Quote(text) +
              " is newer than this host's 1.0; fields it does not know are ignored");
    }
    return true;
  }

  bool CheckBody(const json& body, Manifest* m) {
    if (auto it = body.find("name"); it != body.end() && it->is_string()) {
      result_->name = it->get<std::string>();
    }
    for (std::string_view key : RequiredFields(m->kind)) {
      if (!body.contains(key)) {
        return Fail(reason::kMissingField, Quoted(key) + " is missing from " + Quoted(kind_) +
                                               "; add " + Purpose(key) + ", e.g. " + Quoted(key) +
                                               ": " + std::string(Example(key)));
      }
    }
    if (!CheckName(body, m) || !CheckLibraryPath(body, m) || !CheckApiVersion(body, m)) {
      return false;
    }
    if (m->kind == ManifestKind::kPlugin) {
      if (!CheckNonEmptyString(body, "platform", &m->platform)) return false;
      if (!CheckCreateOptions(body, m)) return false;
    } else {
      if (!CheckNonEmptyString(body, "type", &m->extension_type)) return false;
      m->extension_type_id = ExtensionTypeFromName(m->extension_type);
      if (!CheckAppliesTo(body, m)) return false;
      // An FFI module's bindings: the shape here, the entries when the
      // module is checked or loaded (extensions/extension_module.cc).
      if (auto it = body.find("functions"); it != body.end() && !it->is_array()) {
        return WrongType("functions", "an array", *it);
      }
    }
    if (!CheckPriority(body, m) || !CheckDescription(body, m) || !CheckSha256(body, m)) {
      return false;
    }
    // Extension objects carry type-specific fields, so only plugin objects
    // have a closed list of fields.
    if (m->kind == ManifestKind::kPlugin) LogUnknownFields(body, kPluginKnown, Quoted(kind_));
    return true;
  }

  // A required string field that must not be empty.
  bool CheckNonEmptyString(const json& body, std::string_view key, std::string* out) {
    const json& value = body.at(key);
    if (!value.is_string()) return WrongType(key, "a string", value);
    const std::string& text = value.get_ref<const std::string&>();
    if (text.empty()) {
      return Fail(reason::kInvalidValue, Field(key) + " is empty; write " + Purpose(key) +
                                             ", e.g. " + Quoted(key) + ": " +
                                             std::string(Example(key)));
    }
    *out = text;
    return true;
  }

  bool CheckName(const json& body, Manifest* m) {
    if (!CheckNonEmptyString(body, "name", &m->name)) return false;
    for (size_t i = 0; i < m->name.size(); ++i) {
      if (!IsNameChar(m->name[i])) {
        std::string bad = Quote(m->name.substr(i, 1));
        if (static_cast<unsigned char>(m->name[i]) >= 0x80) bad = "a non-ASCII character";
        return Fail(reason::kInvalidValue,
                    Field("name") + " is " + Quote(m->name) + ", which contains " + bad +
                        " at offset " + std::to_string(i) +
                        "; use only letters, digits, '_', '.' and '-'");
      }
    }
    return true;
  }

  bool CheckLibraryPath(const json& body, Manifest* m) {
    if (!CheckNonEmptyString(body, "library_path", &m->library_path)) return false;
    const std::string& text = m->library_path;
    if (text.find('\0') != std::string::npos) {
      return Fail(reason::kInvalidValue, Field("library_path") +
                                             " contains a NUL character; write the file's path");
    }
    if (text.back() == '/') {
      return Fail(reason::kInvalidValue,
                  Field("library_path") + " is " + Quote(text) +
                      ", which names a folder; write the path of the shared library file");
    }
    fs::path written(text);
    if (written.is_absolute()) {
      m->library = written;
    } else if (text.find('/') != std::string::npos) {
      // Relative to the manifest's folder, made absolute now so that a later
      // change of working directory does not move the library.
      std::error_code ec;
      fs::path folder = path_.parent_path();
      fs::path base = folder.empty() ? fs::current_path(ec) : fs::absolute(folder, ec);
      if (ec) base = folder;
      m->library = (base / written).lexically_normal();
    } else {
      m->library = written;
      m->library_is_bare_name = true;
    }
    return true;
  }

  bool CheckApiVersion(const json& body, Manifest* m) {
    std::string text;
    if (!CheckNonEmptyString(body, "api_version", &text)) return false;
    int version[2] = {0, 0};
    if (!ParseVersion(text, 2, version)) {
      return Fail(reason::kInvalidValue,
                  Field("api_version") + " is " + Quote(text) +
                      ", which is not MAJOR.MINOR with non-negative integers; write it like "
                      "\"api_version\": \"1.0\"");
    }
    m->api_major = version[0];
    m->api_minor = version[1];
    return true;
  }

  bool CheckPriority(const json& body, Manifest* m) {
    auto it = body.find("priority");
    if (it == body.end()) return true;
    if (!it->is_number()) return WrongType("priority", "an integer", *it);
    if (!AsInt64(*it, &m->priority)) {
      return Fail(reason::kInvalidValue,
                  Field("priority") + " is " + it->dump() +
                      ", which is not a 64-bit integer; write a whole number such as 100");
    }
    return true;
  }

  bool CheckDescription(const json& body, Manifest* m) {
    auto it = body.find("description");
    if (it == body.end()) return true;
    if (!it->is_string()) return WrongType("description", "a string", *it);
    m->description = it->get<std::string>();
    return true;
  }

  bool CheckSha256(const json& body, Manifest* m) {
    auto it = body.find("sha256");
    if (it == body.end()) return true;
    if (!it->is_string()) return WrongType("sha256", "a string", *it);
    std::string digest = it->get<std::string>();
    bool hex = digest.size() == 64;
    for (size_t i = 0; hex && i < digest.size(); ++i) hex = IsHexDigit(digest[i]);
    if (!hex) {
      return Fail(reason::kInvalidValue,
                  Field("sha256") + " is " + Quote(digest) + " (" +
                      std::to_string(digest.size()) +
                      " characters), which is not 64 hex digits; write the library's SHA-256 "
                      "as printed by `sha256sum`, or remove the field");
    }
    for (char& c : digest) {
      if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
    }
    m->sha256 = std::move(digest);
    return true;
  }

  // The options, typed as the C ABI carries them (BERTH_NamedValue).
  bool CheckCreateOptions(const json& body, Manifest* m) {
    auto it = body.find("create_options");
    if (it == body.end()) return true;
    if (!it->is_object()) return WrongType("create_options", "an object", *it);
    NamedValueMap options;
    for (const auto& [name, value] : it->items()) {
      std::string where = Quoted("create_options." + Printable(name)) + " in " + Quoted(kind_);
      if (name.empty()) {
        return Fail(reason::kInvalidValue,
                    "\"create_options\" in " + Quoted(kind_) +
                        " has an option with an empty name; give every option a name");
      }
      if (value.is_string()) {
        options[name] = value.get<std::string>();
        continue;
      }
      if (value.is_boolean()) {
        options[name] = value.get<bool>();
        continue;
      }
      if (value.is_number_float()) {
        options[name] = value.get<double>();
        continue;
      }
      int64_t integer = 0;
      if (value.is_number_integer()) {
        if (!AsInt64(value, &integer)) {
          return Fail(reason::kInvalidValue,
                      where + " is " + value.dump() +
                          ", which does not fit a 64-bit signed integer; use a smaller value");
        }
        options[name] = integer;
        continue;
      }
      if (value.is_array()) {
        std::vector<int64_t> integers;
        for (size_t i = 0; i < value.size(); ++i) {
          if (!value[i].is_number() || !AsInt64(value[i], &integer)) {
            return Fail(reason::kInvalidValue,
                        where + " is an array whose element " + std::to_string(i) + " is " +
                            std::string(TypeName(value[i])) +
                            (value[i].is_number() ? " outside the 64-bit range" : "") +
                            "; array options may hold only integers");
          }
          integers.push_back(integer);
        }
        options[name] = std::move(integers);
        continue;
      }
      return Fail(reason::kInvalidValue,
                  where + " is " + std::string(TypeName(value)) +
                      "; option values must be strings, integers, floats, booleans or arrays "
                      "of integers");
    }
    m->create_options = std::move(options);
    return true;
  }

  bool CheckAppliesTo(const json& body, Manifest* m) {
    const json& value = body.at("applies_to");
    if (!value.is_array()) return WrongType("applies_to", "an array of strings", value);
    if (value.empty()) {
      return Fail(reason::kInvalidValue,
                  Field("applies_to") + " is empty, so the extension would attach to nothing; "
                                        "list platform globs such as [\"cpu\", \"cuda*\"]");
    }
    for (size_t i = 0; i < value.size(); ++i) {
      const json& item = value[i];
      if (!item.is_string() || item.get_ref<const std::string&>().empty()) {
        return Fail(reason::kInvalidValue,
                    Field("applies_to") + " element " + std::to_string(i) + " is " +
                        (item.is_string() ? std::string("an empty string")
                                          : std::string(TypeName(item))) +
                        "; every element must be a non-empty platform glob such as \"cuda*\"");
      }
      m->applies_to.push_back(item.get<std::string>());
    }
    return true;
  }

  void LogUnknownFields(const json& object, std::span<const std::string_view> known,
                        std::string_view where) {
    if (!LogEnabled(LogLevel::kDebug, kLogCategory)) return;
    for (const auto& [key, value] : object.items()) {
      if (Contains(known, key)) continue;
      Log(LogLevel::kDebug, kLogCategory,
          "manifest " + File() + ": unknown field " + Quote(key) + " in " + std::string(where) +
              " ignored" +
              (newer_minor_ ? " (the file uses a newer format minor version)"
                            : "; check its spelling"));
    }
  }

  const fs::path& path_;
  ManifestParseResult* result_;
  std::string_view kind_ = "plugin";
  bool newer_minor_ = false;
};

// Everything before field checks: size, blanks, encoding, syntax, depth.
bool ParseDocument(std::string_view text, Checker* checker, json* root) {
  if (text.size() > kMaxManifestBytes) {
    return checker->Fail(reason::kTooLarge,
                         "the text is " + std::to_string(text.size()) + " bytes, over the " +
                             std::to_string(kMaxManifestBytes) +
                             "-byte limit for manifests; check that this is the intended file");
  }
  if (IsBlank(text)) {
    return checker->Fail(reason::kEmpty,
                         text.empty() ? "the file is empty; write the manifest's JSON into it"
                                      : "the file holds only blanks; write the manifest's JSON "
                                        "into it");
  }
  if (size_t bad = FindInvalidUtf8(text); bad != std::string_view::npos) {
    return checker->Fail(reason::kInvalidUtf8,
                         "the byte at offset " + std::to_string(bad) + " (" +
                             AtLineColumn(text, bad) +
                             ") is not valid UTF-8; save the file as UTF-8");
  }
  BoundedDomBuilder builder;
  bool ok = json::sax_parse(text.data(), text.data() + text.size(), &builder);
  if (!ok || builder.stop() != BoundedDomBuilder::Stop::kNone) {
    switch (builder.stop()) {
      case BoundedDomBuilder::Stop::kTooDeep:
        return checker->Fail(reason::kTooDeep,
                             "arrays and objects are nested deeper than " +
                                 std::to_string(kMaxJsonDepth) +
                                 " levels; a manifest needs only a few, so flatten it");
      case BoundedDomBuilder::Stop::kDuplicateKey:
        return checker->Fail(reason::kInvalidJson,
                             builder.detail() + "; remove one of them");
      default: {
        size_t offset = builder.error_offset();
        return checker->Fail(reason::kInvalidJson,
                             "invalid JSON at " + AtLineColumn(text, offset) + ": " +
                                 builder.detail() +
                                 "; fix the syntax (a truncated file or a missing comma, "
                                 "quote or bracket)");
      }
    }
  }
  *root = std::move(builder.root());
  return true;
}

std::string ErrnoText(int error) { return std::strerror(error); }

}  // namespace

std::string_view ManifestKindName(ManifestKind kind) {
  return kind == ManifestKind::kExtension ? "extension" : "plugin";
}

std::span<const std::string_view> RequiredTopLevelFields() { return kTopLevelRequired; }

std::span<const std::string_view> RequiredFields(ManifestKind kind) {
  if (kind == ManifestKind::kExtension) return kExtensionRequired;
  return kPluginRequired;
}

ManifestParseResult ParseManifest(const std::filesystem::path& path, std::string_view text) {
  ManifestParseResult result;
  Checker checker(path, &result);
  try {
    json root;
    if (!ParseDocument(text, &checker, &root)) return result;
    Manifest manifest;
    manifest.path = path;
    if (!checker.Check(root, &manifest)) return result;
    result.name = manifest.name;
    result.kind = manifest.kind;
    result.manifest = std::move(manifest);
  } catch (const std::exception& e) {
    // Not expected (the checks above avoid throwing calls); bad_alloc is possible.
    checker.Fail(reason::kInvalidJson,
                 std::string("could not be read as a manifest (") + e.what() +
                     "); check the file");
  } catch (...) {
    checker.Fail(reason::kInvalidJson, "could not be read as a manifest; check the file");
  }
  return result;
}

ManifestParseResult LoadManifestFile(const std::filesystem::path& path) {
  ManifestParseResult result;
  Checker checker(path, &result);
  // O_NONBLOCK: opening a FIFO named *.json must not hang discovery.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    int error = errno;
    checker.Fail(reason::kUnreadable,
                 "cannot be opened (" + ErrnoText(error) + "); " +
                     (error == EACCES ? "make it readable by this user"
                                      : "check that the file exists and is readable"));
    return result;
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    int error = errno;
    ::close(fd);
    checker.Fail(reason::kUnreadable, "cannot be examined (" + ErrnoText(error) +
                                          "); check the file system");
    return result;
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    checker.Fail(reason::kNotAFile,
                 std::string(S_ISDIR(info.st_mode) ? "is a folder" : "is not a regular file") +
                     ", not a manifest file; remove it or rename it so its name does not end "
                     "in .json");
    return result;
  }
  if (static_cast<uint64_t>(info.st_size) > kMaxManifestBytes) {
    ::close(fd);
    checker.Fail(reason::kTooLarge,
                 "the file is " + std::to_string(info.st_size) + " bytes, over the " +
                     std::to_string(kMaxManifestBytes) +
                     "-byte limit for manifests; check that this is the intended file");
    return result;
  }
  // Read to the end even when st_size is 0 (procfs and the like), but never
  // more than one byte past the limit.
  std::string text;
  text.resize(static_cast<size_t>(info.st_size) + 1);
  size_t used = 0;
  while (true) {
    if (used == text.size()) {
      if (text.size() > kMaxManifestBytes) break;
      text.resize(std::min(text.size() * 2 + 4096, kMaxManifestBytes + 1));
    }
    ssize_t got = ::read(fd, text.data() + used, text.size() - used);
    if (got < 0) {
      if (errno == EINTR) continue;
      int error = errno;
      ::close(fd);
      checker.Fail(reason::kUnreadable,
                   "cannot be read (" + ErrnoText(error) + "); check the file and its disk");
      return result;
    }
    if (got == 0) break;
    used += static_cast<size_t>(got);
  }
  ::close(fd);
  text.resize(used);
  if (text.size() > kMaxManifestBytes) {
    checker.Fail(reason::kTooLarge,
                 "the file is over the " + std::to_string(kMaxManifestBytes) +
                     "-byte limit for manifests; check that this is the intended file");
    return result;
  }
  return ParseManifest(path, text);
}

bool GlobMatch(std::string_view pattern, std::string_view text) {
  // Greedy match with one backtrack point: the last '*' seen. Linear in
  // practice and O(pattern * text) at worst, with no recursion.
  size_t p = 0;
  size_t t = 0;
  size_t star = std::string_view::npos;
  size_t star_text = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_text = t;
    } else if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++star_text;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::string PlatformMismatchMessage(const Manifest& manifest, std::string_view reported) {
  return "plugin '" + manifest.name + "' (" + manifest.path.string() +
         "): the manifest says platform '" + manifest.platform +
         "' but the plugin's client reports '" + std::string(reported) + "'; set \"platform\": \"" +
         std::string(reported) + "\" in the manifest. Skipped.";
}

}  // namespace berth::core
