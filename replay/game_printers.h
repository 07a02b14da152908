// Game-specific lines of `replay show`: one printer per game, chosen by game
// id. Each game adds its printer in its own file and one line in
// game_printers.cc.
#ifndef PYRAMID_REPLAY_GAME_PRINTERS_H_
#define PYRAMID_REPLAY_GAME_PRINTERS_H_

#include <ostream>
#include <string_view>

#include "pyramid/referee/v1/log.pb.h"

namespace pyramid {

// Prints the public view of the game's initial state.
void PrintView(std::string_view game, const referee::v1::Observation& view,
               std::ostream& out);

// Prints what an applied decision (or automatic move) did.
void PrintApplied(std::string_view game, const referee::v1::Applied& applied,
                  std::ostream& out);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_GAME_PRINTERS_H_
