#include "replay/game_printers.h"

#include <string_view>

#include "referee/games/flaming_pyramids/printer.h"
#include "referee/games/pyramid_scheme/printer.h"
#include "referee/games/pyramid_shambo/printer.h"
#include "referee/games/rock_paper_pyramid/printer.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// Each game's printer, by game id: one line per game.
struct PrinterOfGame {
  std::string_view game;
  const GamePrinter* printer;
};
constexpr PrinterOfGame kPrinters[] = {
    {"flaming_pyramids", &fp::kPrinter},
    {"pyramid_scheme", &scheme::kPrinter},
    {"pyramid_shambo", &shambo::kPrinter},
    {"rock_paper_pyramid", &rpp::kPrinter},
};

const GamePrinter* FindPrinter(std::string_view game) {
  for (const PrinterOfGame& entry : kPrinters) {
    if (entry.game == game) return entry.printer;
  }
  return nullptr;
}

}  // namespace

void PrintView(std::string_view game, const v1::Observation& view,
               std::ostream& out) {
  if (const GamePrinter* printer = FindPrinter(game)) printer->view(view, out);
}

void PrintApplied(std::string_view game, const v1::Applied& applied,
                  std::ostream& out) {
  if (const GamePrinter* printer = FindPrinter(game)) {
    printer->applied(applied, out);
  } else {
    out << "  applied " << applied.moves_size() << " move(s)\n";
  }
}

}  // namespace pyramid
