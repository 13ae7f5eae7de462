// Lexing for the parser: blanks and comments, identifiers, strings,
// numbers, balanced skipping, and diagnostics with file:line:column.
#include <algorithm>
#include <cstring>

#include "src/parser_impl.hpp"

namespace berth::stablehlo::detail {

bool IsBareIdStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool IsBareIdChar(char c) {
  return IsBareIdStart(c) || (c >= '0' && c <= '9') || c == '$' || c == '.';
}

namespace {

bool IsSuffixChar(char c) { return IsBareIdChar(c) || c == '-'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool ParseUnsigned(std::string_view digits, bool hex, uint64_t* out) {
  if (digits.empty()) return false;
  uint64_t v = 0;
  if (hex) {
    if (digits.size() > 16) {
      // Leading zeros are fine; more than 64 significant bits are not.
      size_t nz = digits.find_first_not_of('0');
      if (nz == std::string_view::npos) {
        *out = 0;
        return true;
      }
      if (digits.size() - nz > 16) return false;
      digits.remove_prefix(nz);
    }
    for (char c : digits) {
      int h = HexValue(c);
      if (h < 0) return false;
      v = (v << 4) | static_cast<uint64_t>(h);
    }
  } else {
    for (char c : digits) {
      if (!IsDigit(c)) return false;
      uint64_t d = static_cast<uint64_t>(c - '0');
      if (v > (UINT64_MAX - d) / 10) return false;
      v = v * 10 + d;
    }
  }
  *out = v;
  return true;
}

Parser::Parser(std::string_view text, std::string_view filename, const ParseOptions& options)
    : src_(text), first_line_(options.first_line), verify_(options.verify),
      max_depth_(std::clamp(options.max_nesting_depth, 1, kMaxNestingDepth)),
      b_(module_.storage()) {
  module_.storage().filename = std::string(filename);
  line_starts_.push_back(0);
  const char* data = text.data();
  size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const void* nl = std::memchr(data + i, '\n', n - i);
    if (!nl) break;
    i = static_cast<size_t>(static_cast<const char*>(nl) - data) + 1;
    line_starts_.push_back(i);
  }
}

Location Parser::LocationAt(size_t pos) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), pos);
  size_t line_index = static_cast<size_t>(it - line_starts_.begin()) - 1;
  Location loc;
  loc.file = module_.storage().filename;
  loc.line = static_cast<uint32_t>(line_index + static_cast<size_t>(first_line_));
  loc.column = static_cast<uint32_t>(pos - line_starts_[line_index] + 1);
  return loc;
}

Status Parser::ErrorAt(size_t pos, std::string_view message) {
  Location loc = LocationAt(std::min(pos, src_.size()));
  std::string text = loc.ToString();
  text += ": error: ";
  text += message;
  return InvalidArgumentError(std::move(text));
}

Status Parser::Error(std::string_view message) {
  SkipWs();
  return ErrorAt(pos_, message);
}

Status Parser::EnterNesting() {
  if (++depth_ > max_depth_) {
    return Error("nesting is deeper than " + std::to_string(max_depth_) + " levels");
  }
  return OkStatus();
}

void Parser::SkipWs() {
  const char* s = src_.data();
  const size_t n = src_.size();
  while (pos_ < n) {
    char c = s[pos_];
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++pos_;
      continue;
    }
    if (c == '/' && pos_ + 1 < n && s[pos_ + 1] == '/') {
      const void* nl = std::memchr(s + pos_, '\n', n - pos_);
      pos_ = nl ? static_cast<size_t>(static_cast<const char*>(nl) - s) + 1 : n;
      continue;
    }
    break;
  }
}

char Parser::Peek() {
  SkipWs();
  return pos_ < src_.size() ? src_[pos_] : '\0';
}

char Parser::PeekAt(size_t offset) const {
  return pos_ + offset < src_.size() ? src_[pos_ + offset] : '\0';
}

bool Parser::AtEnd() {
  SkipWs();
  return pos_ >= src_.size();
}

bool Parser::TryConsume(char c) {
  if (Peek() != c) return false;
  ++pos_;
  return true;
}

bool Parser::TryConsumeArrow() {
  if (Peek() == '-' && PeekAt(1) == '>') {
    pos_ += 2;
    return true;
  }
  return false;
}

