// Pyramid Scheme's picture for the match viewer (referee/games/picture.h): the
// common board (display, deck, discard, goals, supply) and each seat's card
// pyramid drawn as the tree it is (the Founder on top, each card below its
// parent; smart-ass side up marked, capacity tokens shown), its tokens and
// score, and its hand: the cards of the seat's own observation, which only
// that seat saw while the match ran and the viewer reveals, so marked.
// Reads only the game's observation and result messages.
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_PICTURE_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_PICTURE_H_

#include "referee/games/picture.h"

namespace pyramid::scheme {

extern const GamePicture kPicture;

}  // namespace pyramid::scheme

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_PICTURE_H_
