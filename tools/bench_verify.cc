// bench_verify: how fast the verifier judges logs, against the floor any
// verifier must pay (SHA-256 of every record's stored bytes).
//
//   bench_verify [--game=rock_paper_pyramid|...|all] [--seats=0]
//                [--logs=10000] [--reps=5] [--phases=abcd]
//
// A bad flag or value (an unknown game, a seat count the game does not
// take, --phases with a letter other than a, b, c or d) is a usage error,
// exit status 2, before any log is played; status 1 is a log or signature
// the verifier refused, or logs that could not be played.
//
// Plays --logs matches of --game (every game in turn with --game=all)
// in-process between random players (deterministic entropy, fake clock,
// options varied per match: the game's own, see kGames, then the seat
// count, checkpoint interval, forfeit policy and clocks), with --seats seats
// or, when 0, every seat count of the game in turn; keeps their logs in
// memory, then times single-threaded, in --reps rounds that each run every
// phase once (so that a slower stretch of a noisy machine slows every phase
// of a round alike), and prints each phase's median:
//   (a) the hash floor: SplitLog plus SHA-256 of every record's stored bytes
//       (exactly the bytes the verifier hashes for the chain);
//   (b) VerifyLog with check_signatures = false (everything but Ed25519);
//   (c) the Ed25519 verifications a full verify needs, alone: one referee
//       signature per log (its seal; docs/log-format.md, "Which signatures
//       are checked") and every seat commit signature (the corpus's seats
//       have no keys, so there are none);
//   (d) VerifyLog with every check.
// The targets (issue 18): (b) <= 2 x (a) for every game, and (d) close to
// its bound (a) + (c). Times are the thread's CPU time, so that a busy
// machine disturbs the ratios less than it would wall time, and each ratio
// to the floor is the median of the rounds' own ratios. Each game's report
// ends with one line of key=value pairs for scripts:
//   game=ID floor_ratio=(b)/(a) full_ratio_sigs=(d)/(a)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/cli/program.h"
#include "referee/core/log_reader.h"
#include "referee/core/log_sink.h"
#include "referee/core/match.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/sha256.h"
#include "referee/games/registry.h"
#include "replay/verifier.h"
#include "tools/bench_common.h"

ABSL_FLAG(std::string, game, "rock_paper_pyramid",
          "Game id of the matches whose logs are verified, or all (each "
          "game in turn).");
ABSL_FLAG(int, seats, 0,
          "Seats per match; 0: every seat count of the game, in turn.");
ABSL_FLAG(int, logs, 10000, "Number of logs to generate and verify.");
ABSL_FLAG(int, reps, 5, "Timed repetitions of each phase (median reported).");
ABSL_FLAG(std::string, phases, "abcd",
          "Phases to time, letters among a, b, c and d, e.g. 'ab' (to "
          "profile one of them); the others print as skipped.");

