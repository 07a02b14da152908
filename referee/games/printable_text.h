// Text a log or a client supplies (a game id, a seat's name, a label, a
// fault's detail, a bot's name), made safe to show on one line of a terminal
// or a page: nothing in it can move the cursor, end the line, reorder or hide
// what follows, or pass for text it is not. Every tool that shows such a
// string passes it through here first (then through SvgText() on a page).
#ifndef PYRAMID_REFEREE_GAMES_PRINTABLE_TEXT_H_
#define PYRAMID_REFEREE_GAMES_PRINTABLE_TEXT_H_

#include <string>
#include <string_view>

namespace pyramid {

// `text` with these escaped, everything else (ASCII from space to '~', and
// every other valid UTF-8 character: "Zoë", "名人", Arabic letters) as is:
// - bytes that are not valid UTF-8 (a stray continuation byte, a truncated,
//   overlong or surrogate sequence, a code point above U+10FFFF), each byte
//   as \xNN;
// - C0 controls and DEL: \t, \n and \r as such, the others as \xNN (\x1B
//   for ESC, \x00 for NUL): these are fields of one line;
// - C1 controls U+0080..U+009F (a terminal takes U+009B as CSI) as \u{9B};
// - Unicode's default-ignorable code points, which show as nothing
//   (Default_Ignorable_Code_Point: bidirectional controls U+061C, U+200E,
//   U+200F, U+202A..U+202E, U+2066..U+2069; U+00AD, U+034F, U+115F, U+1160,
//   U+17B4, U+17B5, U+180B..U+180F, U+200B..U+200D, U+2060..U+206F,
//   U+3164, the variation selectors U+FE00..U+FE0F, U+FEFF, U+FFA0,
//   U+FFF0..U+FFF8, U+1BCA0..U+1BCA3, U+1D173..U+1D17A, U+E0000..U+E0FFF),
//   the interlinear annotation controls U+FFF9..U+FFFB and the line and
//   paragraph separators (U+2028, U+2029) as \u{XXXX}, so that a name
//   cannot reverse or hide what follows it nor pass for another
//   ("heuristic" and "heuristic\u{200B}", "alice" and "alice\u{3164}").
// NN and XXXX are upper-case hexadecimal. A backslash is left as is: an
// unquoted field can hold the text of an escape, never the character.
std::string PrintableText(std::string_view text);

// PrintableText(text) between double quotes, with a backslash and a double
// quote in it escaped as \\ and \": the field ends at the first unescaped
// quote, so no text after it can pass for part of it, nor the field's text
// for what follows it.
std::string QuotedText(std::string_view text);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_PRINTABLE_TEXT_H_
