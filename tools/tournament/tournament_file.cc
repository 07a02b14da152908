#include "tools/tournament/tournament_file.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/tokenizer.h"
#include "referee/cli/text_proto.h"
#include "referee/core/clock_settings.h"
#include "referee/files/bounded_read.h"
#include "referee/games/printable_text.h"
#include "referee/games/registry.h"
#include "tools/tournament/sprt.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;
using ::google::protobuf::FieldDescriptor;

// Names of the tournament and its bots: they become file names and part of
// every match label (NAME/RUN_ID/INDEX, at most 128 bytes).
constexpr size_t kMaxNameBytes = 64;

bool IsName(const std::string& name) {
  if (name.empty() || name.size() > kMaxNameBytes) return false;
  if (name == "." || name == "..") return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' &&
        c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

// Drops what the parser reports: for a text that parsed once already.
class NoErrors final : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int, google::protobuf::io::ColumnNumber,
                const std::string&) override {}
};

// Records in `locations` where each field of `text`, which ParseTextProto
// took as a Tournament, stands (a second parse: the shared ParseTextProto
// says the errors and records no places).
void RecordLocations(std::string_view text,
                     TournamentFileLocations& locations) {
  NoErrors none;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&none);
  parser.WriteLocationsTo(&locations);
  v1::Tournament again;
  parser.ParseFromString(std::string(text), &again);
}

}  // namespace

absl::StatusOr<v1::Tournament> ParseTournamentFile(
    std::string_view text, TournamentFileLocations* locations) {
  v1::Tournament tournament;
  if (absl::Status s = ParseTextProto(text, tournament); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a Tournament in text format: ", s.message()));
  }
  if (locations != nullptr) RecordLocations(text, *locations);
  return tournament;
}

namespace {

// The field a mistake is in: the fields from the Tournament down to it,
// each with the index of its value (-1 for a field that is not repeated).
// Empty: no field in particular.
using FieldPath = std::vector<std::pair<const FieldDescriptor*, int>>;

const FieldDescriptor* TournamentField(int number) {
  return v1::Tournament::descriptor()->FindFieldByNumber(number);
}

// Field `number` of the Tournament; or of its bot `bot` when `bot` >= 0.
FieldPath At(int number, int bot = -1) {
  const FieldDescriptor* bots =
      TournamentField(v1::Tournament::kBotsFieldNumber);
  if (bot < 0) return {{TournamentField(number), -1}};
  return {{bots, bot},
          {v1::TournamentBot::descriptor()->FindFieldByNumber(number), -1}};
}

// Where the mistake is in a GameConfig MakeGame refused: its game's name
// when no game is of that name, else its options (or the game's name when
// it has none).
FieldPath GameMistakeAt(const v1::GameConfig& game) {
  FieldPath path = At(v1::Tournament::kGameFieldNumber);
  const google::protobuf::Descriptor* config = v1::GameConfig::descriptor();
  const FieldDescriptor* options =
      FindGame(game.game()) == nullptr
          ? nullptr
          : game.GetReflection()->GetOneofFieldDescriptor(
                game, config->FindOneofByName("options"));
  path.emplace_back(options != nullptr ? options
                                       : config->FindFieldByNumber(
                                             v1::GameConfig::kGameFieldNumber),
                    -1);
  return path;
}

// `status` with the place of `path` in the text first, "line L column C: "
// (from 1), or of the deepest of its fields the text sets; as it is when
// the text sets none of them.
absl::Status Placed(const absl::Status& status, const FieldPath& path,
                    const TournamentFileLocations& locations) {
  google::protobuf::TextFormat::ParseLocation place;
  const TournamentFileLocations* tree = &locations;
  for (const auto& [field, index] : path) {
    const google::protobuf::TextFormat::ParseLocation here =
        tree->GetLocation(field, index);
    if (here.line < 0) break;
    place = here;
    if (field->type() != FieldDescriptor::TYPE_MESSAGE) break;
    tree = tree->GetTreeForNested(field, index);
    if (tree == nullptr) break;
  }
  if (place.line < 0) return status;
  return absl::Status(status.code(),
                      absl::StrCat("line ", place.line + 1, " column ",
                                   place.column + 1, ": ", status.message()));
}

// Each bot has a unique name and a command. `at`: the field of a mistake.
absl::Status CheckBots(const v1::Tournament& t, FieldPath& at) {
  std::map<std::string, int> seen;
  for (int i = 0; i < t.bots_size(); ++i) {
    const v1::TournamentBot& bot = t.bots(i);
    at = At(v1::TournamentBot::kNameFieldNumber, i);
    if (!IsName(bot.name())) {
      return absl::InvalidArgumentError(
          absl::StrCat("bots: bad bot name ", QuotedText(bot.name()), " (1 to ",
                       kMaxNameBytes, " letters, digits, '.', '_' or '-')"));
    }
    if (seen[bot.name()]++ > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("bots: two bots are named ", bot.name()));
    }
    if (bot.command().empty()) {
      at.pop_back();  // The bot: it has no command to point at.
      return absl::InvalidArgumentError(
          absl::StrCat("bots: bot ", bot.name(), " has no command"));
    }
  }
  return absl::OkStatus();
}

