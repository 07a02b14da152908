// Strict parsing of the small text formats of transparency logs (notes,
// checkpoints, proofs): each has exactly one encoding, so every parser
// refuses what a formatter would not have written.
#ifndef PYRAMID_REFEREE_TLOG_TEXT_H_
#define PYRAMID_REFEREE_TLOG_TEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace pyramid::tlog {

// Debian's Abseil has its own absl::string_view (not std::string_view);
// these convert between the two without copying.
inline absl::string_view ToAbsl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}
inline std::string_view ToStd(absl::string_view s) {
  return std::string_view(s.data(), s.size());
}
// `text` split at every `separator` (an empty text gives one empty piece).
std::vector<std::string_view> Split(std::string_view text, char separator);

// The code points of `text`; nullopt unless it is valid UTF-8 (shortest
// forms, no surrogates, at most U+10FFFF).
std::optional<std::vector<char32_t>> DecodeUtf8(std::string_view text);
bool IsValidUtf8(std::string_view text);
// Unicode White_Space (what Go's unicode.IsSpace accepts).
bool IsUnicodeSpace(char32_t c);
// No ASCII control character but the newline.
bool IsNoteText(std::string_view text);
// Empty when `text` holds no carriage return; else why a note, checkpoint
// or proof holding one cannot be read, naming the first one's byte
// offset: their lines end in a line feed alone, so a file converted to
// Windows line ends (CR LF) is refused rather than read as another text.
std::string CarriageReturnProblem(std::string_view text);
// Standard base64 with padding (RFC 4648 section 4), in its one canonical
// form: what re-encoding the result gives back.
absl::StatusOr<std::string> DecodeBase64Strict(std::string_view text);
// An ASCII decimal without sign or leading zeros ("0" itself is allowed)
// of at most 19 digits (so it fits in 64 bits).
std::optional<uint64_t> ParseDecimal(std::string_view text);

}  // namespace pyramid::tlog

#endif  // PYRAMID_REFEREE_TLOG_TEXT_H_