Status Parser::Expect(char c, std::string_view context) {
  if (TryConsume(c)) return OkStatus();
  std::string message = "expected '";
  message += c;
  message += "' ";
  message += context;
  return Error(message);
}

Status Parser::ExpectArrow(std::string_view context) {
  if (TryConsumeArrow()) return OkStatus();
  return Error("expected '->' " + std::string(context));
}

std::string_view Parser::PeekBareId() {
  SkipWs();
  size_t p = pos_;
  if (p >= src_.size() || !IsBareIdStart(src_[p])) return {};
  size_t e = p + 1;
  while (e < src_.size() && IsBareIdChar(src_[e])) ++e;
  return src_.substr(p, e - p);
}

std::string_view Parser::LexBareId() {
  std::string_view id = PeekBareId();
  pos_ += id.size();
  return id;
}

bool Parser::TryKeyword(std::string_view keyword) {
  if (PeekBareId() != keyword) return false;
  pos_ += keyword.size();
  return true;
}

Status Parser::ExpectKeyword(std::string_view keyword, std::string_view context) {
  if (TryKeyword(keyword)) return OkStatus();
  return Error("expected '" + std::string(keyword) + "' " + std::string(context));
}

std::string_view Parser::LexSuffixId() {
  size_t e = pos_;
  while (e < src_.size() && IsSuffixChar(src_[e])) ++e;
  std::string_view id = src_.substr(pos_, e - pos_);
  pos_ = e;
  return id;
}

Status Parser::LexString(std::string* out) {
  if (Peek() != '"') return Error("expected a string literal");
  size_t start = pos_;
  ++pos_;
  out->clear();
  const size_t n = src_.size();
  while (true) {
    size_t run = pos_;
    while (pos_ < n && src_[pos_] != '"' && src_[pos_] != '\\' && src_[pos_] != '\n') ++pos_;
    out->append(src_.data() + run, pos_ - run);
    if (pos_ >= n || src_[pos_] == '\n') return ErrorAt(start, "unterminated string literal");
    char c = src_[pos_];
    if (c == '"') {
      ++pos_;
      return OkStatus();
    }
    // A backslash escape.
    if (pos_ + 1 >= n) return ErrorAt(start, "unterminated string literal");
    char e = src_[pos_ + 1];
    switch (e) {
      case '"': *out += '"'; pos_ += 2; continue;
      case '\\': *out += '\\'; pos_ += 2; continue;
      case 'n': *out += '\n'; pos_ += 2; continue;
      case 't': *out += '\t'; pos_ += 2; continue;
      default: break;
    }
    int hi = HexValue(e);
    int lo = pos_ + 2 < n ? HexValue(src_[pos_ + 2]) : -1;
    if (hi < 0 || lo < 0) return ErrorAt(pos_, "unknown escape in string literal");
    *out += static_cast<char>(hi * 16 + lo);
    pos_ += 3;
  }
}

Status Parser::LexNumber(NumberLit* out) {
  SkipWs();
  const size_t n = src_.size();
  size_t p = pos_;
  NumberLit lit;
  lit.pos = p;
  if (p < n && src_[p] == '-') {
    lit.negative = true;
    ++p;
  }
  if (p >= n || !IsDigit(src_[p])) return ErrorAt(pos_, "expected a number");
  if (src_[p] == '0' && p + 1 < n && (src_[p + 1] == 'x' || src_[p + 1] == 'X') && p + 2 < n &&
      HexValue(src_[p + 2]) >= 0) {
    lit.hex = true;
    size_t d = p + 2;
    size_t e = d;
    while (e < n && HexValue(src_[e]) >= 0) ++e;
    lit.digits = src_.substr(d, e - d);
    p = e;
  } else {
    size_t d = p;
    while (p < n && IsDigit(src_[p])) ++p;
    lit.digits = src_.substr(d, p - d);
    if (p < n && src_[p] == '.') {
      lit.is_float = true;
      ++p;
      while (p < n && IsDigit(src_[p])) ++p;
    }
    if (p < n && (src_[p] == 'e' || src_[p] == 'E')) {
      size_t q = p + 1;
      if (q < n && (src_[q] == '+' || src_[q] == '-')) ++q;
      if (q < n && IsDigit(src_[q])) {
        lit.is_float = true;
        p = q;
        while (p < n && IsDigit(src_[p])) ++p;
      }
    }
  }
  lit.text = src_.substr(lit.pos, p - lit.pos);
  pos_ = p;
  *out = lit;
  return OkStatus();
}

