// bench_rules: random playouts per second of the rules engines alone (no
// match, no log, no protocol), for every game and seat count of interest.
//
//   bench_rules [--benchmark_filter=shambo] [--benchmark_repetitions=3] ...
//
// A playout is Game::NewInitialState from a seeded RandomStream, then
// uniformly random legal actions until the state is terminal: every acting
// seat (both seats of a simultaneous decision) picks uniformly among
// LegalActions() with a second seeded stream, or takes DefaultAction() when
// the state does not list its actions (a Pyramid Shambo payment with more
// than shambo::kMaxListedOptions options; DefaultAction is its canonical
// payment). Playout k of every run uses the same two seeds, so runs differ
// only in how many playouts fit in the time.
//
// Counters (rates are per CPU second of the benchmark thread):
//   playouts/s  complete playouts;
//   moves/s     actions applied, one per acting seat per decision, automatic
//               ones included (the unit of the verifier's Verdict::moves);
//   moves/game  the average playout length in those moves.
//
// Its flags are Google Benchmark's; a mistake on the command line (an
// unknown flag, a value the flag does not take, a positional argument, a
// --benchmark_filter that names no benchmark or is no regex) is a usage
// error, exit status 2, one line, before any playout
// (tools/benchmark_flags.h).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "pyramid/referee/v1/game.pb.h"
#include "referee/crypto/random_stream.h"
#include "referee/crypto/sha256.h"
#include "referee/games/game.h"
#include "referee/games/registry.h"
#include "tools/benchmark_flags.h"

namespace pyramid {
namespace {

// The seed of stream `stream` (0: the game's, 1: the players') of playout
// `index`.
Digest PlayoutSeed(uint64_t index, int stream) {
  return Sha256({"pyramid bench_rules", absl::StrCat(index, "/", stream)});
}

// Plays one random game to its end; returns the moves applied, or an error
// when the engine refuses an action it listed (a bug, reported as one).
absl::StatusOr<uint64_t> Playout(const Game& game, int num_seats,
                                 uint64_t index) {
  absl::StatusOr<std::unique_ptr<State>> state =
      game.NewInitialState(num_seats, RandomStream(PlayoutSeed(index, 0)));
  if (!state.ok()) return state.status();
  RandomStream players(PlayoutSeed(index, 1));
  uint64_t moves = 0;
  std::vector<SeatAction> actions;
  while (!(*state)->IsTerminal()) {
    actions.clear();
    for (int seat : (*state)->ActingSeats()) {
      SeatAction& action = actions.emplace_back();
      action.seat = seat;
      if (!(*state)->ListsLegalActions()) {
        action.action = (*state)->DefaultAction(seat);
        continue;
      }
      std::vector<v1::Action> legal = (*state)->LegalActions(seat);
      if (legal.empty()) {
        return absl::InternalError(
            absl::StrCat("seat ", seat, " is acting with no legal action"));
      }
      action.action = std::move(legal[players.Uniform(legal.size())]);
    }
    absl::StatusOr<v1::Result> result = (*state)->Apply(actions);
    if (!result.ok()) return result.status();
    moves += actions.size();
  }
  return moves;
}

void BM_Playouts(benchmark::State& bench, const v1::GameConfig& config,
                 int num_seats) {
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(config);
  if (!game.ok()) {
    bench.SkipWithError(std::string(game.status().message()).c_str());
    return;
  }
  uint64_t playouts = 0;
  uint64_t moves = 0;
  for (auto _ : bench) {
    absl::StatusOr<uint64_t> played = Playout(**game, num_seats, playouts);
    if (!played.ok()) {
      bench.SkipWithError(
          absl::StrCat("playout ", playouts, ": ", played.status().message())
              .c_str());
      break;
    }
    ++playouts;
    moves += *played;
  }
  if (bench.error_occurred()) return;
  bench.counters["playouts/s"] = benchmark::Counter(
      static_cast<double>(playouts), benchmark::Counter::kIsRate);
  bench.counters["moves/s"] = benchmark::Counter(static_cast<double>(moves),
                                                 benchmark::Counter::kIsRate);
  bench.counters["moves/game"] = benchmark::Counter(
      static_cast<double>(moves), benchmark::Counter::kAvgIterations);
}

v1::GameConfig Config(const char* game) {
  v1::GameConfig config;
  config.set_game(game);
  return config;
}

v1::GameConfig FlamingConfig(bool curse) {
  v1::GameConfig config = Config("flaming_pyramids");
  config.mutable_flaming_pyramids()->set_curse(curse);
  return config;
}

// Every game at its default options, over the seat counts of interest.
BENCHMARK_CAPTURE(BM_Playouts, rock_paper_pyramid / 3,
                  Config("rock_paper_pyramid"), 3);
BENCHMARK_CAPTURE(BM_Playouts, pyramid_shambo / 2, Config("pyramid_shambo"), 2);
BENCHMARK_CAPTURE(BM_Playouts, pyramid_shambo / 5, Config("pyramid_shambo"), 5);
BENCHMARK_CAPTURE(BM_Playouts, pyramid_shambo / 10, Config("pyramid_shambo"),
                  10);
BENCHMARK_CAPTURE(BM_Playouts, flaming_pyramids / 2, FlamingConfig(false), 2);
BENCHMARK_CAPTURE(BM_Playouts, flaming_pyramids / 4, FlamingConfig(false), 4);
BENCHMARK_CAPTURE(BM_Playouts, flaming_pyramids / 4 / curse,
                  FlamingConfig(true), 4);
BENCHMARK_CAPTURE(BM_Playouts, flaming_pyramids / 6, FlamingConfig(false), 6);
BENCHMARK_CAPTURE(BM_Playouts, pyramid_scheme / 2, Config("pyramid_scheme"), 2);
BENCHMARK_CAPTURE(BM_Playouts, pyramid_scheme / 3, Config("pyramid_scheme"), 3);
BENCHMARK_CAPTURE(BM_Playouts, pyramid_scheme / 4, Config("pyramid_scheme"), 4);

}  // namespace
}  // namespace pyramid

int main(int argc, char** argv) {
  constexpr std::string_view kProgram = "bench_rules";
  pyramid::bench::CheckBenchmarkValues(kProgram, argc, argv);
  benchmark::Initialize(&argc, argv);
  pyramid::bench::RefuseLeftArguments(kProgram, argc, argv);
  pyramid::bench::RunBenchmarks(kProgram);
  benchmark::Shutdown();
  return 0;
}
