#include "referee/games/flaming_pyramids/picture.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

constexpr int kWidth = 980;
constexpr double kTileW = 44;  // A tile on the table.
constexpr double kTileH = 28;
constexpr int kTableTop = 36;   // Below the title.
constexpr int kSeatRow = 46;    // One seat's hand and pile.
constexpr double kSmallW = 26;  // A tile in a hand or pile.
constexpr double kSmallH = 16.5;
constexpr double kHandX = 220;  // Where a seat's hand starts.
constexpr double kPileX = 420;  // Where its pile starts.
// The room of a seat's name, from x = 12 to a little before its hand: 13px
// text, bold on its turn with "▶ " before it (about 8.3 px a character of a
// lowercase name): "▶ seat 10 (" and "…)" leave about 100 px, 12 bytes.
// A name of wider characters is cut by the clip (#fp-name-room) instead.
constexpr double kNameRoom = kHandX - 6;
constexpr size_t kNameBytes = 12;

constexpr int kWeights[10] = {2, 4, 6, 10, 20, 30, 40, 60, 100, 120};
const char* const kColours[4] = {"yellow", "red", "green", "blue"};

int Weight(uint32_t tile) {
  if (tile < 40) return kWeights[tile % 10];
  if (tile == 40) return 200;
  return tile <= 42 ? 1 : 7;
}

// CSS class of a tile: colour and material; an incendiary's colour (which
// the building rule reads) as a class of its own.
std::string TileClass(uint32_t tile) {
  if (tile < 40) {
    const int i = tile % 10;
    return absl::StrCat("fp-k", tile / 10,
                        i < 3   ? " fp-straw"
                        : i < 7 ? " fp-wood"
                                : " fp-stone");
  }
  if (tile == 40) return "fp-mill";
  if (tile == 41) return "fp-coal fp-green";
  if (tile == 42) return "fp-coal fp-yellow";
  return tile == 43 ? "fp-torch fp-red" : "fp-torch fp-blue";
}

std::string TileName(uint32_t tile) {
  if (tile < 40) {
    const int i = tile % 10;
    return absl::StrCat(kColours[tile / 10], " ", Weight(tile),
                        i < 3   ? " straw"
                        : i < 7 ? " wood"
                                : " stone");
  }
  if (tile == 40) return "Millstone 200";
  if (tile == 41) return "green Coal";
  if (tile == 42) return "yellow Coal";
  if (tile == 43) return "red Blowtorch";
  if (tile == 44) return "blue Blowtorch";
  return "?";
}

bool Incendiary(uint32_t tile) { return tile >= 41 && tile <= 44; }

// A flame over the tile whose top-left corner is (x, y), `w` wide.
std::string Flame(double x, double y, double w, double h) {
  const double cx = x + w / 2;
  return absl::StrCat("<path class=\"fp-flame\" d=\"M", Px(cx - w * 0.22), ",",
                      Px(y + h * 0.85), "Q", Px(cx - w * 0.3), ",",
                      Px(y + h * 0.3), " ", Px(cx), ",", Px(y - h * 0.35), "Q",
                      Px(cx + w * 0.3), ",", Px(y + h * 0.3), " ",
                      Px(cx + w * 0.22), ",", Px(y + h * 0.85), "Z\"/>");
}

// One tile's face with its top-left corner at the origin, `w` by `h`: its
// colour and material, weight; an incendiary's flame at its left, its
// colour as its border and (at table size) a stripe along its bottom.
std::string Face(uint32_t tile, absl::string_view id, double w, double h) {
  std::string out =
      absl::StrCat("<g id=\"", id, "\" class=\"", TileClass(tile), "\"><title>",
                   TileName(tile), " (tile ", tile, ")</title><rect width=\"",
                   Px(w - 2), "\" height=\"", Px(h - 2), "\"/>");
  if (Incendiary(tile)) {
    // The stripe at table size only: a hand's tile has room for its border.
    const double band = h < kTileH ? 0 : 5;
    if (band > 0) {
      absl::StrAppend(&out, "<rect class=\"fp-band\" y=\"", Px(h - 2 - band),
                      "\" width=\"", Px(w - 2), "\" height=\"", Px(band),
                      "\"/>");
    }
    absl::StrAppend(&out, Flame(1, 2, (w - 2) * 0.3, h - 4 - band));
  }
  absl::StrAppend(&out, "<text x=\"", Px(w / 2 - 1), "\" y=\"",
                  Px(h / 2 + (h < kTileH ? 2 : 3)), "\">", Weight(tile),
                  "</text></g>");
  return out;
}

