// The match viewer's pictures: one interface for every game's SVG picture of
// a position (`replay html`, replay/html_page.h). Each game implements it in
// referee/games/<game>/picture.cc, beside its rules but outside the rules
// library: a picture reads only the messages of proto/pyramid/referee/v1/
// (observations, results, the header), never a rules engine's classes.
//
// A picture is a list of SVG fragments ("parts") drawn in order into one
// <svg> of the picture's size. The page stores every distinct part once and
// each step as a list of part numbers, so a game should split its picture
// into parts that rarely change together (e.g. one part per seat): a long
// match then costs little more than its changes. Parts are whole SVG
// elements in absolute coordinates; every string taken from the log in them
// is escaped (SvgText()). The same moment always gives the same bytes.
//
// Shapes a picture repeats (a piece, a tile face, with its <title>) belong
// in the game's defs: drawn once per page, each with an id starting with
// the game's CSS prefix, and placed by the parts as <use href="#ID" x y>.
// A part then costs a few dozen bytes per shape instead of its full
// drawing, and the page draws it once.
#ifndef PYRAMID_REFEREE_GAMES_PICTURE_H_
#define PYRAMID_REFEREE_GAMES_PICTURE_H_

#include <string>
#include <string_view>
#include <vector>

#include "pyramid/referee/v1/log.pb.h"

namespace pyramid {

// One moment of a match: the position after a step, as everyone saw it and
// as each seat saw it.
struct Moment {
  // The log's header (seat names, options). Never null.
  const referee::v1::Header* header = nullptr;
  // The public view of the position. Never null.
  const referee::v1::Observation* view = nullptr;
  // Each seat's own observation of the same position, indexed by seat: what
  // it alone could see (a hand). The match is over, so the viewer shows it,
  // marked as seen by that seat only.
  const std::vector<referee::v1::Observation>* seat_views = nullptr;
  // What the step that led here did; null for the initial position.
  const referee::v1::Result* result = nullptr;
};

struct Picture {
  int width = 0;  // SVG user units (CSS pixels at scale 1).
  int height = 0;
  std::vector<std::string> parts;
};

struct GamePicture {
  // The position of a moment as SVG parts. The first part holds the game's
  // board element: a <g class="board-GAME"> (GAME the game id), which the
  // browser test looks for.
  Picture (*draw)(const Moment& moment);
  // CSS for the classes the parts use (added once to the page's style).
  std::string_view css;
  // The SVG elements the parts <use>, with their ids (drawn once, in a
  // hidden <svg><defs> of the page); null when the game has none. The same
  // bytes at every call.
  const std::string& (*defs)() = nullptr;
  // Whether `draw` reads Moment::seat_views; when false the viewer does not
  // compute them (and passes an empty list).
  bool seat_views = true;
};

// `seat`'s own observation in `moment`, or null when the moment has none
// for it (no seat_views, or fewer than the seats).
const referee::v1::Observation* SeatView(const Moment& moment, int seat);

// `text` escaped for SVG or HTML text and attribute values (& < > " ').
std::string SvgText(std::string_view text);

// A coordinate or length: at most one decimal, no trailing ".0".
std::string Px(double value);

// "seat N" or, when the header names it, "seat N (NAME)": NAME (its first
// `max_name_bytes` bytes, cut at a character's start, "…" after them: a
// picture passes what its room for the label holds) through PrintableText
// (printable_text.h), so that no control, bidirectional or invisible
// character of it acts on the page, then SvgText.
std::string SeatLabel(const referee::v1::Header& header, int seat,
                      size_t max_name_bytes = 24);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_PICTURE_H_
