#include "src/text_cursor.hpp"

#include <cctype>
#include <charconv>
#include <limits>

namespace berth::spmd::internal {

void TextCursor::SkipBlanks() {
  while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                                 text_[pos_] == '\r')) {
    ++pos_;
  }
}

bool TextCursor::Consume(std::string_view token) {
  SkipBlanks();
  if (text_.substr(pos_, token.size()) != token) return false;
  pos_ += token.size();
  return true;
}

Status TextCursor::Expect(std::string_view token, std::string_view context) {
  if (Consume(token)) return OkStatus();
  return Error("expected '" + std::string(token) + "' " + std::string(context));
}

Result<int64_t> TextCursor::Integer(std::string_view context) {
  SkipBlanks();
  const char* begin = text_.data() + pos_;
  const char* end = text_.data() + text_.size();
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec == std::errc::result_out_of_range) return Error("integer out of range " + std::string(context));
  if (ec != std::errc() || ptr == begin) return Error("expected an integer " + std::string(context));
  pos_ += static_cast<size_t>(ptr - begin);
  return value;
}

Result<std::vector<int64_t>> TextCursor::IntegerList(std::string_view context) {
  BERTH_RETURN_IF_ERROR(Expect("[", context));
  std::vector<int64_t> values;
  if (Consume("]")) return values;
  do {
    BERTH_ASSIGN_OR_RETURN(int64_t value, Integer(context));
    values.push_back(value);
  } while (Consume(","));
  BERTH_RETURN_IF_ERROR(Expect("]", "to close the list " + std::string(context)));
  return values;
}

Result<std::string> TextCursor::QuotedName(std::string_view context) {
  SkipBlanks();
  if (pos_ >= text_.size() || text_[pos_] != '"') {
    return Error("expected a quoted axis name " + std::string(context));
  }
  size_t close = text_.find('"', pos_ + 1);
  if (close == std::string_view::npos) return Error("unterminated axis name " + std::string(context));
  std::string name(text_.substr(pos_ + 1, close - pos_ - 1));
  if (name.find('\\') != std::string::npos) return Error("escapes in axis names are not supported");
  pos_ = close + 1;
  return name;
}

Result<std::string> TextCursor::Identifier(std::string_view context) {
  SkipBlanks();
  size_t start = pos_;
  while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
                                 text_[pos_] == '.' || text_[pos_] == '$' || text_[pos_] == '-')) {
    ++pos_;
  }
  if (pos_ == start) return Error("expected a name " + std::string(context));
  return std::string(text_.substr(start, pos_ - start));
}

Status TextCursor::SkipBraced(std::string_view context) {
  BERTH_RETURN_IF_ERROR(Expect("{", context));
  int depth = 1;
  while (pos_ < text_.size() && depth > 0) {
    char c = text_[pos_++];
    if (c == '"') {
      while (pos_ < text_.size() && text_[pos_] != '"') pos_ += text_[pos_] == '\\' ? 2 : 1;
      if (pos_ >= text_.size()) return Error("unterminated string " + std::string(context));
      ++pos_;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      --depth;
    }
  }
  if (depth > 0) return Error("unbalanced '{' " + std::string(context));
  return OkStatus();
}

Status TextCursor::ExpectEnd() {
  if (AtEnd()) return OkStatus();
  return Error("unexpected text after the sharding");
}

Status TextCursor::Error(std::string_view message) const {
  std::string shown(text_.substr(0, 200));
  if (text_.size() > 200) shown += "...";
  return InvalidArgumentError(std::string(what_) + " at offset " + std::to_string(pos_) + ": " +
                              std::string(message) + " in \"" + shown + "\"");
}

std::optional<int64_t> CheckedProduct(const std::vector<int64_t>& values) {
  int64_t product = 1;
  for (int64_t value : values) {
    if (value < 0) return std::nullopt;
    if (value != 0 && product > std::numeric_limits<int64_t>::max() / value) return std::nullopt;
    product *= value;
  }
  return product;
}

}  // namespace berth::spmd::internal
