#include "referee/games/picture.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "referee/games/printable_text.h"

namespace pyramid {

const referee::v1::Observation* SeatView(const Moment& moment, int seat) {
  if (moment.seat_views == nullptr || seat < 0 ||
      seat >= static_cast<int>(moment.seat_views->size())) {
    return nullptr;
  }
  return &(*moment.seat_views)[seat];
}

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
  // Integer arithmetic on the tenths (no fmod, no printf): this runs for
  // every coordinate of every picture.
  const double scaled = std::round(value * 10);
  if (!(std::fabs(scaled) < 1e15)) {  // Not finite, or too large for tenths.
    return absl::StrFormat("%.1f", scaled / 10 + 0.0);
  }
  const long long tenths = static_cast<long long>(scaled);
  if (tenths % 10 == 0) return absl::StrCat(tenths / 10);
  const long long magnitude = tenths < 0 ? -tenths : tenths;
  std::string out = absl::StrCat(tenths < 0 ? "-" : "", magnitude / 10, ".");
  out += static_cast<char>('0' + magnitude % 10);
  return out;
}

std::string SeatLabel(const referee::v1::Header& header, int seat,
                      size_t max_name_bytes) {
  if (seat < 0 || seat >= header.seats_size() ||
      header.seats(seat).name().empty()) {
    return absl::StrCat("seat ", seat);
  }
  // At most max_name_bytes of the name, cut at a UTF-8 character boundary.
  std::string_view name = header.seats(seat).name();
  if (name.size() > max_name_bytes) {
    size_t cut = max_name_bytes;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xc0) == 0x80) {
      --cut;
    }
    return absl::StrCat("seat ", seat, " (",
                        SvgText(PrintableText(name.substr(0, cut))), "…)");
  }
  return absl::StrCat("seat ", seat, " (", SvgText(PrintableText(name)), ")");
}

}  // namespace pyramid
