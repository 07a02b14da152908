#include "replay/time_span.h"

#include "absl/strings/str_cat.h"

namespace pyramid {

std::string MsBetween(int64_t from, int64_t to) {
  int64_t ms;
  if (__builtin_sub_overflow(to, from, &ms)) return "an impossible span";
  return absl::StrCat(ms, " ms");
}

}  // namespace pyramid