// Every tile's face, drawn once per page at table size (#fp-tN) and at hand
// size (#fp-sN): the game's defs, which the parts place (<use>).
std::string TileFaces() {
  std::string out;
  for (uint32_t tile = 0; tile <= 44; ++tile) {
    absl::StrAppend(&out,
                    Face(tile, absl::StrCat("fp-t", tile), kTileW, kTileH),
                    Face(tile, absl::StrCat("fp-s", tile), kSmallW, kSmallH));
  }
  // What a seat's name may cover: never its hand.
  absl::StrAppend(&out, "<clipPath id=\"fp-name-room\"><rect width=\"",
                  Px(kNameRoom), "\" height=\"100000\"/></clipPath>");
  return out;
}

const std::string& Defs() {
  static const std::string* const kFaces = new std::string(TileFaces());
  return *kFaces;
}

// A tile on the table with its top-left corner at (x, y), at `scale`.
std::string Tile(uint32_t tile, double x, double y, double scale,
                 absl::string_view extra = "") {
  const std::string cls =
      extra.empty() ? "" : absl::StrCat(" class=\"", extra, "\"");
  if (scale == 1) {
    return absl::StrCat("<use href=\"#fp-t", tile, "\"", cls, " x=\"", Px(x),
                        "\" y=\"", Px(y), "\"/>");
  }
  return absl::StrCat("<use href=\"#fp-t", tile, "\"", cls,
                      " transform=\"translate(", Px(x), " ", Px(y), ") scale(",
                      absl::StrFormat("%.3f", scale), ")\"/>");
}

// A tile in a hand or pile, top-left corner at (x, y).
std::string SmallTile(uint32_t tile, double x, double y) {
  return absl::StrCat("<use href=\"#fp-s", tile, "\" x=\"", Px(x), "\" y=\"",
                      Px(y), "\"/>");
}

// Where the table's slots go on screen: a tile (r, x) rests on (r-1, x) and
// (r-1, x+1), so row r is shifted right by half a tile per row.
struct TableGeometry {
  double left = 0;    // Screen x of column 0, row 0.
  double bottom = 0;  // Screen y of row 0's top.
  double scale = 1;
  double X(uint32_t row, int x) const {
    return left + (x + row * 0.5) * kTileW * scale;
  }
  double Y(uint32_t row) const { return bottom - row * kTileH * scale; }
};

// Fits every tile, legal spot and pending fall of the moment on the table.
TableGeometry Fit(const v1::FlamingPyramidsObservation& game, double height) {
  double lo = 0, hi = 1;
  uint32_t top_row = 0;
  auto cover = [&](uint32_t row, int x) {
    lo = std::min(lo, x + row * 0.5);
    hi = std::max(hi, x + row * 0.5 + 1);
    top_row = std::max(top_row, row);
  };
  for (const v1::FpCell& c : game.pyramid()) cover(c.row(), c.x());
  for (const v1::FpSpot& s : game.legal_spots()) cover(s.row(), s.x());
  TableGeometry g;
  // Full size with column 0 in the middle whenever the table fits: tiles
  // then keep their place from step to step (and their picture parts).
  g.left = kWidth / 2.0 - kTileW / 2;
  g.bottom = kTableTop + height - kTileH;
  if (g.left + lo * kTileW >= 10 && g.left + hi * kTileW <= kWidth - 10 &&
      (top_row + 1) * kTileH <= height - 10) {
    return g;
  }
  const double span = (hi - lo) * kTileW;
  g.scale = std::min(
      {1.0, (kWidth - 40) / span, (height - 10) / ((top_row + 1) * kTileH)});
  g.left = kWidth / 2.0 - ((lo + hi) / 2) * kTileW * g.scale;
  g.bottom = kTableTop + height - kTileH * g.scale;
  return g;
}