namespace pyramid {
namespace {

// What the corpus holds, for the per-unit rates.
struct Corpus {
  std::vector<std::string> logs;
  uint64_t bytes = 0;
  uint64_t records = 0;
  uint64_t moves = 0;  // From the verifier's verdicts.
  // The signatures a full verify checks: each log's last referee signature
  // and every seat commit signature; the exact message verified.
  struct SignatureCheck {
    std::string public_key;
    std::string message;
    std::string signature;
  };
  std::vector<SignatureCheck> signatures;
};

// How the corpus varies one game's options: `variants` settings, the v-th
// set on the match's GameConfig by `apply(v, config)`.
struct GameVariants {
  const char* id;
  const char* name;    // For the report.
  const char* varied;  // What the variants vary, for the report ("" if none).
  int variants;
  void (*apply)(int variant, v1::GameConfig& config);
};

constexpr GameVariants kGames[] = {
    {"rock_paper_pyramid", "Rock, Paper, Pyramid!", "red x winner_takes x ", 4,
     [](int variant, v1::GameConfig& config) {
       v1::RockPaperPyramidOptions* options =
           config.mutable_rock_paper_pyramid();
       options->set_red(variant % 2 == 1);
       options->set_winner_takes(variant / 2 == 1 ? v1::RPP_TAKES_ALL
                                                  : v1::RPP_TAKES_CAPTURED);
     }},
    {"pyramid_shambo", "Pyramid Shambo", "", 1, [](int, v1::GameConfig&) {}},
    {"flaming_pyramids", "Flaming Pyramids", "curse x ", 2,
     [](int variant, v1::GameConfig& config) {
       config.mutable_flaming_pyramids()->set_curse(variant == 1);
     }},
    {"pyramid_scheme", "Pyramid Scheme", "", 1, [](int, v1::GameConfig&) {}},
};

// What the corpus plays: one game, at a fixed seat count or at each of
// [min_seats, max_seats] in turn.
struct CorpusSpec {
  const GameVariants* game = nullptr;
  int min_seats = 0;
  int max_seats = 0;
  std::string description;  // "Pyramid Shambo logs, 5 seats".
};

// Options varied across the corpus (every combination appears): the game's
// variants fastest, then the seat count, checkpoint interval, forfeit
// policy and clocks.
MatchConfig ConfigFor(const CorpusSpec& spec, int index) {
  static constexpr uint32_t kIntervals[] = {0, 5, 16, 64};
  MatchConfig config;
  config.game.set_game(spec.game->id);
  spec.game->apply(index % spec.game->variants, config.game);
  const int seat_counts = spec.max_seats - spec.min_seats + 1;
  int rest = index / spec.game->variants;
  const int seats = spec.min_seats + rest % seat_counts;
  rest /= seat_counts;
  config.checkpoint_interval = kIntervals[rest % 4];
  config.forfeit_policy = (rest / 4) % 2 == 1
                              ? v1::FORFEIT_POLICY_DEFAULT_ACTION
                              : v1::FORFEIT_POLICY_FORFEIT;
  if ((rest / 8) % 2 == 1) {
    config.clocks.set_commit_timeout_ms(30000);
    config.clocks.set_reveal_timeout_ms(10000);
  }
  config.fsync = FsyncPolicy::kNever;
  for (int seat = 0; seat < seats; ++seat) {
    v1::Seat& s = config.seats.emplace_back();
    s.set_name(absl::StrCat("random-", seat));
  }
  return config;
}

// Collects the signatures a full verify checks (untimed): the last
// signature record of each log, and every signed seat commit.
absl::Status CollectSignatures(Corpus& corpus) {
  for (const std::string& log : corpus.logs) {
    const SplitLogResult split = SplitLog(log);
    corpus.records += split.records.size();
    absl::StatusOr<std::vector<v1::LogRecord>> parsed = ParseLogRecords(split);
    if (!parsed.ok()) return parsed.status();
    const std::vector<v1::LogRecord>& records = *parsed;
    if (records.empty() || !records[0].has_header()) {
      return absl::InternalError("generated log without a header");
    }
    const v1::Header& header = records[0].header();
    const v1::Signature* last = nullptr;
    for (const v1::LogRecord& record : records) {
      if (record.has_checkpoint()) last = &record.checkpoint();
      if (record.has_seal()) last = &record.seal();
      if (!record.has_commit() || record.commit().signature().empty()) continue;
      const v1::Commit& commit = record.commit();
      corpus.signatures.push_back(
          {header.seats(commit.seat()).public_key(),
           CommitSignatureMessage(header.match_id(), commit.seat(),
                                  commit.decision_id(), commit.commitment()),
           commit.signature()});
    }
    if (last == nullptr) return absl::InternalError("generated log unsigned");
    corpus.signatures.push_back(
        {header.referee_public_key(),
         LogSignatureMessage(header.match_id(), last->record_count(),
                             last->chain_hash()),
         last->signature()});
  }
  return absl::OkStatus();
}

absl::Status Generate(const CorpusSpec& spec, int count, Corpus& corpus) {
  // A handful of referee keys, so signature checks do not all share one.
  absl::StatusOr<bench::PlayedLogs> played =
      bench::PlayLogs("pyramid bench_verify corpus", 4, count,
                      [&](int index) { return ConfigFor(spec, index); });
  if (!played.ok()) return played.status();
  corpus.logs = std::move(played->logs);
  corpus.bytes = played->bytes;
  return CollectSignatures(corpus);
}

uint64_t HashFloor(const Corpus& corpus) {
  uint64_t acc = 0;
  for (const std::string& log : corpus.logs) {
    const SplitLogResult split = SplitLog(log);
    for (const RawRecord& raw : split.records) acc += Sha256(raw.bytes)[0];
  }
  return acc;
}

// Verifies every log; aborts the benchmark unless every verdict is genuine.
uint64_t VerifyAll(const Corpus& corpus, const VerifyOptions& options) {
  uint64_t moves = 0;
  for (const std::string& log : corpus.logs) {
    const Verdict verdict = VerifyLog(log, options);
    if (verdict.kind != Verdict::Kind::kGenuine) {
      std::cerr << "bench_verify: a generated log does not verify: record "
                << verdict.bad_record << ": " << verdict.reason << "\n";
      std::exit(1);
    }
    moves += verdict.moves;
  }
  return moves;
}

uint64_t VerifySignatures(const Corpus& corpus) {
  uint64_t valid = 0;
  for (const Corpus::SignatureCheck& check : corpus.signatures) {
    valid += VerifySignature(check.public_key, check.message, check.signature);
  }
  if (valid != corpus.signatures.size()) {
    std::cerr << "bench_verify: a signature does not verify\n";
    std::exit(1);
  }
  return valid;
}

// A phase's row: its time, rates and `ratio` to the floor (none when 0).
void PrintRow(const char* name, double seconds, const Corpus& corpus,
              double ratio) {
  if (seconds == 0) {
    std::printf("%-38s %9s\n", name, "skipped");
    return;
  }
  const double logs = static_cast<double>(corpus.logs.size());
  std::printf("%-38s %9.1f %12.0f %12.0f %9.1f %9.2f", name, seconds * 1e3,
              corpus.records / seconds, corpus.moves / seconds,
              corpus.bytes / seconds / 1e6, seconds / logs * 1e6);
  if (ratio > 0) std::printf(" %7.2fx", ratio);
  std::printf("\n");
}

// The corpus of game `id` at the flags' seats, or an error for the user.
absl::StatusOr<CorpusSpec> SpecFor(const std::string& id) {
  CorpusSpec spec;
  for (const GameVariants& game : kGames) {
    if (id == game.id) spec.game = &game;
  }
  v1::GameConfig config;
  config.set_game(id);
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(config);
  if (spec.game == nullptr || !game.ok()) {
    std::string known;
    for (const GameVariants& g : kGames) absl::StrAppend(&known, " ", g.id);
    return absl::InvalidArgumentError(
        absl::StrCat("unknown --game ", id, "; one of:", known, " all"));
  }
  const int seats = absl::GetFlag(FLAGS_seats);
  spec.min_seats = seats == 0 ? (*game)->min_seats() : seats;
  spec.max_seats = seats == 0 ? (*game)->max_seats() : seats;
  if (spec.min_seats < (*game)->min_seats() ||
      spec.max_seats > (*game)->max_seats()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--seats: ", id, " takes ", SeatCounts((*game)->description()),
        " seats, not ", seats, " (0: every seat count of the game)"));
  }
  spec.description = absl::StrCat(spec.game->name, " logs");
  if ((*game)->min_seats() != (*game)->max_seats()) {
    absl::StrAppend(&spec.description, ", ", spec.min_seats);
    if (spec.max_seats != spec.min_seats) {
      absl::StrAppend(&spec.description, "-", spec.max_seats);
    }
    absl::StrAppend(&spec.description, " seats");
  }
  return spec;
}

