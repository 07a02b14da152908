// A tournament match's verdict (TournamentMatchResult.verdict): "genuine"
// when its log verified, else why not. Only a genuine result counts in the
// standings and the ratings. Header-only: the ratings library, below the
// runner's, reads it too.
#ifndef PYRAMID_TOOLS_TOURNAMENT_MATCH_VERDICT_H_
#define PYRAMID_TOOLS_TOURNAMENT_MATCH_VERDICT_H_

#include "pyramid/referee/v1/tournament.pb.h"

namespace pyramid {

// The verdict of a match whose log verifies.
inline constexpr char kGenuineVerdict[] = "genuine";

// Whether `result` counts in the standings and the ratings: its verdict is
// kGenuineVerdict.
inline bool IsGenuine(const referee::v1::TournamentMatchResult& result) {
  return result.verdict() == kGenuineVerdict;
}

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_MATCH_VERDICT_H_
