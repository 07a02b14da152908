#include "referee/games/rock_paper_pyramid/picture.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// The layout, left to right: each row's name across its top, its score,
// its pool (one group of three slots per colour), the round's column (the
// piece played, big, and its fate) and the captured pieces. The columns
// right of the pool follow the number of colours (4 with `red`), so that no
// pool slot reaches the round's column.
constexpr int kTop = 48;  // Below the headings.
constexpr int kRowHeight = 96;
// The pool's left edge: right of "Round 10 of 10 played" (bold 13px).
constexpr int kPoolX = 212;
constexpr int kColourPitch = 90;  // One colour's three slots.
// A slot's centre from its colour's left edge, by size (L, M, S): a Large
// (30 wide) spans 3..33, a Medium (22) 37..59, a Small (14) 65..79.
constexpr int kSlot[] = {18, 48, 72};
constexpr int kPoolEnd = 79;  // The last slot's right edge in its colour.
constexpr int kGap = 16;
// From the round's column: the big piece's centre (a big Large is 45 wide),
// its fate (12px, "returns nothing" at most) and the captured column.
constexpr int kPlayedDx = 24;
constexpr int kFateDx = 52;
constexpr int kScoredDx = 176;
constexpr int kScoredW = 272;  // Eight Large pieces side by side.
constexpr int kScoredLines = 2;

// A generous estimate of a text's width: `chars` characters of a sans-serif
// font of `font_px` (a byte of UTF-8 is at most one character).
double TextWidth(size_t chars, double font_px, bool bold = false) {
  return static_cast<double>(chars) * font_px * (bold ? 0.68 : 0.62);
}

struct Columns {
  int round;   // "This round", the round's heading and the played pieces.
  int scored;  // "Captured".
  int width;   // The picture's.
};

Columns ColumnsFor(int colours) {
  Columns c;
  c.round = kPoolX + (colours - 1) * kColourPitch + kPoolEnd + kGap;
  c.scored = c.round + kScoredDx;
  c.width = c.scored + kScoredW + 12;
  return c;
}

// A pyramid's height by size (Large, Medium, Small).
double Height(v1::RppSize size) {
  switch (size) {
    case v1::RPP_LARGE:
      return 30;
    case v1::RPP_MEDIUM:
      return 22;
    case v1::RPP_SMALL:
      return 14;
    default:
      return 8;
  }
}

const char* ColourName(v1::RppColour colour) {
  switch (colour) {
    case v1::RPP_BLACK:
      return "Black";
    case v1::RPP_WHITE:
      return "White";
    case v1::RPP_CRYSTAL:
      return "Crystal";
    case v1::RPP_RED:
      return "Red";
    default:
      return "?";
  }
}

const char* SizeName(v1::RppSize size) {
  switch (size) {
    case v1::RPP_LARGE:
      return "Large";
    case v1::RPP_MEDIUM:
      return "Medium";
    case v1::RPP_SMALL:
      return "Small";
    default:
      return "?";
  }
}

// The id of a piece's shape in the defs: colour, size, and "b" when drawn
// half as large again (the round's pieces).
std::string PieceId(v1::RppColour colour, v1::RppSize size, bool big) {
  return absl::StrCat("rpp-", static_cast<int>(colour), "-",
                      static_cast<int>(size), big ? "b" : "");
}

// A piece as a pyramid (seen from the side) standing on the origin, with
// its name as a tooltip; with its id in the defs when `with_id`.
std::string PieceShape(v1::RppColour colour, v1::RppSize size, bool big,
                       bool with_id) {
  const double h = Height(size) * (big ? 1.5 : 1);
  const double half = h * 0.5;
  return absl::StrCat(
      "<polygon",
      with_id ? absl::StrCat(" id=\"", PieceId(colour, size, big), "\"") : "",
      big ? " class=\"big rpp-c" : " class=\"rpp-c", static_cast<int>(colour),
      "\" points=\"", Px(-half), ",0 ", Px(half), ",0 0,", Px(-h), "\"><title>",
      ColourName(colour), " ", SizeName(size), "</title></polygon>");
}

// Every piece's shape, at both sizes: drawn once per page.
const std::string& Defs() {
  static const std::string* const kDefs = [] {
    auto* out = new std::string;
    for (int c = v1::RPP_BLACK; c <= v1::RPP_RED; ++c) {
      for (int s = v1::RPP_LARGE; s <= v1::RPP_SMALL; ++s) {
        for (bool big : {false, true}) {
          absl::StrAppend(out, PieceShape(static_cast<v1::RppColour>(c),
                                          static_cast<v1::RppSize>(s), big,
                                          /*with_id=*/true));
        }
      }
    }
    return out;
  }();
  return *kDefs;
}

