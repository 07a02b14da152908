// `replay show`'s lines (referee/games/printer.h) for Pyramid Scheme: every
// event of every move, and after each turn every seat's pyramid as an indented
// tree with the display.
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_PRINTER_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_PRINTER_H_

#include "referee/games/printer.h"

namespace pyramid::scheme {

extern const GamePrinter kPrinter;

}  // namespace pyramid::scheme

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_PRINTER_H_
