#include "referee/cli/token_text.h"

#include "absl/strings/str_cat.h"

namespace pyramid {

absl::Status CheckTokenText(absl::string_view token, absl::string_view source) {
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
  return absl::OkStatus();
}

}  // namespace pyramid
