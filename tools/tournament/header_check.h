// Whether a genuine log is of the match the tournament runner asked the
// referee for. A log verifies against the referee's key whatever its
// header says, and a referee holds its own key: a dishonest one (a running
// referee the runner does not control, Tournament.referee) could play a
// match with other options, another forfeit policy, or seats whose keys
// are not the bots' (so that it could write their moves), and sign it.
// The runner checks every log it takes against what it sent in
// CreateMatch (docs/tournament.md, "The referee", what the runner checks).
#ifndef PYRAMID_TOOLS_TOURNAMENT_HEADER_CHECK_H_
#define PYRAMID_TOOLS_TOURNAMENT_HEADER_CHECK_H_

#include <string>
#include <vector>

#include "pyramid/referee/v1/log.pb.h"

namespace pyramid {

// A seat the runner asked for: its bot's name and public key (32 bytes, or
// empty when the bot has none).
struct ExpectedSeat {
  std::string name;
  std::string public_key;
};

// What the runner asked for: the game and its options, the forfeit policy
// (UNSPECIFIED reads as FORFEIT, as the referee takes it), the label and
// the seats in order; and the match the referee said it created for it
// (its id in hex; empty: not compared).
struct ExpectedMatch {
  referee::v1::GameConfig game;
  referee::v1::ForfeitPolicy forfeit_policy =
      referee::v1::FORFEIT_POLICY_UNSPECIFIED;
  std::string label;
  std::vector<ExpectedSeat> seats;
  std::string match_id;
};

// Empty when `header` is of the match `expected` describes; otherwise the
// first difference, in words, its strings escaped (QuotedText, in
// referee/games/printable_text.h).
std::string HeaderDiffers(const referee::v1::Header& header,
                          const ExpectedMatch& expected);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_HEADER_CHECK_H_
