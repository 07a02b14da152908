#include "referee/service/match_id.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "referee/crypto/protocol.h"

namespace pyramid {

absl::Status CheckMatchIdForm(absl::string_view match_id) {
  if (match_id.size() != 2 * kMatchIdSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "match_id: ", 2 * kMatchIdSize, " lower-case hex digits, not ",
        match_id.size(), " bytes"));
  }
  for (const char c : match_id) {
    if (!absl::ascii_isdigit(c) && !(c >= 'a' && c <= 'f')) {
      return absl::InvalidArgumentError(absl::StrCat(
          "match_id: ", 2 * kMatchIdSize, " lower-case hex digits, not \"",
          absl::CHexEscape(match_id), "\""));
    }
  }
  return absl::OkStatus();
}

}  // namespace pyramid
