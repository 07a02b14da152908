// selfplay: plays matches in-process between random players and writes their
// signed logs (the referee core without a network).
//
//   selfplay --game=rock_paper_pyramid --matches=5 --out=DIR
//            [--options='rock_paper_pyramid { red: true }'] [--key=FILE]
//            [--deterministic=HEX32] [--checkpoint_interval=N]
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/text_format.h"
#include "referee/cli/flags.h"
#include "referee/core/local_runner.h"
#include "referee/core/match.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/sha256.h"
#include "referee/games/registry.h"

ABSL_FLAG(std::string, game, "rock_paper_pyramid", "Game id.");
ABSL_FLAG(std::string, options, "",
          "Game options as protobuf text, e.g. 'rock_paper_pyramid { red: "
          "true }'.");
ABSL_FLAG(int, seats, 0, "Seats per match (0: the game's minimum).");
ABSL_FLAG(int, matches, 5, "Number of matches.");
ABSL_FLAG(std::string, out, "out/selfplay", "Directory for the logs.");
ABSL_FLAG(std::string, key, "",
          "Referee secret key file (keygen format); empty: a fresh key, "
          "written to OUT/referee.key.");
ABSL_FLAG(std::string, deterministic, "",
          "64 hex digits: derive every random byte (ids, salts, seeds, "
          "players) from this, and use a fake clock. For reproducible logs "
          "only.");
ABSL_FLAG(uint32_t, checkpoint_interval, 16, "Records between checkpoints.");

namespace pyramid {
namespace {

int Main() {
  v1::GameConfig config;
  config.set_game(absl::GetFlag(FLAGS_game));
  if (!google::protobuf::TextFormat::MergeFromString(
          absl::GetFlag(FLAGS_options), &config)) {
    std::cerr << "selfplay: cannot parse --options\n";
    return 2;
  }
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(config);
  if (!game.ok()) {
    std::cerr << "selfplay: " << game.status().message() << "\n";
    return 2;
  }
  const int seats = absl::GetFlag(FLAGS_seats) == 0
                        ? (*game)->min_seats()
                        : absl::GetFlag(FLAGS_seats);
  const std::filesystem::path out = absl::GetFlag(FLAGS_out);
  std::filesystem::create_directories(out);

  std::optional<Digest> deterministic;
  if (!absl::GetFlag(FLAGS_deterministic).empty()) {
    absl::StatusOr<std::string> bytes =
        FromHex(absl::GetFlag(FLAGS_deterministic));
    if (!bytes.ok() || bytes->size() != 32) {
      std::cerr << "selfplay: --deterministic takes 64 hex digits\n";
      return 2;
    }
    deterministic = Sha256(*bytes);
  }
  EntropySource entropy =
      deterministic ? DeterministicEntropy(*deterministic) : SystemEntropy();

  std::optional<SigningKey> key;
  if (!absl::GetFlag(FLAGS_key).empty()) {
    absl::StatusOr<SigningKey> read = ReadSigningKey(absl::GetFlag(FLAGS_key));
    if (!read.ok()) {
      std::cerr << "selfplay: " << read.status().message() << "\n";
      return 2;
    }
    key = *read;
  } else {
    std::string seed(32, '\0');
    entropy(seed.data(), seed.size());
    key = *SigningKey::FromSeed(seed);
    const std::string path = (out / "referee.key").string();
    std::filesystem::remove(path);
    std::filesystem::remove(path + ".pub");
    if (absl::Status s = WriteKeyFiles(path, *key); !s.ok()) {
      std::cerr << "selfplay: " << s.message() << "\n";
      return 2;
    }
  }

  FakeClock fake_clock;
  const Clock* clock = deterministic ? static_cast<const Clock*>(&fake_clock)
                                     : SystemClock::Get();
  for (int m = 0; m < absl::GetFlag(FLAGS_matches); ++m) {
    MatchConfig match_config;
    match_config.game = config;
    for (int s = 0; s < seats; ++s) {
      v1::Seat seat;
      seat.set_name(absl::StrCat("random-", s));
      match_config.seats.push_back(seat);
    }
    match_config.checkpoint_interval = absl::GetFlag(FLAGS_checkpoint_interval);
    const std::string tmp = (out / ".match.tmp").string();
    std::filesystem::remove(tmp);
    absl::StatusOr<std::unique_ptr<FileLogSink>> sink =
        FileLogSink::Create(tmp);
    if (!sink.ok()) {
      std::cerr << "selfplay: " << sink.status().message() << "\n";
      return 2;
    }
    absl::StatusOr<std::unique_ptr<Match>> match =
        Match::Create(match_config, *key, *std::move(sink), clock, entropy);
    if (!match.ok()) {
      std::cerr << "selfplay: " << match.status().message() << "\n";
      return 2;
    }
    std::vector<std::unique_ptr<RandomPlayer>> players;
    std::vector<Player*> seats_players;
    for (int s = 0; s < seats; ++s) {
      std::string player_seed(32, '\0');
      entropy(player_seed.data(), player_seed.size());
      players.push_back(std::make_unique<RandomPlayer>(Sha256(player_seed)));
      seats_players.push_back(players.back().get());
    }
    if (absl::Status s = RunLocalMatch(**match, seats_players, entropy);
        !s.ok()) {
      std::cerr << "selfplay: match failed: " << s.message() << "\n";
      return 1;
    }
    const std::string name = absl::StrCat(
        config.game(), "-", ToHex((*match)->match_id()), ".pyrlog");
    const std::filesystem::path final_path = out / name;
    (*match).reset();  // Closes the file.
    std::filesystem::rename(tmp, final_path);
    std::cout << final_path.string() << "\n";
  }
  return 0;
}

}  // namespace
}  // namespace pyramid

int main(int argc, char** argv) {
  std::vector<char*> rest = pyramid::ParseFlags(
      argc, argv,
      "Plays in-process matches between random players and writes their "
      "signed logs.");
  if (rest.size() > 1) {
    std::cerr << "selfplay takes no positional arguments\n";
    return 2;
  }
  return pyramid::Main();
}
