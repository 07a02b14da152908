// bench_html: how much the match viewer page (`replay html`) costs to render,
// against verifying the same logs, as the tournament runner does both.
//
//   bench_html [--game=rock_paper_pyramid|...|all] [--seats=0] [--logs=200]
//              [--reps=5]
//
// Plays --logs matches of --game (every game in turn with --game=all)
// in-process between random players (deterministic entropy, fake clock, the
// game's default options, --seats seats or, when 0, the game's minimum) and
// keeps their logs in memory. Then, single-threaded, in --reps rounds that
// each run both phases once (so that a slower stretch of a noisy machine
// slows both phases of a round alike), it times:
//   (v) VerifyLog with every check, the referee's key pinned: the
//       tournament's verification of each fetched log (the baseline);
//   (p) RenderMatchPage(log, verdict) given (v)'s verdict: the tournament's
//       viewer page (tools/tournament/runner.cc, VerifyAndShow).
// Times are the thread's CPU time, each phase's the median of the rounds,
// and the ratio (p)/(v) the median of the rounds' own ratios: compare that
// ratio across runs, not the times (this machine's speed moves by 15-30%
// from one minute to the next). Each game's report ends with one line of
// key=value pairs for scripts:
//   game=ID pages_per_s=N bytes_per_page=N page_to_verify=(p)/(v)
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "referee/cli/program.h"
#include "referee/core/clock.h"
#include "referee/core/local_runner.h"
#include "referee/core/log_sink.h"
#include "referee/core/match.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/sha256.h"
#include "referee/games/registry.h"
#include "replay/html_page.h"
#include "replay/verifier.h"

ABSL_FLAG(std::string, game, "all",
          "Game id of the matches whose pages are rendered, or all (each game "
          "in turn).");
ABSL_FLAG(int, seats, 0, "Seats per match; 0: the game's minimum.");
ABSL_FLAG(int, logs, 200, "Number of logs per game.");
ABSL_FLAG(int, reps, 5, "Timed rounds (medians reported).");

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

constexpr const char* kGameIds[] = {"rock_paper_pyramid", "pyramid_shambo",
                                    "flaming_pyramids", "pyramid_scheme"};

struct Corpus {
  std::vector<std::string> logs;
  std::string public_key;  // The referee's, pinned when verifying.
  uint64_t log_bytes = 0;
};

// Plays `count` matches of `game` at `seats` seats into `corpus`.
absl::Status Generate(const std::string& game, int seats, int count,
                      Corpus& corpus) {
  const EntropySource entropy =
      DeterministicEntropy(Sha256("pyramid bench_html corpus"));
  std::string seed(kKeySeedSize, '\0');
  entropy(seed.data(), seed.size());
  const SigningKey key = *SigningKey::FromSeed(seed);
  corpus.public_key = key.public_key();
  FakeClock clock;
  for (int i = 0; i < count; ++i) {
    MatchConfig config;
    config.game.set_game(game);
    config.fsync = FsyncPolicy::kNever;
    for (int s = 0; s < seats; ++s) {
      config.seats.emplace_back().set_name(absl::StrCat("random-", s));
    }
    std::string log;
    absl::StatusOr<std::unique_ptr<Match>> match = Match::Create(
        config, key, std::make_unique<StringLogSink>(&log), &clock, entropy);
    if (!match.ok()) return match.status();
    std::vector<std::unique_ptr<RandomPlayer>> players;
    std::vector<Player*> seated;
    for (int s = 0; s < seats; ++s) {
      std::string player_seed(32, '\0');
      entropy(player_seed.data(), player_seed.size());
      players.push_back(std::make_unique<RandomPlayer>(Sha256(player_seed)));
      seated.push_back(players.back().get());
    }
    if (absl::Status s = RunLocalMatch(**match, seated, entropy); !s.ok()) {
      return s;
    }
    match->reset();
    clock.Advance(absl::Seconds(1));
    corpus.log_bytes += log.size();
    corpus.logs.push_back(std::move(log));
  }
  return absl::OkStatus();
}

// CPU time of the calling thread, in seconds.
double ThreadCpuSeconds() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + now.tv_nsec * 1e-9;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid]
                                : (values[mid - 1] + values[mid]) / 2;
}

// Keeps the optimiser from dropping work whose result is otherwise unused.
volatile uint64_t g_sink = 0;

// Verifies every log (the round's verdicts into `verdicts`); exits unless
// every one is genuine.
void VerifyAll(const Corpus& corpus, const VerifyOptions& options,
               std::vector<Verdict>& verdicts) {
  verdicts.clear();
  for (const std::string& log : corpus.logs) {
    verdicts.push_back(VerifyLog(log, options));
    if (verdicts.back().kind != Verdict::Kind::kGenuine) {
      std::cerr << "bench_html: a generated log does not verify: "
                << verdicts.back().reason << "\n";
      std::exit(1);
    }
  }
}

