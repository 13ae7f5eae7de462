// A cursor over sharding text (GSPMD strings, Shardy attributes): skips
// blanks, reads integers and quoted names, and words errors with the offset
// and the text they were read from.
#ifndef BERTH_SPMD_SRC_TEXT_CURSOR_HPP_
#define BERTH_SPMD_SRC_TEXT_CURSOR_HPP_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "berth/status.hpp"

namespace berth::spmd::internal {

class TextCursor {
 public:
  // `what` names the form in errors ("GSPMD sharding", "Shardy sharding").
  TextCursor(std::string_view text, std::string_view what) : text_(text), what_(what) {}

  void SkipBlanks();
  bool AtEnd() { SkipBlanks(); return pos_ >= text_.size(); }
  char Peek() { SkipBlanks(); return pos_ < text_.size() ? text_[pos_] : '\0'; }
  // Consumes `token` (after blanks) when it comes next.
  bool Consume(std::string_view token);
  // Consumes `token` or fails saying what it followed.
  Status Expect(std::string_view token, std::string_view context);
  // A decimal integer, optionally negative.
  Result<int64_t> Integer(std::string_view context);
  // `[a, b, c]` (possibly empty) of integers.
  Result<std::vector<int64_t>> IntegerList(std::string_view context);
  // A double-quoted name (escapes not allowed: mesh axis names are plain).
  Result<std::string> QuotedName(std::string_view context);
  // A bare identifier (`mesh`, `mesh_1`, `m.x`): letters, digits, `_`, `.`,
  // `$`, `-`.
  Result<std::string> Identifier(std::string_view context);
  // Skips a `{...}` group, braces and strings balanced (metadata).
  Status SkipBraced(std::string_view context);
  Status ExpectEnd();

  size_t pos() const { return pos_; }
  Status Error(std::string_view message) const;

 private:
  std::string_view text_;
  std::string_view what_;
  size_t pos_ = 0;
};

// The product of sizes >= 0, or nullopt when one is negative or the product
// overflows (device counts, tile products).
std::optional<int64_t> CheckedProduct(const std::vector<int64_t>& values);

}  // namespace berth::spmd::internal

#endif  // BERTH_SPMD_SRC_TEXT_CURSOR_HPP_
