#include "referee/games/printable_text.h"

#include <cstdint>

#include "absl/strings/str_format.h"

namespace pyramid {
namespace {

// The length of the valid UTF-8 sequence at the start of `text` and its code
// point, or 0 when it does not start with one.
size_t DecodeUtf8(std::string_view text, char32_t& code_point) {
  const auto byte = [&](size_t i) {
    return static_cast<unsigned char>(text[i]);
  };
  const unsigned char lead = byte(0);
  size_t length;
  char32_t min;
  if (lead < 0x80) {
    code_point = lead;
    return 1;
  } else if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2, min = 0x80, code_point = lead & 0x1f;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3, min = 0x800, code_point = lead & 0x0f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4, min = 0x10000, code_point = lead & 0x07;
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xc0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(i) & 0x3f);
  }
  if (code_point < min || code_point > 0x10ffff ||
      (code_point >= 0xd800 && code_point <= 0xdfff)) {
    return 0;
  }
  return length;
}

// Whether `c`, a character other than a C0 control, is escaped: C1
// controls, the line and paragraph separators, the interlinear annotation
// controls, and Unicode's default-ignorable code points (DerivedCoreProperties
// .txt, Default_Ignorable_Code_Point: what a renderer shows as nothing,
// bidirectional controls among them).
bool Hides(char32_t c) {
  struct Range {
    char32_t first, last;
  };
  static constexpr Range kHidden[] = {
      {0x7f, 0x9f},       {0xad, 0xad},       {0x34f, 0x34f},
      {0x61c, 0x61c},     {0x115f, 0x1160},   {0x17b4, 0x17b5},
      {0x180b, 0x180f},   {0x200b, 0x200f},   {0x2028, 0x202e},
      {0x2060, 0x206f},   {0x3164, 0x3164},   {0xfe00, 0xfe0f},
      {0xfeff, 0xfeff},   {0xffa0, 0xffa0},   {0xfff0, 0xfffb},
      {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0000, 0xe0fff},
  };
  for (const Range& range : kHidden) {
    if (c < range.first) return false;  // The ranges are in order.
    if (c <= range.last) return true;
  }
  return false;
}

void Append(std::string_view text, bool quoted, std::string& out) {
  while (!text.empty()) {
    char32_t c;
    const size_t length = DecodeUtf8(text, c);
    if (length == 0) {
      absl::StrAppendFormat(&out, "\\x%02X",
                            static_cast<unsigned char>(text[0]));
      text.remove_prefix(1);
      continue;
    }
    if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      absl::StrAppendFormat(&out, "\\x%02X", static_cast<uint32_t>(c));
    } else if (Hides(c)) {
      absl::StrAppendFormat(&out, "\\u{%X}", static_cast<uint32_t>(c));
    } else if (quoted && (c == '\\' || c == '"')) {
      out += '\\';
      out += static_cast<char>(c);
    } else {
      out.append(text.substr(0, length));
    }
    text.remove_prefix(length);
  }
}

}  // namespace

std::string PrintableText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  Append(text, /*quoted=*/false, out);
  return out;
}

std::string QuotedText(std::string_view text) {
  std::string out = "\"";
  out.reserve(text.size() + 2);
  Append(text, /*quoted=*/true, out);
  out += '"';
  return out;
}

}  // namespace pyramid