// The four phases' median times in seconds (0 for a phase not run), and
// the median over the rounds of each round's ratio to its floor (0 when
// either phase was not run).
struct Timings {
  double floor = 0;            // (a)
  double unsigned_verify = 0;  // (b)
  double ed25519 = 0;          // (c)
  double full_verify = 0;      // (d)
  double floor_ratio = 0;      // (b)/(a)
  double ed25519_ratio = 0;    // (c)/(a)
  double full_ratio = 0;       // (d)/(a)
  double bound_ratio = 0;      // ((a) + (c))/(a)
};

// Times the --phases asked for in `reps` rounds of one run each, after a
// warm-up that also counts the corpus's moves.
Timings Measure(Corpus& corpus, int reps) {
  VerifyOptions no_signatures;
  no_signatures.check_signatures = false;
  VerifyOptions full;
  corpus.moves = VerifyAll(corpus, no_signatures);
  const std::string phases = absl::GetFlag(FLAGS_phases);
  // The body of `phase`, or none when --phases leaves it out.
  auto phase = [&](char name, std::function<void()> body) {
    return phases.find(name) == std::string::npos ? nullptr : body;
  };
  enum Phase { kA, kB, kC, kD };
  const bench::Rounds rounds = bench::TimeRounds(
      reps, {phase('a', [&] { bench::Keep(HashFloor(corpus)); }),
             phase('b', [&] { bench::Keep(VerifyAll(corpus, no_signatures)); }),
             phase('c', [&] { bench::Keep(VerifySignatures(corpus)); }),
             phase('d', [&] { bench::Keep(VerifyAll(corpus, full)); })});
  // The median over the rounds of phase `p`'s ratio to the floor (a).
  auto ratio = [&](Phase p) {
    return bench::MedianRatio(
        rounds, kA, [p](const std::vector<double>& r) { return r[p]; });
  };
  return Timings{.floor = bench::MedianTime(rounds, kA),
                 .unsigned_verify = bench::MedianTime(rounds, kB),
                 .ed25519 = bench::MedianTime(rounds, kC),
                 .full_verify = bench::MedianTime(rounds, kD),
                 .floor_ratio = ratio(kB),
                 .ed25519_ratio = ratio(kC),
                 .full_ratio = ratio(kD),
                 .bound_ratio = bench::MedianRatio(
                     rounds, kA, [](const std::vector<double>& r) {
                       return r[kC] > 0 ? r[kA] + r[kC] : 0;
                     })};
}

