#include "referee/core/steady_duration.h"

#include <algorithm>

namespace pyramid {

std::chrono::steady_clock::duration SteadyDuration(absl::Duration d) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      absl::ToChronoNanoseconds(
          std::clamp(d, absl::ZeroDuration(), kLongestSteadyWait)));
}

}  // namespace pyramid
