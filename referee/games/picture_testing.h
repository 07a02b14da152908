// Test helpers for the games' pictures (picture.h), checked on the SVG they
// write. The contract:
//  - Svg() joins a picture's parts as the page does (no separator);
//  - Attr() reads one attribute of an element, by regex;
//  - TextBoxes() finds every <text> by hand (std::regex recurses on a long
//    text) and estimates its extent generously for a sans-serif font:
//    Chars() characters (UTF-8 lead bytes, an entity as one) at 0.62 em a
//    character, 0.68 bold; from 0.8 em above its baseline to 0.2 em below;
//    placed by its text-anchor. A text's content is everything between its
//    tags (child elements' markup counted as characters);
//  - the game's knowledge stays in its test: its CSS classes' font sizes,
//    weights and anchors come from a FontOf it passes (which may also skip a
//    class's texts), and its pieces' boxes it finds itself;
//  - ExpectWithin() and ExpectLaidOut() add a gtest failure, prefixed with
//    `where`, for each box past the picture's edge (the bottom edge only
//    when a height is given) and, for ExpectLaidOut, each two boxes that
//    overlap.
#ifndef PYRAMID_REFEREE_GAMES_PICTURE_TESTING_H_
#define PYRAMID_REFEREE_GAMES_PICTURE_TESTING_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "referee/games/picture.h"

namespace pyramid::picture_testing {

// A box drawn in the picture: a text (its estimated extent) or a piece.
struct Box {
  double x0, y0, x1, y1;
  std::string what;     // A text's content, or what the piece is.
  double baseline = 0;  // A text's y attribute; 0 for a piece.
};

// The picture's SVG: its parts joined.
std::string Svg(const Picture& picture);

// The value of attribute `name` in an element's `attrs`; "" when absent.
std::string Attr(const std::string& attrs, const std::string& name);

// Characters of SVG text: UTF-8 lead bytes, an entity as one.
size_t Chars(const std::string& text);

// How a class's text is drawn, from the game's CSS.
struct Font {
  enum Anchor { kStart, kMiddle, kEnd };
  double px = 13;
  bool bold = false;
  Anchor anchor = kStart;
};
// The font of a text of class attribute `cls` ("" for none); nullopt to
// leave the text out.
using FontOf = std::function<std::optional<Font>(const std::string& cls)>;

// Every <text>'s estimated extent, in the SVG's order.
std::vector<Box> TextBoxes(const std::string& svg, const FontOf& font_of);

bool Overlap(const Box& a, const Box& b);

// A box for a failure message: its extent and its first 80 characters.
std::string Show(const Box& b);

// `box` within x in [0, width], and y1 <= height when given.
void ExpectWithin(const Box& box, double width, std::optional<double> height,
                  const std::string& where);

// Every box within the picture (as ExpectWithin), none over another.
void ExpectLaidOut(const std::vector<Box>& boxes, double width,
                   std::optional<double> height, const std::string& where);

}  // namespace pyramid::picture_testing

#endif  // PYRAMID_REFEREE_GAMES_PICTURE_TESTING_H_
