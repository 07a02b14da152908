// The match viewer's picture of each game, by id (referee/games/picture.h
// is the interface; each game's is in referee/games/<game>/picture.cc).
#ifndef PYRAMID_REPLAY_PICTURES_H_
#define PYRAMID_REPLAY_PICTURES_H_

#include <string_view>

#include "referee/games/picture.h"

namespace pyramid {

// The picture of `game_id`, or null for a game without one. The objects live
// for the whole program.
const GamePicture* PictureFor(std::string_view game_id);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_PICTURES_H_