// Six rows of tiles at full size. The tables of random and heuristic play
// reach five (docs/viewer.md); a taller one is drawn smaller to fit.
constexpr double kTableHeight = 6 * kTileH + 12;

// The board: the table and its ground (the same at every step).
std::string Board(int height) {
  return absl::StrCat(
      "<g class=\"board-flaming_pyramids\"><rect class=\"fp-table\" x=\"0\" "
      "y=\"0\" width=\"",
      kWidth, "\" height=\"", height,
      "\"/><line class=\"fp-ground\" x1=\"10\" y1=\"", kTableTop + kTableHeight,
      "\" x2=\"", kWidth - 10, "\" y2=\"", kTableTop + kTableHeight,
      "\"/></g>");
}

// Whose move it is, the turn and the tiles out of the game.
std::string Title(const v1::FlamingPyramidsObservation& game) {
  std::string state;
  switch (game.phase()) {
    case v1::FP_PLACE:
      state = absl::StrCat("seat ", game.active_seat(), " places a tile");
      break;
    case v1::FP_FALL:
      state =
          absl::StrCat("seat ", game.pending().chooser(), " chooses where the ",
                       TileName(game.pending().tile()), " falls");
      break;
    case v1::FP_GAME_OVER:
      state = game.has_winner()
                  ? absl::StrCat("game over: seat ", game.winner(), " wins")
                  : "game over";
      break;
    default:
      break;
  }
  return absl::StrCat(
      "<g><text class=\"fp-h\" x=\"12\" y=\"22\">Turn ",
      game.turns_completed() + (game.phase() == v1::FP_GAME_OVER ? 0 : 1), " (",
      game.turns_completed(), " of at most ", game.max_turns(), " completed",
      game.curse() ? ", curse on" : "", "); ", state, "</text></g>");
}

// The tiles out of the game (its own part: it changes less often than the
// title).
std::string Removed(const v1::FlamingPyramidsObservation& game) {
  return absl::StrCat("<text class=\"fp-small\" x=\"", kWidth - 12,
                      "\" y=\"22\" text-anchor=\"end\">", game.removed_size(),
                      game.removed_size() == 1 ? " tile" : " tiles",
                      " out of the game</text>");
}

// The legal spots, dashed.
std::string Spots(const v1::FlamingPyramidsObservation& game,
                  const TableGeometry& g) {
  std::string out = "<g class=\"fp-spot\">";
  for (const v1::FpSpot& s : game.legal_spots()) {
    absl::StrAppend(&out, "<rect x=\"", Px(g.X(s.row(), s.x())), "\" y=\"",
                    Px(g.Y(s.row())), "\" width=\"", Px(kTileW * g.scale - 2),
                    "\" height=\"", Px(kTileH * g.scale - 2), "\"/>");
  }
  absl::StrAppend(&out, "</g>");
  return out;
}

// One tile on the table (one picture part each, so that a tile that stays
// where it is costs nothing at the next step).
std::string TableTile(const v1::FlamingPyramidsObservation& game,
                      const v1::FpCell& c, const TableGeometry& g) {
  const bool falling =
      game.phase() == v1::FP_FALL && c.tile() == game.pending().tile();
  const double x = g.X(c.row(), c.x()), y = g.Y(c.row());
  std::string out = Tile(c.tile(), x, y, g.scale);
  if (falling) {
    absl::StrAppend(&out, "<rect class=\"fp-falling\" x=\"", Px(x), "\" y=\"",
                    Px(y), "\" width=\"", Px(kTileW * g.scale), "\" height=\"",
                    Px(kTileH * g.scale),
                    "\"><title>falls: its chooser picks "
                    "left or right</title></rect>");
  }
  return out;
}

