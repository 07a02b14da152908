#include "replay/pictures.h"

#include "referee/games/flaming_pyramids/picture.h"
#include "referee/games/pyramid_scheme/picture.h"
#include "referee/games/pyramid_shambo/picture.h"
#include "referee/games/rock_paper_pyramid/picture.h"

namespace pyramid {

const GamePicture* PictureFor(std::string_view game_id) {
  if (game_id == "rock_paper_pyramid") return &rpp::kPicture;
  if (game_id == "pyramid_shambo") return &shambo::kPicture;
  if (game_id == "flaming_pyramids") return &fp::kPicture;
  if (game_id == "pyramid_scheme") return &scheme::kPicture;
  return nullptr;
}

}  // namespace pyramid
