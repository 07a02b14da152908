// bench_html: how much the match viewer page (`replay html`) costs to render,
// beyond verifying the same logs, as the tournament runner does both.
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
//       tournament's verification of each fetched log alone (the baseline);
//   (w) RenderMatchPage(log, options) with the same options: the verdict
//       and the viewer page, with one replay of the rules for both, as the
//       tournament makes them (tools/tournament/runner.cc, VerifyAndShow).
// The page's cost (p) is a round's (w) less its (v). Times are the thread's
// CPU time, each the median of the rounds, and the ratio (p)/(v) the median
// of the rounds' own ratios: compare that ratio across runs, not the times
// (this machine's speed moves by 15-30% from one minute to the next). Each
// game's report ends with one line of key=value pairs for scripts:
//   game=ID pages_per_s=N bytes_per_page=N page_to_verify=(p)/(v)
//
// A bad flag or value (an unknown game, a seat count one of the games does
// not take) is a usage error, exit status 2, before any log is played;
// status 1 is a log that did not verify or could not be played.
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
#include "referee/core/log_sink.h"
#include "referee/core/match.h"
#include "referee/games/registry.h"
#include "replay/html_page.h"
#include "replay/verifier.h"
#include "tools/bench_common.h"

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

// The logs of `count` matches of `game` at `seats` seats, each with the
// game's default options.
absl::StatusOr<bench::PlayedLogs> Generate(const std::string& game, int seats,
                                           int count) {
  return bench::PlayLogs("pyramid bench_html corpus", 1, count, [&](int) {
    MatchConfig config;
    config.game.set_game(game);
    config.fsync = FsyncPolicy::kNever;
    for (int s = 0; s < seats; ++s) {
      config.seats.emplace_back().set_name(absl::StrCat("random-", s));
    }
    return config;
  });
}

// Verifies every log (the round's verdicts into `verdicts`); exits unless
// every one is genuine.
void VerifyAll(const bench::PlayedLogs& corpus, const VerifyOptions& options,
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

// Verifies every log and renders its page; returns the pages' total size in
// bytes. Exits unless every log is genuine.
uint64_t RenderAll(const bench::PlayedLogs& corpus,
                   const VerifyOptions& options) {
  uint64_t bytes = 0;
  for (const std::string& log : corpus.logs) {
    const MatchPage page = RenderMatchPage(log, options);
    if (page.verdict.kind != Verdict::Kind::kGenuine) {
      std::cerr << "bench_html: a generated log does not verify: "
                << page.verdict.reason << "\n";
      std::exit(1);
    }
    bytes += page.html.size();
  }
  bench::Keep(bytes);
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
  absl::StatusOr<bench::PlayedLogs> corpus = Generate(game, seats, count);
  if (!corpus.ok()) {
    std::cerr << "bench_html: generating " << game
              << " logs: " << corpus.status().message() << "\n";
    return std::nullopt;
  }
  VerifyOptions options;
  options.pinned_key = corpus->public_keys[0];
  std::vector<Verdict> verdicts;
  VerifyAll(*corpus, options, verdicts);  // Warm-up.
  const uint64_t page_bytes = RenderAll(*corpus, options);
  enum Phase { kVerify, kVerifiedPage };
  const bench::Rounds rounds =
      bench::TimeRounds(reps, {[&] { VerifyAll(*corpus, options, verdicts); },
                               [&] { RenderAll(*corpus, options); }});
  // The page's own cost in a round: (w) - (v).
  auto page_of = [](const std::vector<double>& r) {
    return r[kVerifiedPage] - r[kVerify];
  };
  std::vector<double> pages;
  for (const std::vector<double>& round : rounds) {
    pages.push_back(page_of(round));
  }
  const double logs = static_cast<double>(count);
  const double verify = bench::MedianTime(rounds, kVerify);
  const double verified_page = bench::MedianTime(rounds, kVerifiedPage);
  const double page = bench::Median(pages);
  const double ratio = bench::MedianRatio(rounds, kVerify, page_of);
  std::printf(
      "%s: %d logs, %d seats, %.0f bytes per log; thread CPU time, median "
      "of %d rounds\n",
      game.c_str(), count, seats, corpus->bytes / logs, reps);
  std::printf("  (v) verify, full, key pinned   %8.1f ms %9.0f logs/s\n",
              verify * 1e3, logs / verify);
  std::printf("  (w) verify and page, one call  %8.1f ms %9.0f pages/s\n",
              verified_page * 1e3, logs / verified_page);
  std::printf(
      "  (p) viewer page: (w) - (v)     %8.1f ms %9.0f pages/s  %.0f "
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
  if (!bench::PositiveCounts("bench_html", count, reps)) return 2;
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
  // --seats, checked for every game before any log is played.
  const int seats = absl::GetFlag(FLAGS_seats);
  for (const std::string& id : games) {
    const GameDescription* description = FindGame(id);
    if (seats != 0 && description != nullptr &&
        (seats < description->min_seats || seats > description->max_seats)) {
      std::cerr << "bench_html: --seats: " << id << " takes "
                << SeatCounts(*description) << " seats, not " << seats
                << " (0: the game's minimum)\n";
      return 2;
    }
  }
  return bench::ReportEachGame(games.size(), /*separate=*/false, [&](size_t i) {
    return RunGame(games[i], count, reps);
  });
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
