#include "replay/pictures.h"

#include "referee/games/flaming_pyramids/picture.h"
#include "referee/games/pyramid_scheme/picture.h"
#include "referee/games/pyramid_shambo/picture.h"
#include "referee/games/rock_paper_pyramid/picture.h"

namespace pyramid {

const GamePicture* PictureFor(std::string_view game_id) {
  if (game_id == "rock_paper_pyramid") return &RockPaperPyramidPicture();
  if (game_id == "pyramid_shambo") return &PyramidShamboPicture();
  if (game_id == "flaming_pyramids") return &FlamingPyramidsPicture();
  if (game_id == "pyramid_scheme") return &PyramidSchemePicture();
  return nullptr;
}

}  // namespace pyramid
