// `replay show`'s lines (referee/games/printer.h) for Rock, Paper, Pyramid!.
#ifndef PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_PRINTER_H_
#define PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_PRINTER_H_

#include "referee/games/printer.h"

namespace pyramid::rpp {

extern const GamePrinter kPrinter;

}  // namespace pyramid::rpp

#endif  // PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_PRINTER_H_
