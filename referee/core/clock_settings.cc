#include "referee/core/clock_settings.h"

#include "absl/strings/str_cat.h"

namespace pyramid {
namespace {

// `zero_means`: what 0 stands for in `field`.
absl::Status CheckTimeout(const char* field, uint32_t ms,
                          const char* zero_means) {
  if (ms == 0 || (ms >= kMinTimeoutMs && ms <= kMaxTimeoutMs)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "clocks.", field, " is ", ms, " ms; it must be 0 (", zero_means,
      ") or from ", kMinTimeoutMs, " to ", kMaxTimeoutMs, " ms (24 h)"));
}

absl::Status CheckAtMost(const char* field, uint32_t ms, uint32_t max,
                         const char* max_words) {
  if (ms <= max) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("clocks.", field, " is ", ms,
                                                 " ms; it must be at most ",
                                                 max, " ms (", max_words, ")"));
}

}  // namespace

absl::Status ValidateClockSettings(const referee::v1::ClockSettings& clocks) {
  for (absl::Status status : {
           CheckTimeout("commit_timeout_ms", clocks.commit_timeout_ms(),
                        "no deadline"),
           CheckTimeout("reveal_timeout_ms", clocks.reveal_timeout_ms(),
                        "no deadline"),
           CheckTimeout("seed_timeout_ms", clocks.seed_timeout_ms(),
                        "as commit_timeout_ms"),
           CheckAtMost("time_bank_ms", clocks.time_bank_ms(), kMaxTimeBankMs,
                       "24 h"),
           CheckAtMost("time_bank_increment_ms",
                       clocks.time_bank_increment_ms(), kMaxTimeBankIncrementMs,
                       "1 h"),
       }) {
    if (!status.ok()) return status;
  }
  if (clocks.commit_timeout_ms() == 0) {
    for (const auto& [field, ms] :
         {std::pair<const char*, uint32_t>{"time_bank_ms",
                                           clocks.time_bank_ms()},
          {"time_bank_increment_ms", clocks.time_bank_increment_ms()}}) {
      if (ms != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "clocks.", field, " is ", ms,
            " ms but clocks.commit_timeout_ms is 0: a time bank extends the "
            "commit deadline, so it needs one"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace pyramid
