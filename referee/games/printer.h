// `replay show`'s lines for one game: what each game's printer
// (referee/games/<game>/printer.cc) provides, from the log's messages alone
// (no rules engine). replay/game_printers.cc finds them by game id.
#ifndef PYRAMID_REFEREE_GAMES_PRINTER_H_
#define PYRAMID_REFEREE_GAMES_PRINTER_H_

#include <ostream>
#include <string>

#include "pyramid/referee/v1/log.pb.h"

namespace pyramid {

// How a move came to be played, for every game's lines: " [automatic]" (the
// seat's only legal action; it was not asked), " [seat N default]" (the
// game's default action, after seat N's fault), "" (the seat's revealed
// action).
inline std::string MoveSourceNote(const referee::v1::Move& move) {
  switch (move.source()) {
    case referee::v1::MOVE_AUTOMATIC:
      return " [automatic]";
    case referee::v1::MOVE_DEFAULT:
      return " [seat " + std::to_string(move.seat()) + " default]";
    default:
      return "";
  }
}

// The notes of all of `applied`'s moves, in seat order.
inline std::string MoveSourceNotes(const referee::v1::Applied& applied) {
  std::string notes;
  for (const referee::v1::Move& move : applied.moves()) {
    notes += MoveSourceNote(move);
  }
  return notes;
}

struct GamePrinter {
  // Prints the public view of the game's initial state.
  void (*view)(const referee::v1::Observation& view, std::ostream& out);
  // Prints what an applied decision (or automatic move) did.
  void (*applied)(const referee::v1::Applied& applied, std::ostream& out);
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_PRINTER_H_
