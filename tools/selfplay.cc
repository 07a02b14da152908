// selfplay: plays matches in-process between random players and writes their
// signed logs (the referee core without a network).
//
//   selfplay --game=rock_paper_pyramid --matches=5 --out=DIR
//            [--options='rock_paper_pyramid { red: true }'] [--key=FILE]
//            [--deterministic=HEX32] [--checkpoint_interval=N]
//
// Exit status: 0 when every match was played and its log written; 1 for a
// match that failed; 2 for a mistake in the command line (an unknown flag or
// a value of the wrong type, an unknown game, bad --options, a seat count the
// game does not take, a negative count, a bad --deterministic, a --key that
// cannot be read), found before anything is written, or an --out that cannot be
// made.
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "referee/cli/program.h"
#include "referee/cli/text_proto.h"
#include "referee/core/local_runner.h"
#include "referee/core/log_format.h"
#include "referee/core/log_sink.h"
#include "referee/core/match.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/sha256.h"
#include "referee/games/description.h"
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

// A fresh referee key drawn from `entropy`, written to OUT/referee.key (and
// .pub): selfplay's key when --key is not given.
absl::StatusOr<SigningKey> FreshKey(const std::filesystem::path& out,
                                    const EntropySource& entropy) {
  std::string seed(32, '\0');
  entropy(seed.data(), seed.size());
  const SigningKey key = *SigningKey::FromSeed(seed);
  const std::string path = (out / "referee.key").string();
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".pub");
  if (absl::Status s = WriteKeyFiles(path, key); !s.ok()) return s;
  return key;
}

// Plays one match of random players into OUT/<game>-<match id>.pyrlog and
// returns that path. The log is written as OUT/.match.tmp and renamed once
// the match is over; a failed match leaves no file behind.
absl::StatusOr<std::filesystem::path> PlayOne(
    const v1::GameConfig& config, int seats, const SigningKey& key,
    const Clock* clock, const EntropySource& entropy,
    const std::filesystem::path& out) {
  MatchConfig match_config;
  match_config.game = config;
  for (int s = 0; s < seats; ++s) {
    match_config.seats.emplace_back().set_name(absl::StrCat("random-", s));
  }
  match_config.checkpoint_interval = absl::GetFlag(FLAGS_checkpoint_interval);
  const std::string tmp = (out / ".match.tmp").string();
  std::filesystem::remove(tmp);
  absl::StatusOr<std::unique_ptr<FileLogSink>> sink = FileLogSink::Create(tmp);
  if (!sink.ok()) return sink.status();
  absl::StatusOr<std::unique_ptr<Match>> match =
      Match::Create(match_config, key, *std::move(sink), clock, entropy);
  absl::Status played = match.status();
  if (played.ok()) played = RunRandomMatch(**match, entropy);
  if (!played.ok()) {
    match = absl::CancelledError();  // Closes the file.
    std::filesystem::remove(tmp);
    return absl::Status(played.code(),
                        absl::StrCat("match failed: ", played.message()));
  }
  const std::filesystem::path final_path =
      out / log_format::FileName(config.game(), ToHex((*match)->match_id()));
  (*match).reset();  // Closes the file.
  std::filesystem::rename(tmp, final_path);
  if (absl::Status s = MakeLogPublic(final_path.string()); !s.ok()) return s;
  return final_path;
}

int Main() {
  v1::GameConfig config;
  config.set_game(absl::GetFlag(FLAGS_game));
  if (absl::Status s = MergeTextProto(absl::GetFlag(FLAGS_options), config);
      !s.ok()) {
    std::cerr << "selfplay: cannot parse --options: " << s.message() << "\n";
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
  if (absl::GetFlag(FLAGS_matches) < 0 || absl::GetFlag(FLAGS_seats) < 0) {
    std::cerr << "selfplay: --matches and --seats are not negative\n";
    return 2;
  }
  if (seats < (*game)->min_seats() || seats > (*game)->max_seats()) {
    std::cerr << "selfplay: --seats: " << config.game() << " takes "
              << SeatCounts((*game)->description()) << " seats, not " << seats
              << "\n";
    return 2;
  }
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
  // --key is read before anything is written: a mistyped path leaves no
  // output directory behind.
  std::optional<SigningKey> given_key;
  if (!absl::GetFlag(FLAGS_key).empty()) {
    absl::StatusOr<SigningKey> read = ReadSigningKey(absl::GetFlag(FLAGS_key));
    if (!read.ok()) {
      std::cerr << "selfplay: --key: " << read.status().message() << "\n";
      return 2;
    }
    given_key = *std::move(read);
  }

  // Every flag is checked: from here on, files are written.
  const std::filesystem::path out = absl::GetFlag(FLAGS_out);
  std::error_code error;
  std::filesystem::create_directories(out, error);
  if (error) {
    std::cerr << "selfplay: --out " << out.string() << ": " << error.message()
              << "\n";
    return 2;
  }
  EntropySource entropy =
      deterministic ? DeterministicEntropy(*deterministic) : SystemEntropy();
  absl::StatusOr<SigningKey> key = given_key.has_value()
                                       ? absl::StatusOr<SigningKey>(*given_key)
                                       : FreshKey(out, entropy);
  if (!key.ok()) {
    std::cerr << "selfplay: " << key.status().message() << "\n";
    return 2;
  }
  FakeClock fake_clock;
  const Clock* clock = deterministic ? static_cast<const Clock*>(&fake_clock)
                                     : SystemClock::Get();
  for (int m = 0; m < absl::GetFlag(FLAGS_matches); ++m) {
    absl::StatusOr<std::filesystem::path> written =
        PlayOne(config, seats, *key, clock, entropy, out);
    if (!written.ok()) {
      std::cerr << "selfplay: " << written.status().message() << "\n";
      return 1;
    }
    std::cout << written->string() << "\n";
  }
  return 0;
}

}  // namespace
}  // namespace pyramid

int main(int argc, char** argv) {
  pyramid::InitFlagsOnlyProgram(
      argc, argv,
      "Plays in-process matches between random players and writes their "
      "signed logs.");
  return pyramid::Main();
}