void PrintCorpus(const Corpus& corpus, const CorpusSpec& spec,
                 double gen_seconds) {
  std::printf(
      "corpus: %zu %s (%s%scheckpoint_interval {0,5,16,64} x forfeit policy "
      "x clocks), generated in %.2f s\n",
      corpus.logs.size(), spec.description.c_str(), spec.game->varied,
      spec.min_seats == spec.max_seats ? "" : "seats x ", gen_seconds);
  std::printf(
      "        %llu records, %llu moves, %.2f MB, %zu signatures to check; "
      "avg %.1f records, %.0f bytes per log\n",
      static_cast<unsigned long long>(corpus.records),
      static_cast<unsigned long long>(corpus.moves), corpus.bytes / 1e6,
      corpus.signatures.size(),
      static_cast<double>(corpus.records) / corpus.logs.size(),
      static_cast<double>(corpus.bytes) / corpus.logs.size());
}

void PrintTimings(const Corpus& corpus, const Timings& t, int reps) {
  std::printf(
      "timing: single thread, thread CPU time, median of %d rounds (each runs "
      "every phase once; ratios: the median of the rounds' own)\n\n",
      reps);
  std::printf("%-38s %9s %12s %12s %9s %9s %8s\n", "phase", "ms", "records/s",
              "moves/s", "MB/s", "us/log", "x (a)");
  std::printf("%s\n", std::string(103, '-').c_str());
  PrintRow("(a) hash floor: split + SHA-256", t.floor, corpus,
           t.floor > 0 ? 1.0 : 0.0);
  PrintRow("(b) verify, no signatures", t.unsigned_verify, corpus,
           t.floor_ratio);
  PrintRow("(c) the Ed25519 checks (d) needs", t.ed25519, corpus,
           t.ed25519_ratio);
  PrintRow("(d) verify, full", t.full_verify, corpus, t.full_ratio);
  if (t.floor > 0 && t.ed25519 > 0) {
    PrintRow("bound for (d): (a) + (c)", t.floor + t.ed25519, corpus,
             t.bound_ratio);
  }
  std::printf("%s\n", std::string(103, '-').c_str());
  if (t.ed25519 > 0) {
    std::printf(
        "(c): %zu signatures (one referee signature per log, %zu seat "
        "signatures), %.0f/s, %.1f us each\n",
        corpus.signatures.size(), corpus.signatures.size() - corpus.logs.size(),
        corpus.signatures.size() / t.ed25519,
        t.ed25519 / corpus.signatures.size() * 1e6);
  }
  if (t.floor_ratio > 0) {
    std::printf("ratio (b)/(a) = %.2fx   target <= 2x   %s\n", t.floor_ratio,
                t.floor_ratio <= 2.0 ? "met" : "NOT MET");
  }
  if (t.full_ratio > 0 && t.bound_ratio > 0) {
    std::printf(
        "ratio (d)/(a) = %.2fx   bound ((a) + (c))/(a) = %.2fx   "
        "(d)/bound = %.2fx\n",
        t.full_ratio, t.bound_ratio, t.full_ratio / t.bound_ratio);
  }
}

