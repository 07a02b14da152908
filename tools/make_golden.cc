// make_golden: writes the golden logs of fault scenarios (testdata/golden/),
// which selfplay cannot produce because its players never misbehave.
//
//   make_golden --key=testdata/keys/golden-referee.key
//               --out=testdata/golden/rock_paper_pyramid
//               --deterministic=HEX64
//
// Every byte follows from the key and --deterministic (a fake clock, a
// ChaCha20 entropy stream, seeded choices), so a run reproduces the committed
// files exactly. It never overwrites a file: golden logs are regenerated
// only as a stated format change (testdata/golden/README.md). --only
// writes some of a game's scenarios (a new one, beside the committed
// others); each scenario's randomness is derived from --deterministic and
// its own name, so the others come out the same with or without it.
//
// Scenarios of --game=rock_paper_pyramid (classic rules, 3 seats):
//   forfeit_mismatch.pyrlog        forfeit policy; at decision 4 seat 1
//                                  reveals a salt that does not match its
//                                  commitment: it forfeits, the match ends.
//   default_action_timeout.pyrlog  default-action policy with 1 s deadlines;
//                                  seat 2 misses its commit at decision 3,
//                                  seat 0 its reveal at decision 6; both get
//                                  the default action and the game goes on.
//   signed_seed_timeout_restarts.pyrlog
//                                  default-action policy with 1 s deadlines;
//                                  seats 0 and 2 register Ed25519 keys and
//                                  sign each commit (seat 1 has none and
//                                  signs nothing); seat 1 misses its
//                                  commit to the seed decision (the seed
//                                  takes 32 zero bytes for it); the referee
//                                  restarts at decision 4 once seats 0 and
//                                  1 have committed (commit phase), and at
//                                  decision 7 once seat 0 has revealed
//                                  (reveal phase).
//   named_header.pyrlog            default-action policy with 1 s deadlines;
//                                  every seat registers an Ed25519 key and
//                                  signs each commit; seats 0 and 1 name the
//                                  log header in their seed contribution
//                                  (SeedContribution.header_hash), seat 2
//                                  names another header: an illegal action
//                                  (the seed takes 32 zero bytes for it);
//                                  the rest is honest.
// Scenarios of --game=flaming_pyramids (3 seats):
//   forfeit_at_collapse_fall.pyrlog  forfeit policy with 1 s deadlines; the
//                                  first time a collapse asks for its fall,
//                                  the chooser misses its commit and
//                                  forfeits, scored with the supports the
//                                  collapse put under its pile (rules
//                                  version 2). The first seed (in order
//                                  0, 1, ... from --deterministic) whose
//                                  random game reaches a collapse is kept.
//   restarts.pyrlog                forfeit policy, `max_turns: 6`; the
//                                  referee restarts as decision 3 opens
//                                  (nothing committed) and again at once
//                                  (a restart right after a restart), then
//                                  at decision 5 before the acting seat's
//                                  reveal (rules version 2).
// Scenario of --game=pyramid_scheme (3 seats):
//   reshuffle.pyrlog               seats reset the display and take cards
//                                  whenever they may, so the deck runs out
//                                  and the discard pile is shuffled into a
//                                  new deck; the first seed (0, 1, ...)
//                                  whose game reshuffles is kept.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "referee/cli/program.h"
#include "referee/core/clock.h"
#include "referee/core/local_runner.h"
#include "referee/core/log_reader.h"
#include "referee/core/log_sink.h"
#include "referee/core/match.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/random_stream.h"
#include "referee/crypto/sha256.h"

ABSL_FLAG(std::string, key, "", "Referee secret key file (keygen format).");
ABSL_FLAG(std::string, out, "testdata/golden/rock_paper_pyramid",
          "Directory for the logs (created if missing).");
ABSL_FLAG(std::string, deterministic, "",
          "64 hex digits from which every random byte is derived.");
ABSL_FLAG(std::string, game, "rock_paper_pyramid",
          "Whose scenarios to write: rock_paper_pyramid, flaming_pyramids or "
          "pyramid_scheme.");
