#include "replay/pictures.h"

#include "referee/games/flaming_pyramids/picture.h"
#include "referee/games/pyramid_scheme/picture.h"
#include "referee/games/pyramid_shambo/picture.h"
#include "referee/games/rock_paper_pyramid/picture.h"

namespace pyramid {
namespace {

// Each game's picture, by game id: one line per game.
struct PictureOfGame {
  std::string_view game;
  const GamePicture* picture;
};
constexpr PictureOfGame kPictures[] = {
    {"flaming_pyramids", &fp::kPicture},
    {"pyramid_scheme", &scheme::kPicture},
    {"pyramid_shambo", &shambo::kPicture},
    {"rock_paper_pyramid", &rpp::kPicture},
};

}  // namespace

const GamePicture* PictureFor(std::string_view game_id) {
  for (const PictureOfGame& entry : kPictures) {
    if (entry.game == game_id) return entry.picture;
  }
  return nullptr;
}

}  // namespace pyramid
