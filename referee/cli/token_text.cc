#include "referee/cli/token_text.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "referee/core/log_sink.h"

namespace pyramid {

absl::StatusOr<std::string> TokenFromText(absl::string_view text,
                                          absl::string_view source) {
  const absl::string_view token = absl::StripAsciiWhitespace(text);
  if (token.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(source, " holds no token"));
  }
  for (const char c : token) {
    if (c < 0x21 || c > 0x7e) {
      return absl::InvalidArgumentError(absl::StrCat(
          source,
          " does not hold a token: a token is printable ASCII without spaces "
          "(a referee's look like 0123456789abcdef.<64 hex digits>)"));
    }
  }
  return std::string(token);
}

absl::StatusOr<std::string> ReadTokenFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  return TokenFromText(*text, path);
}

}  // namespace pyramid