ABSL_FLAG(std::string, only, "",
          "Comma-separated scenario names (file names without .pyrlog) to "
          "write; empty: every scenario of --game.");

namespace pyramid {
namespace {

constexpr int kSeats = 3;
constexpr uint32_t kTimeoutMs = 1000;

// A scenario's match: its game (and options), forfeit policy, and which of
// its seats register keys (and sign their commits).
struct Setup {
  Setup(const std::string& game_name, v1::ForfeitPolicy forfeit_policy)
      : policy(forfeit_policy) {
    game.set_game(game_name);
  }
  v1::GameConfig game;
  v1::ForfeitPolicy policy;
  std::set<int> keyed_seats;
};

// Plays one match through the Match's public calls, with hooks to make a
// seat misbehave at a given decision, or the referee restart.
class Scenario {
 public:
  // Ranks a legal action for an honest seat: it plays one of the best
  // ranked (smallest), chosen uniformly. Null: every action alike.
  using Prefer = std::function<int(const v1::Action&)>;

  // Writes the log into `*log`.
  Scenario(const Setup& setup, const Digest& seed, const SigningKey& key,
           std::string* log, Prefer prefer = nullptr)
      : entropy_(DeterministicEntropy(Sha256({AsView(seed), "entropy"}))),
        chooser_(Sha256({AsView(seed), "chooser"})),
        prefer_(std::move(prefer)),
        key_(key),
        log_(log) {
    MatchConfig config;
    config.game = setup.game;
    for (int s = 0; s < kSeats; ++s) {
      v1::Seat& seat = config.seats.emplace_back();
      seat.set_name(absl::StrCat("golden-", s));
      seat_keys_.emplace_back();
      if (!setup.keyed_seats.contains(s)) continue;
      absl::StatusOr<SigningKey> seat_key = SigningKey::FromSeed(
          AsView(Sha256({AsView(seed), "seat key", absl::StrCat(s)})));
      if (!seat_key.ok()) {
        status_ = seat_key.status();
        return;
      }
      seat.set_public_key(seat_key->public_key());
      seat_keys_.back() = *std::move(seat_key);
    }
    config.clocks.set_commit_timeout_ms(kTimeoutMs);
    config.clocks.set_reveal_timeout_ms(kTimeoutMs);
    config.forfeit_policy = setup.policy;
    config.checkpoint_interval = 16;
    config.fsync = FsyncPolicy::kCheckpoints;
    absl::StatusOr<std::unique_ptr<Match>> match = Match::Create(
        config, key, std::make_unique<StringLogSink>(log_), &clock_, entropy_);
    if (!match.ok()) {
      status_ = match.status();
      return;
    }
    match_ = *std::move(match);
    pending_.resize(kSeats);
  }

  // What a seat does at one decision. kRestartBeforeCommit: the referee
  // restarts (Match::Resume from the log) before the seat commits, which it
  // then does honestly; kRestartBeforeReveal likewise before its reveal;
  // kRestartTwiceBeforeCommit: two restarts, one right after the other.
  // kNameHeader: honest, and its seed contribution names the log header
  // (SeedContribution.header_hash; kHonest's names none, as in the
  // scenarios written before it, whose bytes stay the same);
  // kNameAnotherHeader: its seed contribution names another header, an
  // illegal action. Both act only at the seed decision.
  enum class Conduct {
    kHonest,
    kNoCommit,
    kNoReveal,
    kMismatch,
    kRestartBeforeCommit,
    kRestartTwiceBeforeCommit,
    kRestartBeforeReveal,
    kNameHeader,
    kNameAnotherHeader,
  };
  using Plan =
      std::function<Conduct(const Match& match, uint64_t decision, int seat)>;

