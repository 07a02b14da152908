// tournament: hosts a bot competition from one command.
//
//   tournament TOURNAMENT_FILE [--concurrency=N] [--rounds=N]
//              [--output_dir=DIR] [--seed=N] [--format=round_robin|gauntlet]
//              [--referee=ADDR --referee_key=HEX|FILE --admin_token_file=F]
//
// TOURNAMENT_FILE is a pyramid.referee.v1.Tournament in protobuf text format
// (proto/pyramid/referee/v1/tournament.proto). Prints progress, then the
// standings; writes results.json, every log and each bot's output under the
// output directory. Exit status: 0 when every scheduled match was played and
// its log verified; 1 otherwise; 2 for a bad tournament file or flags.
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "google/protobuf/text_format.h"
#include "referee/core/log_sink.h"
#include "tools/tournament/runner.h"
#include "tools/tournament/standings.h"

ABSL_FLAG(int, concurrency, 0, "Matches in flight at once (overrides).");
ABSL_FLAG(int, rounds, 0, "Times the schedule is played (overrides).");
ABSL_FLAG(std::string, output_dir, "", "Output directory (overrides).");
ABSL_FLAG(int64_t, seed, -1, "Order seed (overrides).");
ABSL_FLAG(std::string, format, "", "round_robin or gauntlet (overrides).");
ABSL_FLAG(std::string, referee, "", "Use this running referee (overrides).");
ABSL_FLAG(std::string, referee_key, "", "Its public key (overrides).");
ABSL_FLAG(std::string, admin_token_file, "", "Its admin token (overrides).");

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

int Main(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) {
    std::cerr << "tournament: " << text.status().message() << "\n";
    return 2;
  }
  v1::Tournament tournament;
  if (!google::protobuf::TextFormat::ParseFromString(*text, &tournament)) {
    std::cerr << "tournament: " << path << " is not a Tournament in text "
              << "format\n";
    return 2;
  }
  if (absl::GetFlag(FLAGS_concurrency) > 0) {
    tournament.set_concurrency(absl::GetFlag(FLAGS_concurrency));
  }
  if (absl::GetFlag(FLAGS_rounds) > 0) {
    tournament.set_rounds(absl::GetFlag(FLAGS_rounds));
  }
  if (!absl::GetFlag(FLAGS_output_dir).empty()) {
    tournament.set_output_dir(absl::GetFlag(FLAGS_output_dir));
  }
  if (absl::GetFlag(FLAGS_seed) >= 0) tournament.set_seed(absl::GetFlag(FLAGS_seed));
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format == "round_robin") tournament.set_format(v1::ROUND_ROBIN);
  if (format == "gauntlet") tournament.set_format(v1::GAUNTLET);
  if (!format.empty() && format != "round_robin" && format != "gauntlet") {
    std::cerr << "tournament: --format is round_robin or gauntlet\n";
    return 2;
  }
  if (!absl::GetFlag(FLAGS_referee).empty()) {
    tournament.set_referee(absl::GetFlag(FLAGS_referee));
  }
  if (!absl::GetFlag(FLAGS_referee_key).empty()) {
    tournament.set_referee_key(absl::GetFlag(FLAGS_referee_key));
  }
  if (!absl::GetFlag(FLAGS_admin_token_file).empty()) {
    tournament.set_admin_token_file(absl::GetFlag(FLAGS_admin_token_file));
  }
  absl::StatusOr<v1::TournamentResults> results =
      RunTournament(tournament, std::cerr, isatty(STDERR_FILENO) == 1);
  if (!results.ok()) {
    std::cerr << "tournament: " << results.status().message() << "\n";
    return results.status().code() == absl::StatusCode::kInvalidArgument ? 2
                                                                          : 1;
  }
  std::cout << "\n" << results->name() << " (" << results->game().game()
            << "): " << results->verified() << " of " << results->scheduled()
            << " match logs verified against referee key "
            << results->referee_public_key() << "\n\n";
  std::vector<v1::TournamentStanding> standings(results->standings().begin(),
                                                results->standings().end());
  std::cout << FormatStandings(standings);
  for (const v1::TournamentMatchResult& match : results->matches()) {
    if (match.verdict() != "genuine") {
      std::cout << "match " << match.index() << " (" << match.match_id()
                << ") not counted: " << match.verdict() << "\n";
    }
  }
  const std::string out = tournament.output_dir().empty()
                              ? "out/" + results->name()
                              : tournament.output_dir();
  std::cout << "\nlogs and results.json in " << out << "\n";
  return results->verified() == results->scheduled() ? 0 : 1;
}

}  // namespace
}  // namespace pyramid

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Hosts a bot competition: tournament TOURNAMENT_FILE [flags]");
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() != 2) {
    std::cerr << "usage: tournament TOURNAMENT_FILE [flags]\n";
    return 2;
  }
  return pyramid::Main(rest[1]);
}
