#include "tools/tournament/tournament_file.h"

#include <map>
#include <memory>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "referee/cli/text_proto.h"
#include "referee/core/clock_settings.h"
#include "referee/games/registry.h"
#include "tools/tournament/sprt.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

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

}  // namespace

absl::StatusOr<v1::Tournament> ParseTournamentFile(std::string_view text) {
  v1::Tournament tournament;
  if (absl::Status s = ParseTextProto(text, tournament); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a Tournament in text format: ", s.message()));
  }
  return tournament;
}

namespace {

// Each bot has a unique name and a command.
absl::Status CheckBots(const v1::Tournament& t) {
  std::map<std::string, int> seen;
  for (const v1::TournamentBot& bot : t.bots()) {
    if (!IsName(bot.name())) {
      return absl::InvalidArgumentError(
          absl::StrCat("bots: bad bot name \"", bot.name(), "\" (1 to ",
                       kMaxNameBytes, " letters, digits, '.', '_' or '-')"));
    }
    if (seen[bot.name()]++ > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("bots: two bots are named ", bot.name()));
    }
    if (bot.command().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bots: bot ", bot.name(), " has no command"));
    }
  }
  return absl::OkStatus();
}

// An SPRT or a Swiss tournament fits its bots and seats.
absl::Status CheckFormat(const v1::Tournament& t) {
  if (t.has_sprt()) {
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
absl::Status CheckRefereeFields(const v1::Tournament& t) {
  if (t.referee().empty()) {
    if (!t.referee_key().empty()) {
      return absl::InvalidArgumentError(
          "referee_key pins a running referee's key, and no referee is set "
          "(the embedded referee signs with signing_key_file)");
    }
    if (!t.admin_token_file().empty()) {
      return absl::InvalidArgumentError(
          "admin_token_file is a running referee's, and no referee is set");
    }
  } else if (!t.signing_key_file().empty()) {
    return absl::InvalidArgumentError(
        "signing_key_file is the embedded referee's key, and referee names a "
        "running one, which signs with its own (pin it with referee_key)");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status NormalizeTournament(v1::Tournament& t) {
  if (t.name().empty()) t.set_name("tournament");
  if (!IsName(t.name())) {
    return absl::InvalidArgumentError(
        absl::StrCat("name: \"", t.name(), "\" is not 1 to ", kMaxNameBytes,
                     " letters, digits, '.', '_' or '-'"));
  }
  if (t.game().game().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "game: required (one of ", absl::StrJoin(GameIds(), ", "), ")"));
  }
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(t.game());
  if (!game.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("game: ", game.status().message()));
  }
  if (t.seats() == 0) t.set_seats((*game)->min_seats());
  if (t.seats() < static_cast<uint32_t>((*game)->min_seats()) ||
      t.seats() > static_cast<uint32_t>((*game)->max_seats())) {
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
    return absl::InvalidArgumentError(absl::StrCat("clocks: ", s.message()));
  }
  if (t.output_dir().empty()) t.set_output_dir("out/" + t.name());
  if (absl::Status s = CheckRefereeFields(t); !s.ok()) return s;
  if (absl::Status s = CheckBots(t); !s.ok()) return s;
  if (absl::Status s = CheckFormat(t); !s.ok()) return s;
  return absl::OkStatus();
}

}  // namespace pyramid