  absl::Status Run(const Plan& plan) {
    if (!status_.ok()) return status_;
    while (!match_->finished()) {
      const uint64_t id = match_->decision()->id;
      const auto seats = match_->decision()->seats;  // A copy.
      bool late = false;
      for (int seat : seats) {
        const Conduct conduct = plan(*match_, id, seat);
        if (conduct == Conduct::kNoCommit) {
          late = true;
          continue;
        }
        if (conduct == Conduct::kRestartBeforeCommit ||
            conduct == Conduct::kRestartTwiceBeforeCommit) {
          if (absl::Status s = Restart(); !s.ok()) return s;
        }
        if (conduct == Conduct::kRestartTwiceBeforeCommit) {
          if (absl::Status s = Restart(); !s.ok()) return s;
        }
        if (absl::Status s = Commit(seat, id, conduct); !s.ok()) return s;
      }
      if (late) {
        clock_.Advance(absl::Milliseconds(kTimeoutMs + 1));
        if (absl::Status s = match_->CheckDeadlines(); !s.ok()) return s;
      }
      if (match_->finished() || match_->decision()->id != id) continue;
      late = false;
      for (int seat : seats) {
        if (!match_->AwaitsReveal(seat)) continue;
        const Conduct conduct = plan(*match_, id, seat);
        if (conduct == Conduct::kNoReveal) {
          late = true;
          continue;
        }
        if (conduct == Conduct::kRestartBeforeReveal) {
          if (absl::Status s = Restart(); !s.ok()) return s;
        }
        std::string salt = pending_[seat].salt;
        if (conduct == Conduct::kMismatch)
          salt[0] = static_cast<char>(salt[0] ^ 1);
        const absl::Status s =
            match_->Reveal(seat, id, salt, pending_[seat].action_bytes);
        // A mismatched or illegal reveal is refused (and logged with its
        // fault).
        if (!s.ok() && conduct != Conduct::kMismatch &&
            conduct != Conduct::kNameAnotherHeader) {
          return s;
        }
        if (match_->finished()) break;
      }
      if (late && !match_->finished()) {
        clock_.Advance(absl::Milliseconds(kTimeoutMs + 1));
        if (absl::Status s = match_->CheckDeadlines(); !s.ok()) return s;
      }
    }
    return match_->broken();
  }

  const Match& match() const { return *match_; }

 private:
  // The referee stops (its Match is dropped as a crash would drop it), is
  // down for a minute, and resumes the match from its log.
  absl::Status Restart() {
    const std::string contribution = match_->referee_contribution();
    match_.reset();
    clock_.Advance(absl::Minutes(1));
    const std::string log = *log_;
    absl::StatusOr<std::unique_ptr<Match>> resumed =
        Match::Resume(log, contribution, key_, FsyncPolicy::kCheckpoints,
                      std::make_unique<StringLogSink>(log_), &clock_);
    if (!resumed.ok()) return resumed.status();
    match_ = *std::move(resumed);
    return absl::OkStatus();
  }

  absl::Status Commit(int seat, uint64_t id, Conduct conduct) {
    v1::Action action;
    if (id == 0) {
      action = SeedAction(entropy_);
      if (conduct == Conduct::kNameHeader) {
        action.mutable_seed()->set_header_hash(
            std::string(AsView(match_->header_hash())));
      } else if (conduct == Conduct::kNameAnotherHeader) {
        action.mutable_seed()->set_header_hash(
            std::string(AsView(Sha256("another match's header"))));
      }
    } else {
      std::vector<v1::Action> legal = match_->LegalActions(seat);
      if (prefer_) {
        int best = prefer_(legal.front());
        for (const v1::Action& a : legal) best = std::min(best, prefer_(a));
        legal.erase(std::remove_if(legal.begin(), legal.end(),
                                   [&](const v1::Action& a) {
                                     return prefer_(a) != best;
                                   }),
                    legal.end());
      }
      action = legal[chooser_.Uniform(legal.size())];
    }
    if (seat_keys_[seat].has_value()) return SignedCommit(seat, id, action);
    absl::StatusOr<CommittedMove> move =
        CommitTo(*match_, seat, id, action, entropy_);
    if (!move.ok()) return move.status();
    pending_[seat] = *std::move(move);
    return absl::OkStatus();
  }

