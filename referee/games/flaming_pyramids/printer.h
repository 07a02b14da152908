// `replay show`'s lines (referee/games/printer.h) for Flaming Pyramids: the
// table drawn as rows of tiles (colour and weight) after each turn, and every
// mayhem event in order with where each tile went.
#ifndef PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_PRINTER_H_
#define PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_PRINTER_H_

#include "referee/games/printer.h"

namespace pyramid::fp {

extern const GamePrinter kPrinter;

}  // namespace pyramid::fp

#endif  // PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_PRINTER_H_
