#include "referee/games/picture.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace pyramid {

std::string SvgText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Px(double value) {
  const double tenths = std::round(value * 10);
  if (std::fmod(tenths, 10) == 0) {
    return absl::StrCat(static_cast<long long>(tenths / 10));
  }
  return absl::StrFormat("%.1f", tenths / 10 + 0.0);
}

std::string SeatLabel(const referee::v1::Header& header, int seat) {
  if (seat < 0 || seat >= header.seats_size() ||
      header.seats(seat).name().empty()) {
    return absl::StrCat("seat ", seat);
  }
  // At most 24 bytes of the name, cut at a UTF-8 character boundary.
  std::string_view name = header.seats(seat).name();
  if (name.size() > 24) {
    size_t cut = 24;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xc0) == 0x80) {
      --cut;
    }
    return absl::StrCat("seat ", seat, " (", SvgText(name.substr(0, cut)),
                        "…)");
  }
  return absl::StrCat("seat ", seat, " (", SvgText(name), ")");
}

}  // namespace pyramid
