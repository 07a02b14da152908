// PrintableText and QuotedText: what a log's strings become on a terminal.
#include "referee/games/printable_text.h"

#include <string>
#include <utility>

#include "gtest/gtest.h"

namespace pyramid {
namespace {

TEST(PrintableTextTest, OrdinaryTextIsUnchanged) {
  for (const std::string text :
       {"", "heuristic", "alice (no key)", "a\\b", "say \"hi\"", "Zoë", "名人",
        "لاعب", "emoji 🎲", "~"}) {
    EXPECT_EQ(PrintableText(text), text);
  }
}

TEST(PrintableTextTest, ControlsOfOneLineAreEscaped) {
  EXPECT_EQ(PrintableText("a\nverdict: genuine\r\t"),
            "a\\nverdict: genuine\\r\\t");
  EXPECT_EQ(PrintableText(std::string("\x1b[2J\x00\x7f", 6)),
            "\\x1B[2J\\x00\\x7F");
  EXPECT_EQ(PrintableText("\xc2\x9b"
                          "31m\xc2\x80\xc2\x9f"),
            "\\u{9B}31m\\u{80}\\u{9F}");
}

TEST(PrintableTextTest, InvalidUtf8IsEscapedByteByByte) {
  EXPECT_EQ(PrintableText("a\xff"
                          "b"),
            "a\\xFFb");
  EXPECT_EQ(PrintableText("\x80"), "\\x80");                    // Continuation.
  EXPECT_EQ(PrintableText("\xe5\x90"), "\\xE5\\x90");           // Truncated.
  EXPECT_EQ(PrintableText("\xc0\xaf"), "\\xC0\\xAF");           // Overlong '/'.
  EXPECT_EQ(PrintableText("\xed\xa0\x80"), "\\xED\\xA0\\x80");  // Surrogate.
  EXPECT_EQ(PrintableText("\xf4\x90\x80\x80"),                  // Above 10FFFF.
            "\\xF4\\x90\\x80\\x80");
}

TEST(PrintableTextTest, BidiAndInvisibleCharactersAreEscaped) {
  EXPECT_EQ(PrintableText("bob\u202Eevil"), "bob\\u{202E}evil");
  EXPECT_EQ(PrintableText("heuristic\u200B"), "heuristic\\u{200B}");
  for (char32_t c : {0x61c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d,
                     0x2066, 0x2067, 0x2068, 0x2069, 0x200b, 0x200c, 0x200d,
                     0x2060, 0xfeff, 0xad, 0x2028, 0x2029}) {
    std::string utf8;
    if (c < 0x800) {
      utf8 = {static_cast<char>(0xc0 | (c >> 6)),
              static_cast<char>(0x80 | (c & 0x3f))};
    } else {
      utf8 = {static_cast<char>(0xe0 | (c >> 12)),
              static_cast<char>(0x80 | ((c >> 6) & 0x3f)),
              static_cast<char>(0x80 | (c & 0x3f))};
    }
    char want[16];
    snprintf(want, sizeof want, "\\u{%X}", static_cast<unsigned>(c));
    EXPECT_EQ(PrintableText(utf8), want);
  }
}

// Every default-ignorable code point shows as nothing: "alice" followed by
// one passed for "alice" (a security tester's list: Hangul fillers, a tag
// character, deprecated format controls, the Mongolian vowel separator,
// the combining grapheme joiner, a variation selector, a shorthand format
// control, an interlinear annotation anchor).
TEST(PrintableTextTest, DefaultIgnorableCharactersAreEscaped) {
  const std::pair<std::string, std::string> cases[] = {
      {"\u3164", "\\u{3164}"},      {"\u115F", "\\u{115F}"},
      {"\u1160", "\\u{1160}"},      {"\uFFA0", "\\u{FFA0}"},
      {"\U000E0041", "\\u{E0041}"}, {"\U000E0001", "\\u{E0001}"},
      {"\u206A", "\\u{206A}"},      {"\u206F", "\\u{206F}"},
      {"\u180E", "\\u{180E}"},      {"\u034F", "\\u{34F}"},
      {"\uFE0F", "\\u{FE0F}"},      {"\U0001BCA0", "\\u{1BCA0}"},
      {"\uFFF9", "\\u{FFF9}"},      {"\U0001D173", "\\u{1D173}"},
      {"\u17B4", "\\u{17B4}"},
  };
  for (const auto& [hidden, shown] : cases) {
    EXPECT_EQ(PrintableText("alice" + hidden), "alice" + shown);
  }
  // Their neighbours show.
  for (const std::string shown :
       {"\u3163", "\u1161", "\u180A", "\uFE10", "\uFFFC", "\U000E1000",
        "\U0001D17B", "\u2070"}) {
    EXPECT_EQ(PrintableText(shown), shown);
  }
}

TEST(QuotedTextTest, QuotesAndBackslashesCannotEndTheField) {
  EXPECT_EQ(QuotedText("example/1/2"), "\"example/1/2\"");
  EXPECT_EQ(QuotedText("a\" (signs\\"), "\"a\\\" (signs\\\\\"");
  EXPECT_EQ(QuotedText("名人\n"), "\"名人\\n\"");
}

}  // namespace
}  // namespace pyramid