Status Parser::LexInt64(int64_t* out, std::string_view context) {
  NumberLit lit;
  SkipWs();
  size_t start = pos_;
  if (Status s = LexNumber(&lit); !s.ok()) {
    return ErrorAt(start, "expected an integer " + std::string(context));
  }
  uint64_t v;
  if (lit.is_float || !ParseUnsigned(lit.digits, lit.hex, &v)) {
    return ErrorAt(start, "expected an integer " + std::string(context));
  }
  if (lit.negative) {
    if (v > uint64_t{1} << 63) return ErrorAt(start, "integer is out of range");
    *out = static_cast<int64_t>(0 - v);
  } else {
    if (v > static_cast<uint64_t>(INT64_MAX)) return ErrorAt(start, "integer is out of range");
    *out = static_cast<int64_t>(v);
  }
  return OkStatus();
}

Status Parser::ParseIntList(std::vector<int64_t>* out, std::string_view context) {
  BERTH_RETURN_IF_ERROR(Expect('[', context));
  out->clear();
  if (TryConsume(']')) return OkStatus();
  do {
    int64_t v;
    BERTH_RETURN_IF_ERROR(LexInt64(&v, context));
    out->push_back(v);
  } while (TryConsume(','));
  return Expect(']', context);
}

namespace {

char Closer(char open) {
  switch (open) {
    case '<': return '>';
    case '(': return ')';
    case '[': return ']';
    case '{': return '}';
    default: return '\0';
  }
}

}  // namespace

// Skips from an opening bracket at pos_ to just past its match, stepping
// over string literals and `->`.
Status Parser::LexSymbolName(std::string* out, std::string_view what) {
  SkipWs();
  if (Peek() != '@') return Error("expected '@' and " + std::string(what));
  ++pos_;
  if (Peek() == '"' && PeekAt(0) == '"') return LexString(out);
  std::string_view id = LexSuffixId();
  if (id.empty()) return Error("expected " + std::string(what) + " after '@'");
  *out = std::string(id);
  return OkStatus();
}

Status Parser::ScanBalanced(size_t* end) {
  SkipWs();
  size_t start = pos_;
  const size_t n = src_.size();
  if (pos_ >= n || !Closer(src_[pos_])) return Error("expected an opening bracket");
  std::vector<char> stack;
  size_t p = pos_;
  while (p < n) {
    char c = src_[p];
    if (c == '"') {
      ++p;
      while (p < n && src_[p] != '"') {
        if (src_[p] == '\\') ++p;
        ++p;
      }
      if (p >= n) return ErrorAt(start, "unterminated string literal");
      ++p;
      continue;
    }
    if (c == '-' && p + 1 < n && src_[p + 1] == '>') {
      p += 2;
      continue;
    }
    if (Closer(c)) {
      stack.push_back(Closer(c));
      if (stack.size() > static_cast<size_t>(kMaxNestingDepth)) {
        return ErrorAt(p, "nesting is deeper than 256 levels");
      }
    } else if (c == '>' || c == ')' || c == ']' || c == '}') {
      if (stack.empty() || stack.back() != c) {
        return ErrorAt(p, std::string("unbalanced '") + c + "'");
      }
      stack.pop_back();
      if (stack.empty()) {
        *end = p + 1;
        return OkStatus();
      }
    }
    ++p;
  }
  return ErrorAt(start, "unterminated bracket");
}

Status Parser::SkipLocation() {
  size_t start = pos_;
  BERTH_RETURN_IF_ERROR(ExpectKeyword("loc", "for a location"));
  if (Peek() != '(') return ErrorAt(start, "expected '(' after 'loc'");
  size_t end;
  BERTH_RETURN_IF_ERROR(ScanBalanced(&end));
  pos_ = end;
  return OkStatus();
}

Status Parser::SkipTrailingLocation() {
  if (PeekBareId() == "loc") return SkipLocation();
  return OkStatus();
}

}  // namespace berth::stablehlo::detail
