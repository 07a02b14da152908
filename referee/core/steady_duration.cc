#include "referee/core/steady_duration.h"

#include <algorithm>

namespace pyramid {

std::chrono::steady_clock::duration SteadyDuration(absl::Duration d) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      absl::ToChronoNanoseconds(
          std::clamp(d, absl::ZeroDuration(), kLongestSteadyWait)));
}

absl::Time SteadyNow() {
  return absl::UnixEpoch() +
         absl::FromChrono(std::chrono::steady_clock::now().time_since_epoch());
}

}  // namespace pyramid