// An SPRT or a Swiss tournament fits its bots and seats. `at`: the field
// of a mistake.
absl::Status CheckFormat(const v1::Tournament& t, FieldPath& at) {
  if (t.has_sprt()) {
    at = At(v1::Tournament::kSprtFieldNumber);
    if (t.bots_size() != 2 || t.seats() != 2 ||
        (t.format() != v1::ROUND_ROBIN &&
         t.format() != v1::TOURNAMENT_FORMAT_UNSPECIFIED)) {
      return absl::InvalidArgumentError(
          "sprt: an SPRT needs exactly 2 bots, 2 seats and the round-robin "
          "format");
    }
    // INVALID_ARGUMENT, its message naming the field ("sprt: ...").
    if (absl::Status s = ValidateSprt(t.sprt()); !s.ok()) return s;
  }
  if (t.format() == v1::SWISS) {
    at = At(v1::Tournament::kFormatFieldNumber);
    if (t.seats() != 2) {
      return absl::InvalidArgumentError(
          "format: Swiss pairs two seats per match");
    }
    if (t.bots_size() < 2) {
      return absl::InvalidArgumentError("format: Swiss needs at least 2 bots");
    }
  }
  return absl::OkStatus();
}

// The fields of a running referee (referee_key, admin_token_file) and of
// the embedded one (signing_key_file) go with their own: set with the
// other, they would be ignored, and what the user meant would not happen.
// `at`: the field of a mistake.
absl::Status CheckRefereeFields(const v1::Tournament& t, FieldPath& at) {
  if (t.referee().empty()) {
    if (!t.referee_key().empty()) {
      at = At(v1::Tournament::kRefereeKeyFieldNumber);
      return absl::InvalidArgumentError(
          "referee_key pins a running referee's key, and no referee is set "
          "(the embedded referee signs with signing_key_file)");
    }
    if (!t.admin_token_file().empty()) {
      at = At(v1::Tournament::kAdminTokenFileFieldNumber);
      return absl::InvalidArgumentError(
          "admin_token_file is a running referee's, and no referee is set");
    }
  } else if (!t.signing_key_file().empty()) {
    at = At(v1::Tournament::kSigningKeyFileFieldNumber);
    return absl::InvalidArgumentError(
        "signing_key_file is the embedded referee's key, and referee names a "
        "running one, which signs with its own (pin it with referee_key)");
  }
  return absl::OkStatus();
}

// NormalizeTournament's work; `at`: the field of a mistake.
absl::Status Normalize(v1::Tournament& t, FieldPath& at) {
  if (t.name().empty()) t.set_name("tournament");
  if (!IsName(t.name())) {
    at = At(v1::Tournament::kNameFieldNumber);
    return absl::InvalidArgumentError(
        absl::StrCat("name: ", QuotedText(t.name()), " is not 1 to ",
                     kMaxNameBytes, " letters, digits, '.', '_' or '-'"));
  }
  at = At(v1::Tournament::kGameFieldNumber);
  if (t.game().game().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "game: required (one of ", absl::StrJoin(GameIds(), ", "), ")"));
  }
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(t.game());
  if (!game.ok()) {
    at = GameMistakeAt(t.game());
    return absl::InvalidArgumentError(
        absl::StrCat("game: ", game.status().message()));
  }
  if (t.seats() == 0) t.set_seats((*game)->min_seats());
  if (t.seats() < static_cast<uint32_t>((*game)->min_seats()) ||
      t.seats() > static_cast<uint32_t>((*game)->max_seats())) {
    at = At(v1::Tournament::kSeatsFieldNumber);
    return absl::InvalidArgumentError(absl::StrCat(
        "seats: ", t.game().game(), " takes ",
        SeatCounts((*game)->description()), " seats, not ", t.seats()));
  }
  if (t.rounds() == 0) t.set_rounds(1);
  if (t.concurrency() == 0) t.set_concurrency(8);
  if (t.clocks().commit_timeout_ms() == 0 &&
      t.clocks().reveal_timeout_ms() == 0) {
    t.mutable_clocks()->set_commit_timeout_ms(5000);
    t.mutable_clocks()->set_reveal_timeout_ms(5000);
  }
  if (absl::Status s = ValidateClockSettings(t.clocks()); !s.ok()) {
    at = At(v1::Tournament::kClocksFieldNumber);
    return absl::InvalidArgumentError(absl::StrCat("clocks: ", s.message()));
  }
  if (t.output_dir().empty()) t.set_output_dir("out/" + t.name());
  if (absl::Status s = CheckRefereeFields(t, at); !s.ok()) return s;
  if (absl::Status s = CheckBots(t, at); !s.ok()) return s;
  if (absl::Status s = CheckFormat(t, at); !s.ok()) return s;
  return absl::OkStatus();
}

}  // namespace

absl::Status NormalizeTournament(v1::Tournament& t,
                                 const TournamentFileLocations* locations) {
  FieldPath at;
  absl::Status status = Normalize(t, at);
  if (status.ok() || locations == nullptr) return status;
  return Placed(status, at, *locations);
}

absl::StatusOr<std::string> ReadTournamentFile(const std::string& path) {
  const std::string limit = "the 16 MiB a tournament file may hold";
  return ReadBoundedFile(path, BoundedRead{.max_bytes = kMaxTournamentFileBytes,
                                           .pipes = true,
                                           .over_size = limit,
                                           .over_stream = limit,
                                           .open_failure = "cannot open"});
}

}  // namespace pyramid