  // CommitTo, with the seat's signature over the commitment.
  absl::Status SignedCommit(int seat, uint64_t id, const v1::Action& action) {
    CommittedMove move;
    move.salt.resize(kSaltSize);
    entropy_(move.salt.data(), move.salt.size());
    move.action_bytes = action.SerializeAsString();
    const Digest commitment = CommitmentHash(match_->match_id(), seat, id,
                                             move.salt, move.action_bytes);
    const std::string signature = seat_keys_[seat]->Sign(CommitSignatureMessage(
        match_->match_id(), seat, id, AsView(commitment)));
    if (absl::Status s =
            match_->Commit(seat, id, AsView(commitment), signature);
        !s.ok()) {
      return s;
    }
    pending_[seat] = std::move(move);
    return absl::OkStatus();
  }

  FakeClock clock_;
  EntropySource entropy_;
  RandomStream chooser_;
  const Prefer prefer_;
  const SigningKey key_;
  std::string* const log_;
  std::vector<std::optional<SigningKey>> seat_keys_;  // Indexed by seat.
  std::vector<CommittedMove> pending_;
  absl::Status status_;
  std::unique_ptr<Match> match_;
};

// Plays `game` under `plan` into memory; the log's bytes and the match's
// outcome once it is over.
absl::StatusOr<std::pair<std::string, v1::Outcome>> Play(
    const Setup& setup, const Digest& seed, const SigningKey& key,
    const Scenario::Plan& plan, Scenario::Prefer prefer = nullptr) {
  std::string bytes;
  Scenario scenario(setup, seed, key, &bytes, std::move(prefer));
  if (absl::Status s = scenario.Run(plan); !s.ok()) return s;
  return std::make_pair(bytes, scenario.match().outcome());
}

// Writes `bytes` to the new file `path` (never over an existing one).
int Write(const std::filesystem::path& path, const std::string& bytes,
          const v1::Outcome& outcome) {
  absl::StatusOr<std::unique_ptr<FileLogSink>> sink =
      FileLogSink::Create(path.string());
  absl::Status written = sink.ok() ? (*sink)->Append(bytes) : sink.status();
  if (written.ok()) written = (*sink)->Sync();
  if (written.ok()) written = MakeLogPublic(path.string());  // Published.
  if (!written.ok()) {
    std::cerr << "make_golden: " << path.string() << ": " << written.message()
              << "\n";
    return 2;
  }
  std::cout << path.string() << ": " << outcome.ShortDebugString() << "\n";
  return 0;
}

int WriteScenario(const std::filesystem::path& path, const Setup& setup,
                  const Digest& seed, const SigningKey& key,
                  const Scenario::Plan& plan) {
  absl::StatusOr<std::pair<std::string, v1::Outcome>> played =
      Play(setup, seed, key, plan);
  if (!played.ok()) {
    std::cerr << "make_golden: " << path.string() << ": "
              << played.status().message() << "\n";
    return 1;
  }
  return Write(path, played->first, played->second);
}

// Whether `seat` is asked for the fall of a collapse.
bool AskedForACollapseFall(const Match& match, int seat) {
  const v1::FlamingPyramidsObservation view =
      match.ObservationFor(seat).flaming_pyramids();
  return view.phase() == v1::FP_FALL &&
         view.pending().kind() == v1::FP_COLLAPSE;
}

int WriteForfeitAtCollapseFall(const std::filesystem::path& out,
                               const Digest& root, const SigningKey& key) {
  using Conduct = Scenario::Conduct;
  const Scenario::Plan plan = [](const Match& match, uint64_t, int seat) {
    return AskedForACollapseFall(match, seat) ? Conduct::kNoCommit
                                              : Conduct::kHonest;
  };
  for (int attempt = 0; attempt < 1000; ++attempt) {
    absl::StatusOr<std::pair<std::string, v1::Outcome>> played =
        Play(Setup("flaming_pyramids", v1::FORFEIT_POLICY_FORFEIT),
             Sha256({AsView(root), "forfeit_at_collapse_fall",
                     absl::StrCat(attempt)}),
             key, plan);
    if (!played.ok()) {
      std::cerr << "make_golden: " << played.status().message() << "\n";
      return 1;
    }
    if (played->second.termination() != v1::TERMINATION_FORFEIT) continue;
    std::cout << "seed " << attempt << "\n";
    return Write(out / "forfeit_at_collapse_fall.pyrlog", played->first,
                 played->second);
  }
  std::cerr << "make_golden: no game of 1000 reached a collapse\n";
  return 1;
}

int WriteFlamingPyramidsRestarts(const std::filesystem::path& out,
                                 const Digest& root, const SigningKey& key) {
  using Conduct = Scenario::Conduct;
  Setup setup("flaming_pyramids", v1::FORFEIT_POLICY_FORFEIT);
  setup.game.mutable_flaming_pyramids()->set_max_turns(6);
  return WriteScenario(out / "restarts.pyrlog", setup,
                       Sha256({AsView(root), "restarts"}), key,
                       [](const Match& match, uint64_t decision, int seat) {
                         if (seat != match.decision()->seats.front()) {
                           return Conduct::kHonest;
                         }
                         if (decision == 3) {
                           return Conduct::kRestartTwiceBeforeCommit;
                         }
                         if (decision == 5) {
                           return Conduct::kRestartBeforeReveal;
                         }
                         return Conduct::kHonest;
                       });
}

// Whether the Pyramid Scheme log `bytes` records a reshuffle.
bool Reshuffles(const std::string& bytes) {
  for (const RawRecord& raw : SplitLog(bytes).records) {
    v1::LogRecord record;
    if (!record.ParseFromArray(raw.bytes.data(),
                               static_cast<int>(raw.bytes.size()))) {
      continue;
    }
    for (const v1::PssEvent& event :
         record.applied().result().pyramid_scheme().events()) {
      if (event.has_reshuffled()) return true;
    }
  }
  return false;
}

int WriteReshuffle(const std::filesystem::path& out, const Digest& root,
                   const SigningKey& key) {
  // Seats reset the display and take cards whenever they may, which empties
  // the deck and fills the discard pile.
  const Scenario::Prefer prefer = [](const v1::Action& action) {
    switch (action.pyramid_scheme().decision_case()) {
      case v1::PyramidSchemeAction::kUseReset:
        return 0;
      case v1::PyramidSchemeAction::kTake:
        return 1;
      default:
        return 2;
    }
  };
  const Scenario::Plan honest = [](const Match&, uint64_t, int) {
    return Scenario::Conduct::kHonest;
  };
  for (int attempt = 0; attempt < 1000; ++attempt) {
    absl::StatusOr<std::pair<std::string, v1::Outcome>> played =
        Play(Setup("pyramid_scheme", v1::FORFEIT_POLICY_FORFEIT),
             Sha256({AsView(root), "reshuffle", absl::StrCat(attempt)}), key,
             honest, prefer);
    if (!played.ok()) {
      std::cerr << "make_golden: " << played.status().message() << "\n";
      return 1;
    }
    if (!Reshuffles(played->first)) continue;
    std::cout << "seed " << attempt << "\n";
    return Write(out / "reshuffle.pyrlog", played->first, played->second);
  }
  std::cerr << "make_golden: no game of 1000 reshuffled\n";
  return 1;
}

int Main() {
  if (absl::GetFlag(FLAGS_key).empty()) {
    std::cerr << "make_golden: --key is required\n";
    return 2;
  }
  absl::StatusOr<SigningKey> key = ReadSigningKey(absl::GetFlag(FLAGS_key));
  if (!key.ok()) {
    std::cerr << "make_golden: " << key.status().message() << "\n";
    return 2;
  }
  absl::StatusOr<std::string> hex = FromHex(absl::GetFlag(FLAGS_deterministic));
  if (!hex.ok() || hex->size() != 32) {
    std::cerr << "make_golden: --deterministic takes 64 hex digits\n";
    return 2;
  }
  const Digest root = Sha256(*hex);
  const std::filesystem::path out = absl::GetFlag(FLAGS_out);
  std::error_code error;
  std::filesystem::create_directories(out, error);
  if (error) {
    std::cerr << "make_golden: --out " << out.string() << ": "
              << error.message() << "\n";
    return 2;
  }
  using Conduct = Scenario::Conduct;
  using Writer = std::function<int()>;
  const std::string game = absl::GetFlag(FLAGS_game);
  // Each game's scenarios, in the order they are written.
  std::vector<std::pair<std::string, Writer>> scenarios;
  if (game == "rock_paper_pyramid") {
    scenarios.emplace_back("forfeit_mismatch", [&] {
      return WriteScenario(out / "forfeit_mismatch.pyrlog",
                           Setup(game, v1::FORFEIT_POLICY_FORFEIT),
                           Sha256({AsView(root), "forfeit_mismatch"}), *key,
                           [](const Match&, uint64_t decision, int seat) {
                             return decision == 4 && seat == 1
                                        ? Conduct::kMismatch
                                        : Conduct::kHonest;
                           });
    });
    scenarios.emplace_back("default_action_timeout", [&] {
      return WriteScenario(out / "default_action_timeout.pyrlog",
                           Setup(game, v1::FORFEIT_POLICY_DEFAULT_ACTION),
                           Sha256({AsView(root), "default_action_timeout"}),
                           *key, [](const Match&, uint64_t decision, int seat) {
                             if (decision == 3 && seat == 2) {
                               return Conduct::kNoCommit;
                             }
                             if (decision == 6 && seat == 0) {
                               return Conduct::kNoReveal;
                             }
                             return Conduct::kHonest;
                           });
    });
    scenarios.emplace_back("signed_seed_timeout_restarts", [&] {
      Setup setup(game, v1::FORFEIT_POLICY_DEFAULT_ACTION);
      setup.keyed_seats = {0, 2};
      return WriteScenario(
          out / "signed_seed_timeout_restarts.pyrlog", setup,
          Sha256({AsView(root), "signed_seed_timeout_restarts"}), *key,
          [](const Match&, uint64_t decision, int seat) {
            if (decision == 0 && seat == 1) return Conduct::kNoCommit;
            if (decision == 4 && seat == 2) {
              return Conduct::kRestartBeforeCommit;
            }
            if (decision == 7 && seat == 1) {
              return Conduct::kRestartBeforeReveal;
            }
            return Conduct::kHonest;
          });
    });
    scenarios.emplace_back("named_header", [&] {
      Setup setup(game, v1::FORFEIT_POLICY_DEFAULT_ACTION);
      setup.keyed_seats = {0, 1, 2};
      return WriteScenario(out / "named_header.pyrlog", setup,
                           Sha256({AsView(root), "named_header"}), *key,
                           [](const Match&, uint64_t decision, int seat) {
                             if (decision != 0) return Conduct::kHonest;
                             return seat == 2 ? Conduct::kNameAnotherHeader
                                              : Conduct::kNameHeader;
                           });
    });
  } else if (game == "flaming_pyramids") {
    scenarios.emplace_back("forfeit_at_collapse_fall", [&] {
      return WriteForfeitAtCollapseFall(out, root, *key);
    });
    scenarios.emplace_back("restarts", [&] {
      return WriteFlamingPyramidsRestarts(out, root, *key);
    });
  } else if (game == "pyramid_scheme") {
    scenarios.emplace_back("reshuffle",
                           [&] { return WriteReshuffle(out, root, *key); });
  } else {
    std::cerr << "make_golden: no scenarios for --game=" << game << "\n";
    return 2;
  }
  std::set<std::string> only;
  for (absl::string_view name :
       absl::StrSplit(absl::GetFlag(FLAGS_only), ',', absl::SkipEmpty())) {
    only.emplace(name);
  }
  for (const std::string& name : only) {
    if (std::none_of(scenarios.begin(), scenarios.end(),
                     [&](const auto& s) { return s.first == name; })) {
      std::cerr << "make_golden: --only: no scenario " << name
                << " of --game=" << game << "\n";
      return 2;
    }
  }
  for (const auto& [name, write] : scenarios) {
    if (!only.empty() && !only.contains(name)) continue;
    if (int status = write(); status != 0) return status;
  }
  return 0;
}

}  // namespace
}  // namespace pyramid

int main(int argc, char** argv) {
  pyramid::InitFlagsOnlyProgram(
      argc, argv,
      "Writes the golden logs of fault scenarios (never overwrites).");
  return pyramid::Main();
}
