// `replay show`'s lines (referee/games/printer.h) for Pyramid Shambo: who
// challenged whom, the throws, the fee, every payment and exchange with
// colours, eliminations and bonuses, and every seat's holding after each turn.
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_PRINTER_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_PRINTER_H_

#include "referee/games/printer.h"

namespace pyramid::shambo {

extern const GamePrinter kPrinter;

}  // namespace pyramid::shambo

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_PRINTER_H_