// The tiles this step took off the table, drawn faint where they stood,
// with flames for fire and explosions; none where a tile stands now (one
// fell or was placed into the spot in the same step): the live tile shows.
std::string Gone(const v1::FlamingPyramidsObservation& game,
                 const v1::FlamingPyramidsResult& result) {
  const TableGeometry g = Fit(game, kTableHeight);
  auto occupied = [&](uint32_t row, int x) {
    for (const v1::FpCell& c : game.pyramid()) {
      if (c.row() == row && c.x() == x) return true;
    }
    return false;
  };
  std::string out = "<g class=\"fp-gone\">";
  for (const v1::FpEvent& event : result.events()) {
    const bool burning =
        event.kind() == v1::FP_FIRE || event.kind() == v1::FP_EXPLOSION;
    for (const v1::FpTileMove& m : event.moves()) {
      if (m.to() == v1::FP_TO_TABLE) continue;
      if (occupied(m.from_row(), m.from_x())) continue;
      const double x = g.X(m.from_row(), m.from_x());
      const double y = g.Y(m.from_row());
      absl::StrAppend(&out, Tile(m.tile(), x, y, g.scale, "fp-ghost"));
      if (burning) {
        absl::StrAppend(
            &out, Flame(x, y, kTileW * g.scale - 2, kTileH * g.scale - 2));
      }
    }
  }
  absl::StrAppend(&out, "</g>");
  return out;
}

// Seat `seat`'s row, at height `y`, as two parts: its name (marked on its
// turn, cut and clipped to its room) with the labels of its hand, its pile
// and its score, and its counts with the tiles it holds, its score (which
// change more often).
void SeatInfo(const v1::Header& header,
              const v1::FlamingPyramidsObservation& game, int seat, double y,
              std::vector<std::string>& parts) {
  const v1::FpSeatView& view = game.seats(seat);
  const bool active = game.phase() != v1::FP_GAME_OVER &&
                      static_cast<int>(game.active_seat()) == seat;
  parts.push_back(absl::StrCat(
      "<g class=\"fp-seat\"><text", active ? " class=\"fp-h\"" : "",
      " clip-path=\"url(#fp-name-room)\" x=\"12\" y=\"", Px(y + 14), "\">",
      active ? "&#9654; " : "", SeatLabel(header, seat, kNameBytes),
      "</text><text class=\"fp-secret\" x=\"", kHandX, "\" y=\"", Px(y + 40),
      "\">hand: seen by seat ", seat,
      " only</text><text class=\"fp-small\" "
      "x=\"",
      kPileX, "\" y=\"", Px(y + 40),
      "\">pile: face down (seen by nobody), then face up</text><text "
      "class=\"fp-small\" x=\"12\" y=\"",
      Px(y + 42), "\">(the score: fewer is better)</text></g>"));
  parts.push_back(
      absl::StrCat("<text class=\"fp-small\" x=\"12\" y=\"", Px(y + 29),
                   "\">hand ", view.hand_size(), ", pile ", view.pile_size(),
                   ": ", view.hand_size() + view.pile_size(), " held</text>"));
}

// The seat's hand, from its own observation: only it saw these tiles. A
// part per tile, so that a tile that keeps its place costs nothing at the
// next step.
void SeatHand(const v1::Observation* own, int seat, double y,
              std::vector<std::string>& parts) {
  if (own == nullptr || !own->has_flaming_pyramids() ||
      seat >= own->flaming_pyramids().seats_size()) {
    return;
  }
  const auto& hand = own->flaming_pyramids().seats(seat).own_hand();
  const double spacing = std::min<double>(
      kSmallW, (kPileX - kHandX - kSmallW - 8) / std::max(1, hand.size()));
  double x = kHandX;
  for (uint32_t tile : hand) {
    parts.push_back(SmallTile(tile, x, y + 8));
    x += spacing;
  }
}

// The seat's pile: its face-down dealt tiles (a count: nobody knows them),
// then the face-up tiles under them, top-most first, a part per tile.
void SeatPile(const v1::FpSeatView& view, double y,
              std::vector<std::string>& parts) {
  double x = kPileX;
  parts.push_back(absl::StrCat(
      "<g><rect class=\"fp-down\" x=\"", Px(x), "\" y=\"", Px(y + 8),
      "\" width=\"", Px(kSmallW * 1.6), "\" height=\"", Px(kSmallH - 2),
      "\"/><text class=\"fp-count\" x=\"", Px(x + kSmallW * 0.8), "\" y=\"",
      Px(y + 20), "\">", view.dealt_left(), "</text></g>"));
  x += kSmallW * 1.6 + 4;
  // Overlapping more as the pile grows, so that every tile shows.
  const double spacing =
      view.under_size() < 2
          ? 0
          : std::min(kSmallW - 4,
                     (kWidth - 8 - kSmallW - x) / (view.under_size() - 1));
  for (uint32_t tile : view.under()) {
    parts.push_back(SmallTile(tile, x, y + 8));
    x += spacing;
  }
}

