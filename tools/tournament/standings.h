// Standings from verified match results, and their table.
#ifndef PYRAMID_TOOLS_TOURNAMENT_STANDINGS_H_
#define PYRAMID_TOOLS_TOURNAMENT_STANDINGS_H_

#include <string>
#include <vector>

#include "pyramid/referee/v1/tournament.pb.h"

namespace pyramid {

// One standing per bot (in `bots` order's names), best first (by points,
// then mean rank, then name; points and mean ranks are compared exactly,
// so equal ones tie whatever the order of the matches). Only results whose
// verdict is "genuine" count.
std::vector<referee::v1::TournamentStanding> ComputeStandings(
    const std::vector<std::string>& bots,
    const std::vector<referee::v1::TournamentMatchResult>& results);

// A plain-text table of `standings`.
std::string FormatStandings(
    const std::vector<referee::v1::TournamentStanding>& standings);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_STANDINGS_H_
