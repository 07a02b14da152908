#include "referee/games/registry.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/text_format.h"
#include "referee/games/flaming_pyramids/game.h"
#include "referee/games/printable_text.h"
#include "referee/games/pyramid_scheme/game.h"
#include "referee/games/pyramid_shambo/game.h"
#include "referee/games/rock_paper_pyramid/game.h"

namespace pyramid {
namespace {

std::string Seats(const GameDescription& game) {
  if (game.min_seats == game.max_seats) {
    return absl::StrCat("exactly ", game.min_seats);
  }
  return absl::StrCat(game.min_seats, " to ", game.max_seats);
}

// The field of `game`'s options message that `option` describes.
const google::protobuf::FieldDescriptor* FieldOf(
    const GameDescription& game, const OptionDescription& option) {
  return v1::GameConfig::descriptor()
      ->FindFieldByName(std::string(game.id))
      ->message_type()
      ->FindFieldByName(std::string(option.name));
}

// The options column: each option's name, kind and range, as MakeGame
// checks them.
std::string OptionsCell(const GameDescription& game) {
  std::vector<std::string> cells;
  for (const OptionDescription& option : game.options) {
    const google::protobuf::FieldDescriptor* field = FieldOf(game, option);
    const std::string name = absl::StrCat("`", std::string(option.name), "`");
    switch (option.kind) {
      case OptionDescription::Kind::kBool:
        cells.push_back(absl::StrCat(name, " (bool)"));
        break;
      case OptionDescription::Kind::kEnum:
        cells.push_back(absl::StrCat(
            name, ": 0 = ", option.default_value, " (",
            field->enum_type()
                ->FindValueByNumber(static_cast<int>(option.default_value))
                ->name(),
            "); values the enum does not define are refused"));
        break;
      case OptionDescription::Kind::kUint:
        cells.push_back(
            field->has_presence()
                ? absl::StrCat(name, ": unset = ", option.default_value,
                               ", else ", option.min, " to ", option.max,
                               " (0 refused)")
                : absl::StrCat(name, ": 0 = ", option.default_value, ", else ",
                               option.min, " to ", option.max));
        break;
    }
  }
  return absl::StrJoin(cells, "; ");
}

}  // namespace

const std::vector<const GameDescription*>& AllGames() {
  static const auto* const games = new std::vector<const GameDescription*>{
      &fp::Description(),
      &scheme::Description(),
      &shambo::Description(),
      &rpp::Description(),
  };
  return *games;
}

const GameDescription* FindGame(std::string_view id) {
  for (const GameDescription* game : AllGames()) {
    if (game->id == id) return game;
  }
  return nullptr;
}

absl::StatusOr<std::unique_ptr<Game>> MakeGame(const v1::GameConfig& config,
                                               uint32_t rules_version) {
  const GameDescription* game = FindGame(config.game());
  if (game == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("unknown game ", QuotedText(config.game())));
  }
  return MakeGameOf(*game, config, rules_version);
}

std::vector<std::string> GameIds() {
  std::vector<std::string> ids;
  for (const GameDescription* game : AllGames()) ids.emplace_back(game->id);
  return ids;
}

std::string OptionsText(const v1::GameConfig& config) {
  const google::protobuf::Reflection* reflection = config.GetReflection();
  const google::protobuf::FieldDescriptor* field =
      reflection->GetOneofFieldDescriptor(
          config, config.GetDescriptor()->FindOneofByName("options"));
  if (field == nullptr) return "";
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);
  std::string text;
  printer.PrintToString(reflection->GetMessage(config, field), &text);
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

std::string GamesHelp() {
  std::string help;
  for (const GameDescription* game : AllGames()) {
    std::vector<std::string> versions;
    for (const RulesVersionDescription& version : game->rules_versions) {
      versions.push_back(absl::StrCat(version.version));
    }
    absl::StrAppend(&help, std::string(game->id), ": ",
                    std::string(game->title), "; ", Seats(*game),
                    " seats; rules versions ", absl::StrJoin(versions, ", "),
                    "\n");
    for (const std::string& line : OptionHelp(*game)) {
      absl::StrAppend(&help, "  ", line, "\n");
    }
  }
  return help;
}

std::string ValidValuesTable() {
  std::string table =
      "| `game.game` | `rules_version` | seats | options (the oneof member; "
      "unset = every default) |\n|---|---|---|---|\n";
  for (const GameDescription* game : AllGames()) {
    for (const RulesVersionDescription& version : game->rules_versions) {
      absl::StrAppend(&table, "| `", std::string(game->id), "` | ",
                      version.version, " | ", Seats(*game), " | ",
                      version.change.empty()
                          ? OptionsCell(*game)
                          : absl::StrCat("as version ", version.version - 1,
                                         "; ", std::string(version.change)),
                      " |\n");
    }
  }
  return table;
}

}  // namespace pyramid
