#include "referee/games/picture_testing.h"

#include <regex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"

namespace pyramid::picture_testing {

std::string Svg(const Picture& picture) {
  return absl::StrJoin(picture.parts, "");
}

std::string Attr(const std::string& attrs, const std::string& name) {
  std::smatch m;
  if (std::regex_search(attrs, m,
                        std::regex("(^|\\s)" + name + "=\"([^\"]*)\""))) {
    return m[2];
  }
  return "";
}

size_t Chars(const std::string& text) {
  size_t n = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = text[i];
    if (c == '&') {
      i = text.find(';', i);
    } else if ((c & 0xC0) == 0x80) {
      continue;
    }
    ++n;
  }
  return n;
}

std::vector<Box> TextBoxes(const std::string& svg, const FontOf& font_of) {
  std::vector<Box> out;
  for (size_t at = svg.find("<text"); at != std::string::npos;
       at = svg.find("<text", at + 1)) {
    const size_t open = svg.find('>', at);
    const size_t close = svg.find("</text>", open);
    const std::string attrs = svg.substr(at + 5, open - at - 5);
    const std::string content = svg.substr(open + 1, close - open - 1);
    const std::optional<Font> font = font_of(Attr(attrs, "class"));
    if (!font) continue;
    const double x = std::stod(Attr(attrs, "x"));
    const double y = std::stod(Attr(attrs, "y"));
    const double w = Chars(content) * font->px * (font->bold ? 0.68 : 0.62);
    const double x0 = font->anchor == Font::kEnd      ? x - w
                      : font->anchor == Font::kMiddle ? x - w / 2
                                                      : x;
    out.push_back(
        {x0, y - font->px * 0.8, x0 + w, y + font->px * 0.2, content, y});
  }
  return out;
}

bool Overlap(const Box& a, const Box& b) {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

std::string Show(const Box& b) {
  return absl::StrCat("[", b.x0, "..", b.x1, "]x[", b.y0, "..", b.y1, "] ",
                      b.what.substr(0, 80));
}

void ExpectWithin(const Box& box, double width, std::optional<double> height,
                  const std::string& where) {
  EXPECT_GE(box.x0, 0) << where << ": " << Show(box);
  EXPECT_LE(box.x1, width) << where << ": " << Show(box);
  if (height) {
    EXPECT_LE(box.y1, *height) << where << ": " << Show(box);
  }
}

void ExpectLaidOut(const std::vector<Box>& boxes, double width,
                   std::optional<double> height, const std::string& where) {
  for (size_t i = 0; i < boxes.size(); ++i) {
    ExpectWithin(boxes[i], width, height, where);
    for (size_t j = i + 1; j < boxes.size(); ++j) {
      EXPECT_FALSE(Overlap(boxes[i], boxes[j]))
          << where << ": " << Show(boxes[i]) << " and " << Show(boxes[j]);
    }
  }
}

}  // namespace pyramid::picture_testing
