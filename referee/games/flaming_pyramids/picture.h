// Flaming Pyramids' picture for the match viewer (referee/games/picture.h): the
// tile pyramid on the table (each tile's colour, weight and material; the
// incendiaries with their flames; the legal spots and a fall waiting for its
// direction), the tiles this step burned, blew up or dropped, drawn where
// they stood; and each seat's hand and pile: the face-down dealt part as a
// count (hidden from everyone, owner included), the face-up tiles under it,
// and the hand's tiles, which only that seat saw. Reads only the game's
// observation and result messages.
#ifndef PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_PICTURE_H_
#define PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_PICTURE_H_

#include "referee/games/picture.h"

namespace pyramid::fp {

extern const GamePicture kPicture;

}  // namespace pyramid::fp

#endif  // PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_PICTURE_H_