// Renders every log's page; returns the pages' total size in bytes.
uint64_t RenderAll(const Corpus& corpus, const std::vector<Verdict>& verdicts) {
  uint64_t bytes = 0;
  for (size_t i = 0; i < corpus.logs.size(); ++i) {
    bytes += RenderMatchPage(corpus.logs[i], verdicts[i]).html.size();
  }
  g_sink = g_sink + bytes;
  return bytes;
}

// Generates and times the corpus of `game`; prints its report and returns
// its key=value line, or nullopt after printing an error.
std::optional<std::string> RunGame(const std::string& game, int count,
                                   int reps) {
  v1::GameConfig config;
  config.set_game(game);
  absl::StatusOr<std::unique_ptr<Game>> rules = MakeGame(config);
  if (!rules.ok()) {
    std::cerr << "bench_html: " << rules.status().message() << "\n";
    return std::nullopt;
  }
  const int seats = absl::GetFlag(FLAGS_seats) == 0
                        ? (*rules)->min_seats()
                        : absl::GetFlag(FLAGS_seats);
  Corpus corpus;
  if (absl::Status s = Generate(game, seats, count, corpus); !s.ok()) {
    std::cerr << "bench_html: generating " << game << " logs: " << s.message()
              << "\n";
    return std::nullopt;
  }
  VerifyOptions options;
  options.pinned_key = corpus.public_key;
  std::vector<Verdict> verdicts;
  VerifyAll(corpus, options, verdicts);  // Warm-up.
  const uint64_t page_bytes = RenderAll(corpus, verdicts);
  std::vector<double> verify_times, page_times, ratios;
  for (int round = 0; round < reps; ++round) {
    double start = ThreadCpuSeconds();
    VerifyAll(corpus, options, verdicts);
    const double verify = ThreadCpuSeconds() - start;
    start = ThreadCpuSeconds();
    RenderAll(corpus, verdicts);
    const double page = ThreadCpuSeconds() - start;
    verify_times.push_back(verify);
    page_times.push_back(page);
    ratios.push_back(page / verify);
  }
  const double logs = static_cast<double>(count);
  const double verify = Median(verify_times);
  const double page = Median(page_times);
  const double ratio = Median(ratios);
  std::printf(
      "%s: %d logs, %d seats, %.0f bytes per log; thread CPU time, median "
      "of %d rounds\n",
      game.c_str(), count, seats, corpus.log_bytes / logs, reps);
  std::printf("  (v) verify, full, key pinned   %8.1f ms %9.0f logs/s\n",
              verify * 1e3, logs / verify);
  std::printf(
      "  (p) viewer page, given (v)     %8.1f ms %9.0f pages/s  %.0f "
      "bytes/page\n",
      page * 1e3, logs / page, page_bytes / logs);
  std::printf("  (p)/(v) = %.2fx (median of the rounds' ratios)\n", ratio);
  return absl::StrFormat(
      "game=%s pages_per_s=%.0f bytes_per_page=%.0f page_to_verify=%.2f", game,
      logs / page, page_bytes / logs, ratio);
}

int Main() {
  const int count = absl::GetFlag(FLAGS_logs);
  const int reps = absl::GetFlag(FLAGS_reps);
  if (count < 1 || reps < 1) {
    std::cerr << "bench_html: --logs and --reps must be positive\n";
    return 2;
  }
  const std::string game = absl::GetFlag(FLAGS_game);
  std::vector<std::string> games;
  for (const char* id : kGameIds) {
    if (game == "all" || game == id) games.push_back(id);
  }
  if (games.empty()) {
    std::cerr << "bench_html: unknown --game " << game
              << "; one of: rock_paper_pyramid pyramid_shambo "
                 "flaming_pyramids pyramid_scheme all\n";
    return 2;
  }
  std::vector<std::string> lines;
  for (const std::string& id : games) {
    std::optional<std::string> line = RunGame(id, count, reps);
    if (!line) return 1;
    lines.push_back(*std::move(line));
  }
  std::printf("\n");
  for (const std::string& line : lines) std::printf("%s\n", line.c_str());
  return 0;
}

}  // namespace
}  // namespace pyramid

int main(int argc, char** argv) {
  pyramid::InitFlagsOnlyProgram(
      argc, argv,
      "Benchmarks the match viewer page (replay html) against verifying the "
      "same in-memory logs, for one game or every game.");
  return pyramid::Main();
}