// A piece of `colour` and `size` standing on `base_y`, centred on `x`: a
// copy of its shape in the defs, or its full drawing for a colour or size
// the defs do not hold. `gone` draws it faint; `big` half as large again.
std::string Piece(v1::RppColour colour, v1::RppSize size, double x,
                  double base_y, bool gone = false, bool big = false) {
  const bool known = colour >= v1::RPP_BLACK && colour <= v1::RPP_RED &&
                     size >= v1::RPP_LARGE && size <= v1::RPP_SMALL;
  if (!known) {
    return absl::StrCat(
        "<g", gone ? " class=\"gone\"" : "", " transform=\"translate(", Px(x),
        " ", Px(base_y), ")\">",
        PieceShape(colour, size, big, /*with_id=*/false), "</g>");
  }
  // PieceId's form, written in place: this runs for every piece of every
  // step.
  return absl::StrCat("<use href=\"#rpp-", static_cast<int>(colour), "-",
                      static_cast<int>(size), big ? "b\"" : "\"",
                      gone ? " class=\"gone\"" : "", " x=\"", Px(x), "\" y=\"",
                      Px(base_y), "\"/>");
}

std::string Piece(const v1::RppPiece& piece, double x, double base_y,
                  bool gone = false, bool big = false) {
  return Piece(piece.colour(), piece.size(), x, base_y, gone, big);
}

bool InPool(const v1::RppSeatView& seat, v1::RppColour colour,
            v1::RppSize size) {
  for (const v1::RppPiece& p : seat.pool()) {
    if (p.colour() == colour && p.size() == size) return true;
  }
  return false;
}

// The board: the round counter and the column headings.
std::string Board(const v1::RockPaperPyramidObservation& game, int seats,
                  const Columns& cols) {
  const int bottom = kTop + kRowHeight * seats;
  return absl::StrCat(
      "<g class=\"board-rock_paper_pyramid\"><rect class=\"rpp-table\" x=\"0\" "
      "y=\"0\" width=\"",
      cols.width, "\" height=\"", bottom + 8,
      "\"/><text class=\"rpp-h\" x=\"12\" ", "y=\"24\">Round ",
      game.rounds_played(), " of ", game.total_rounds(),
      " played</text><text class=\"rpp-h\" x=\"", kPoolX, "\" y=\"24\">Pool ",
      "(faint: played)</text><text class=\"rpp-h\" x=\"", cols.round,
      "\" y=\"24\">This round</text><text class=\"rpp-h\" x=\"", cols.scored,
      "\" y=\"24\">Captured</text></g>");
}

// How many bytes of a seat's name its label holds: the label runs across
// the row's top from x 12 to the round's column (13px), "seat N (" and
// "…)" around the name.
size_t NameRoom(const Columns& cols, int seat) {
  const std::string around = absl::StrCat("seat ", seat, " (…)");
  const double chars = (cols.round - 12 - 8) / TextWidth(1, 13);
  // "…" is one character of three bytes.
  const double room = chars - static_cast<double>(around.size() - 2);
  return room < 1 ? 1 : static_cast<size_t>(room);
}

// One seat's row as parts: name and score, then its pool (every piece it
// started with: the colours it owns by size) and the pieces it scored, a
// part per piece, so that a round's change costs one piece's part.
void SeatRow(const v1::Header& header,
             const v1::RockPaperPyramidObservation& game, int seat, bool red,
             const Columns& cols, std::vector<std::string>& parts) {
  const v1::RppSeatView& view = game.seats(seat);
  const double y = kTop + kRowHeight * seat;
  parts.push_back(absl::StrCat(
      "<g class=\"rpp-seat\"><line class=\"rpp-rule\" x1=\"0\" y1=\"", Px(y),
      "\" x2=\"", cols.width, "\" y2=\"", Px(y), "\"/><text x=\"12\" y=\"",
      Px(y + 20), "\">", SeatLabel(header, seat, NameRoom(cols, seat)),
      "</text><text class=\"rpp-score\" x=\"12\" y=\"", Px(y + 56), "\">score ",
      view.score(), "</text></g>"));
  // Pool: one group per colour, sizes left to right.
  const int colours = red ? 4 : 3;
  for (int c = 1; c <= colours; ++c) {
    const auto colour = static_cast<v1::RppColour>(c);
    for (int s = 1; s <= 3; ++s) {
      const auto size = static_cast<v1::RppSize>(s);
      const bool held = InPool(view, colour, size);
      // The red stack is dealt one piece per seat: draw only what it holds
      // or held (a red piece it played is in the history).
      if (colour == v1::RPP_RED && !held) {
        bool played = false;
        for (const auto& round : game.history()) {
          if (seat < round.played_size() &&
              round.played(seat).colour() == v1::RPP_RED &&
              round.played(seat).size() == size) {
            played = true;
          }
        }
        if (!played) continue;
      }
      parts.push_back(Piece(colour, size,
                            kPoolX + (c - 1) * kColourPitch + kSlot[s - 1],
                            y + 70, /*gone=*/!held));
    }
  }
  // Captured: side by side, 4 apart, on up to two lines; when the rest do
  // not fit on the last, it ends with their count.
  const double right = cols.scored + kScoredW;
  const int n = view.scored_size();
  double x = cols.scored;
  int line = 0;
  for (int i = 0; i < n; ++i) {
    const double w = Height(view.scored(i).size());
    if (x + w > right && line + 1 < kScoredLines) {
      ++line;
      x = cols.scored;
    }
    if (line + 1 == kScoredLines) {
      double rest = -4;  // The rest's width, this piece's included.
      for (int j = i; j < n; ++j) rest += Height(view.scored(j).size()) + 4;
      if (x + rest > right && x + w > right - 36) {
        parts.push_back(absl::StrCat("<text class=\"rpp-fate\" x=\"", Px(x),
                                     "\" y=\"", Px(y + 36 + 32 * line), "\">+",
                                     n - i, "</text>"));
        break;
      }
    }
    parts.push_back(Piece(view.scored(i), x + w / 2, y + 40 + 32 * line));
    x += w + 4;
  }
}