Picture Draw(const Moment& moment) {
  const v1::FlamingPyramidsObservation& game = moment.view->flaming_pyramids();
  const int seats = game.seats_size();
  Picture picture;
  picture.width = kWidth;
  const double seats_top = kTableTop + kTableHeight + 12;
  picture.height = static_cast<int>(seats_top + kSeatRow * seats + 6);
  picture.parts.push_back(Board(picture.height));
  picture.parts.push_back(Title(game));
  picture.parts.push_back(Removed(game));
  const TableGeometry g = Fit(game, kTableHeight);
  if (!game.legal_spots().empty()) picture.parts.push_back(Spots(game, g));
  for (const v1::FpCell& c : game.pyramid()) {
    picture.parts.push_back(TableTile(game, c, g));
  }
  if (moment.result != nullptr && moment.result->has_flaming_pyramids()) {
    picture.parts.push_back(Gone(game, moment.result->flaming_pyramids()));
  }
  for (int seat = 0; seat < seats; ++seat) {
    const v1::Observation* own = SeatView(moment, seat);
    const double y = seats_top + kSeatRow * seat;
    SeatInfo(*moment.header, game, seat, y, picture.parts);
    SeatHand(own, seat, y, picture.parts);
    SeatPile(game.seats(seat), y, picture.parts);
  }
  return picture;
}

constexpr std::string_view kCss =
    ".fp-table{fill:#f3ede2}.fp-h{font-weight:bold}.fp-small{font-size:"
    "11px}.fp-secret{font-size:11px;fill:#7a4b00;font-style:italic}"
    ".fp-ground{stroke:#8a7a5a;stroke-width:2}"
    ".fp-spot rect{fill:none;stroke:#999;stroke-dasharray:3 2}"
    "[class^=fp-k] rect,.fp-mill rect,.fp-coal rect,.fp-torch rect{"
    "stroke-width:2}.fp-k0 rect{fill:#f7d44c}.fp-k1 rect{fill:#e5604f}"
    ".fp-k2 rect{fill:#4dbb74}.fp-k3 rect{fill:#5b8ee0}"
    ".fp-straw rect{stroke:#a8862a;stroke-dasharray:4 2}"
    ".fp-wood rect{stroke:#8b5a2b}"
    ".fp-stone rect{stroke:#555;stroke-width:3}.fp-mill rect{fill:#999;"
    "stroke:#444}.fp-coal rect{fill:#333}.fp-torch rect{fill:#666}"
    ".fp-green rect{stroke:#4dbb74}.fp-green .fp-band{fill:#4dbb74}"
    ".fp-yellow rect{stroke:#f7d44c}.fp-yellow .fp-band{fill:#f7d44c}"
    ".fp-red rect{stroke:#e5604f}.fp-red .fp-band{fill:#e5604f}"
    ".fp-blue rect{stroke:#5b8ee0}.fp-blue .fp-band{fill:#5b8ee0}"
    ".fp-flame{fill:#ff8c1a;stroke:#d35400;"
    "opacity:.95}.fp-falling{fill:none;stroke:#c00;stroke-width:3}"
    ".fp-ghost{opacity:.35}.fp-down{fill:#6b5a45}"
    "[class^=fp-k] text,.fp-mill text,.fp-coal text,.fp-torch text{"
    "font-size:11px;text-anchor:middle}.fp-coal text,.fp-torch text{"
    "fill:#fff;font-weight:bold}"
    "[id^=fp-s] text{font-size:8px}.fp-count{font-size:11px;"
    "text-anchor:middle;fill:#fff}"
    "[class^=fp-k] rect,.fp-mill rect,.fp-coal rect,.fp-torch rect{"
    "rx:2px}";

}  // namespace

namespace fp {

constexpr GamePicture kPicture = {&Draw, kCss, &Defs};

}  // namespace fp

}  // namespace pyramid
