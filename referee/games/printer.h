// `replay show`'s lines for one game: what each game's printer
// (referee/games/<game>/printer.cc) provides, from the log's messages alone
// (no rules engine). replay/game_printers.cc finds them by game id.
#ifndef PYRAMID_REFEREE_GAMES_PRINTER_H_
#define PYRAMID_REFEREE_GAMES_PRINTER_H_

#include <ostream>

#include "pyramid/referee/v1/log.pb.h"

namespace pyramid {

struct GamePrinter {
  // Prints the public view of the game's initial state.
  void (*view)(const referee::v1::Observation& view, std::ostream& out);
  // Prints what an applied decision (or automatic move) did.
  void (*applied)(const referee::v1::Applied& applied, std::ostream& out);
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_PRINTER_H_