// "x.xx", or "na" when a phase it needs was skipped.
std::string Ratio(double ratio) {
  if (ratio <= 0) return "na";
  return absl::StrFormat("%.2f", ratio);
}

// Generates and times the corpus of `spec`; prints its report and returns
// its key=value line, or nullopt after printing an error.
std::optional<std::string> RunGame(const CorpusSpec& spec, int count,
                                   int reps) {
  Corpus corpus;
  const auto gen_start = std::chrono::steady_clock::now();
  if (absl::Status s = Generate(spec, count, corpus); !s.ok()) {
    std::cerr << "bench_verify: generating logs: " << s.message() << "\n";
    return std::nullopt;
  }
  const double gen_seconds = std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - gen_start)
                                 .count();
  const Timings timings = Measure(corpus, reps);
  PrintCorpus(corpus, spec, gen_seconds);
  PrintTimings(corpus, timings, reps);
  return absl::StrCat("game=", spec.game->id,
                      " floor_ratio=", Ratio(timings.floor_ratio),
                      " full_ratio_sigs=", Ratio(timings.full_ratio));
}

int Main() {
  const int count = absl::GetFlag(FLAGS_logs);
  const int reps = absl::GetFlag(FLAGS_reps);
  if (!bench::PositiveCounts("bench_verify", count, reps)) return 2;
  const std::string phases = absl::GetFlag(FLAGS_phases);
  if (phases.empty() || phases.find_first_not_of("abcd") != std::string::npos) {
    std::cerr << "bench_verify: --phases takes letters among a, b, c and d "
                 "(one phase at least), not \""
              << phases << "\"\n";
    return 2;
  }
  std::vector<CorpusSpec> specs;
  const std::string game = absl::GetFlag(FLAGS_game);
  for (const GameVariants& g : kGames) {
    if (game != "all" && game != g.id) continue;
    absl::StatusOr<CorpusSpec> spec = SpecFor(g.id);
    if (!spec.ok()) {
      std::cerr << "bench_verify: " << spec.status().message() << "\n";
      return 2;
    }
    specs.push_back(*std::move(spec));
  }
  if (specs.empty()) {
    std::cerr << "bench_verify: " << SpecFor(game).status().message() << "\n";
    return 2;
  }
  return bench::ReportEachGame(specs.size(), /*separate=*/true, [&](size_t i) {
    return RunGame(specs[i], count, reps);
  });
}

}  // namespace
}  // namespace pyramid

int main(int argc, char** argv) {
  pyramid::InitFlagsOnlyProgram(
      argc, argv,
      "Benchmarks the log verifier against the SHA-256 floor on in-memory "
      "logs of one game (default Rock, Paper, Pyramid!) or of every game.");
  return pyramid::Main();
}
