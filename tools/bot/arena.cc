// arena: plays seeded games between reference-bot strategies in process (no
// network) and prints how each strategy did. Each seat sees exactly the
// DecisionRequest the referee would send it; players rotate through the
// seats so that each takes every seat equally often.
//
//   arena --game=pyramid_shambo --seats=3 --games=999
//         --strategies=heuristic,random,random [--seed=1]
//         [--options='pyramid_shambo { max_throws: 500 }']
//
// Per strategy: games played, mean pairwise score (per game, +1 per seat
// ranked below, +0.5 per seat sharing the rank, divided by seats - 1; a
// strategy on several seats of a game counts their mean) with its 95%
// interval, and firsts (its seats ranked 1, ties included).
//
// Exit status: 0 when every game was played; 2 for a bad flag value (an
// unknown game or strategy, a seat count the game does not take, a
// strategy count other than the seats, games not a multiple of the seats);
// 1 when a strategy chose an illegal action.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_split.h"
#include "referee/cli/program.h"
#include "referee/cli/text_proto.h"
#include "tools/bot/arena_runner.h"

ABSL_FLAG(std::string, game, "pyramid_shambo", "Game id.");
ABSL_FLAG(std::string, options, "",
          "Game options as protobuf text, e.g. 'pyramid_shambo { max_throws: "
          "500 }'.");
ABSL_FLAG(int, seats, 2, "Seats per game.");
ABSL_FLAG(int, games, 1000, "Games to play (a multiple of --seats).");
ABSL_FLAG(std::string, strategies, "heuristic,random",
          "One strategy per seat, comma-separated (e.g. heuristic,random).");
ABSL_FLAG(std::string, seed, "1",
          "Keys every draw (game seeds, strategies' streams): the same flags "
          "give the same results.");

namespace pyramid {
namespace {

int Main() {
  ArenaOptions options;
  options.game.set_game(absl::GetFlag(FLAGS_game));
  if (absl::Status s =
          MergeTextProto(absl::GetFlag(FLAGS_options), options.game);
      !s.ok()) {
    std::cerr << "arena: cannot parse --options: " << s.message() << "\n";
    return 2;
  }
  options.seats = absl::GetFlag(FLAGS_seats);
  options.games = absl::GetFlag(FLAGS_games);
  options.strategies = absl::StrSplit(absl::GetFlag(FLAGS_strategies), ',');
  options.seed = absl::GetFlag(FLAGS_seed);
  absl::StatusOr<std::vector<StrategyResult>> results = RunArena(options);
  if (!results.ok()) {
    std::cerr << "arena: " << results.status().message() << "\n";
    // A bad flag value is a usage error, as in every program; a strategy's
    // illegal action (INTERNAL) is a failure.
    return results.status().code() == absl::StatusCode::kInternal ? 1 : 2;
  }
  std::printf("%s, %d seats, %d games, seed \"%s\"\n",
              options.game.game().c_str(), options.seats, options.games,
              options.seed.c_str());
  std::printf("%-12s %7s %10s %18s %8s\n", "strategy", "games", "mean score",
              "95% interval", "firsts");
  for (const StrategyResult& r : *results) {
    const double mean = r.MeanScore();
    const double half = r.HalfInterval95();
    std::printf("%-12s %7d %10.4f   [%.4f, %.4f] %8d\n", r.name.c_str(),
                r.games, mean, mean - half, mean + half, r.firsts);
  }
  return 0;
}

}  // namespace
}  // namespace pyramid

int main(int argc, char** argv) {
  pyramid::InitFlagsOnlyProgram(
      argc, argv,
      "Plays reference-bot strategies against each other in process.");
  return pyramid::Main();
}
