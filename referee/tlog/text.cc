#include "referee/tlog/text.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace pyramid::tlog {

std::optional<std::vector<char32_t>> DecodeUtf8(std::string_view text) {
  std::vector<char32_t> out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char lead = text[i];
    int length = 0;
    char32_t c = 0;
    if (lead < 0x80) {
      length = 1;
      c = lead;
    } else if (lead >= 0xc2 && lead <= 0xdf) {
      length = 2;
      c = lead & 0x1f;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      c = lead & 0x0f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      c = lead & 0x07;
    } else {
      return std::nullopt;
    }
    if (i + length > text.size()) return std::nullopt;
    for (int k = 1; k < length; ++k) {
      const unsigned char next = text[i + k];
      if ((next & 0xc0) != 0x80) return std::nullopt;
      c = (c << 6) | (next & 0x3f);
    }
    static constexpr char32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < kMinimum[length] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
      return std::nullopt;
    }
    out.push_back(c);
    i += length;
  }
  return out;
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  for (size_t at = 0;;) {
    const size_t end = text.find(separator, at);
    pieces.push_back(text.substr(
        at, end == std::string_view::npos ? std::string_view::npos : end - at));
    if (end == std::string_view::npos) return pieces;
    at = end + 1;
  }
}

bool IsValidUtf8(std::string_view text) { return DecodeUtf8(text).has_value(); }

bool IsUnicodeSpace(char32_t c) {
  return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0x85 || c == 0xa0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 ||
         c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

bool IsNoteText(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 && c != '\n') return false;
  }
  return true;
}

std::string CarriageReturnProblem(std::string_view text) {
  const size_t at = text.find('\r');
  if (at == std::string_view::npos) return "";
  return absl::StrCat("a carriage return (CR) at byte ", at,
                      ": lines end in a line feed alone (was the file "
                      "converted to CR LF line ends?)");
}

absl::StatusOr<std::string> DecodeBase64Strict(std::string_view text) {
  std::string out;
  if (!absl::Base64Unescape(ToAbsl(text), &out) ||
      absl::Base64Escape(out) != ToAbsl(text)) {
    return absl::InvalidArgumentError("not canonical base64");
  }
  return out;
}

std::optional<uint64_t> ParseDecimal(std::string_view text) {
  if (text.empty() || text.size() > 19 || (text.size() > 1 && text[0] == '0')) {
    return std::nullopt;
  }
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value;
}

}  // namespace pyramid::tlog