const char* Resolution(v1::RppResolution r) {
  switch (r) {
    case v1::RPP_CAPTURES:
      return "captures";
    case v1::RPP_WASHOUT:
      return "washout (no capture)";
    case v1::RPP_STANDOFF:
      return "standoff (all captured: null round)";
    case v1::RPP_WISHBONE:
      return "wishbone (two claimants: null round)";
    default:
      return "";
  }
}

// The round just played: each seat's piece, and what became of it.
std::string Round(const v1::RockPaperPyramidRoundResult& round, int seats,
                  const Columns& cols) {
  std::string out =
      absl::StrCat("<g class=\"rpp-round\"><text class=\"rpp-h\" x=\"",
                   cols.round, "\" y=\"", kTop - 8, "\">Round ", round.round(),
                   ": ", Resolution(round.resolution()), "</text>");
  for (int seat = 0; seat < seats && seat < round.played_size(); ++seat) {
    const double y = kTop + kRowHeight * seat;
    absl::StrAppend(&out, Piece(round.played(seat), cols.round + kPlayedDx,
                                y + 70, /*gone=*/false, /*big=*/true));
    std::string fate;
    for (const v1::RppCapture& c : round.captures()) {
      if (static_cast<int>(c.captured()) == seat) {
        fate = absl::StrCat("taken by seat ", c.claimant());
      }
    }
    for (uint32_t kept : round.kept()) {
      if (static_cast<int>(kept) == seat) fate = "kept (scores)";
    }
    if (fate.empty()) {
      fate = round.resolution() == v1::RPP_CAPTURES ? "discarded"
                                                    : "returns nothing";
    }
    absl::StrAppend(&out, "<text class=\"rpp-fate\" x=\"", cols.round + kFateDx,
                    "\" y=\"", Px(y + 64), "\">", fate, "</text>");
  }
  absl::StrAppend(&out, "</g>");
  return out;
}

Picture Draw(const Moment& moment) {
  const v1::RockPaperPyramidObservation& game =
      moment.view->rock_paper_pyramid();
  const int seats = game.seats_size();
  const bool red = moment.header->game().rock_paper_pyramid().red();
  const Columns cols = ColumnsFor(red ? 4 : 3);
  Picture picture;
  picture.width = cols.width;
  picture.height = kTop + kRowHeight * seats + 8;
  picture.parts.push_back(Board(game, seats, cols));
  for (int seat = 0; seat < seats; ++seat) {
    SeatRow(*moment.header, game, seat, red, cols, picture.parts);
  }
  if (moment.result != nullptr && moment.result->has_rock_paper_pyramid()) {
    picture.parts.push_back(
        Round(moment.result->rock_paper_pyramid(), seats, cols));
  }
  return picture;
}

constexpr std::string_view kCss =
    ".rpp-table{fill:#f6f1e4}.rpp-rule{stroke:#d8cfb8}"
    ".rpp-h{font-weight:bold}.rpp-score{font-size:15px}"
    ".rpp-c1{fill:#222;stroke:#000}.rpp-c2{fill:#fff;stroke:#555}"
    ".rpp-c3{fill:#bfe6f7;stroke:#3a8fb5;fill-opacity:.8}"
    ".rpp-c4{fill:#c0392b;stroke:#7a1f15}.gone{opacity:.15}"
    ".big{stroke-width:1.5}.rpp-fate{font-size:12px}";

}  // namespace

namespace rpp {

constexpr GamePicture kPicture = {&Draw, kCss, &Defs,
                                  /*seat_views=*/false};

}  // namespace rpp

}  // namespace pyramid
