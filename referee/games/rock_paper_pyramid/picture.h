// Rock, Paper, Pyramid!'s picture for the match viewer
// (referee/games/picture.h): every seat's pool of pyramids (the pieces it has
// not played, and faintly those it has), its score and the pieces it captured,
// and the round just played: each seat's piece, how the round resolved and who
// took what. Reads only the game's observation and round result messages.
#ifndef PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_PICTURE_H_
#define PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_PICTURE_H_

#include "referee/games/picture.h"

namespace pyramid::rpp {

extern const GamePicture kPicture;

}  // namespace pyramid::rpp

#endif  // PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_PICTURE_H_
