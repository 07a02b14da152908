#include "replay/time_span.h"

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace pyramid {

std::string UtcTime(int64_t unix_ms) {
  if (unix_ms == 0) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M:%E3S UTC",
                          absl::FromUnixMillis(unix_ms), absl::UTCTimeZone());
}

std::string MsBetween(int64_t from, int64_t to) {
  int64_t ms;
  if (__builtin_sub_overflow(to, from, &ms)) return "an impossible span";
  return absl::StrCat(ms, " ms");
}

}  // namespace pyramid
