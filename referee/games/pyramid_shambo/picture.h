// Pyramid Shambo's picture for the match viewer (referee/games/picture.h):
// every seat's chips (its pieces, coloured by the seat that owned them first,
// sized by pips), whether it is live, the throws it has made; the open
// challenge and what is at stake (ties, the fee or bonus due, the
// payment's method); and the step just applied: the challenge, both throws,
// or the payment with the pieces that changed hands and any eliminations.
// Reads only the game's observation and result messages.
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_PICTURE_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_PICTURE_H_

#include "referee/games/picture.h"

namespace pyramid::shambo {

extern const GamePicture kPicture;

}  // namespace pyramid::shambo

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_PICTURE_H_
