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
// only as a stated format change (testdata/golden/README.md).
//
// Scenarios (rock_paper_pyramid, classic rules, 3 seats):
//   forfeit_mismatch.pyrlog        forfeit policy; at decision 4 seat 1
//                                  reveals a salt that does not match its
//                                  commitment: it forfeits, the match ends.
//   default_action_timeout.pyrlog  default-action policy with 1 s deadlines;
//                                  seat 2 misses its commit at decision 3,
//                                  seat 0 its reveal at decision 6; both get
//                                  the default action and the game goes on.
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "referee/cli/flags.h"
#include "referee/core/clock.h"
#include "referee/core/local_runner.h"
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

namespace pyramid {
namespace {

constexpr int kSeats = 3;
constexpr uint32_t kTimeoutMs = 1000;

// Plays one match through the Match's public calls, with hooks to make a
// seat misbehave at a given decision.
class Scenario {
 public:
  Scenario(const Digest& seed, v1::ForfeitPolicy policy, const SigningKey& key,
           std::unique_ptr<LogSink> sink)
      : entropy_(DeterministicEntropy(Sha256({AsView(seed), "entropy"}))),
        chooser_(Sha256({AsView(seed), "chooser"})) {
    MatchConfig config;
    config.game.set_game("rock_paper_pyramid");
    for (int s = 0; s < kSeats; ++s) {
      config.seats.emplace_back().set_name(absl::StrCat("golden-", s));
    }
    config.clocks.set_commit_timeout_ms(kTimeoutMs);
    config.clocks.set_reveal_timeout_ms(kTimeoutMs);
    config.forfeit_policy = policy;
    config.checkpoint_interval = 16;
    config.fsync = FsyncPolicy::kCheckpoints;
    absl::StatusOr<std::unique_ptr<Match>> match =
        Match::Create(config, key, std::move(sink), &clock_, entropy_);
    if (!match.ok()) {
      status_ = match.status();
      return;
    }
    match_ = *std::move(match);
    pending_.resize(kSeats);
  }

  // What a seat does at one decision.
  enum class Conduct { kHonest, kNoCommit, kNoReveal, kMismatch };
  using Plan = std::function<Conduct(uint64_t decision, int seat)>;

  absl::Status Run(const Plan& plan) {
    if (!status_.ok()) return status_;
    while (!match_->finished()) {
      const uint64_t id = match_->decision()->id;
      const std::vector<int> seats = match_->decision()->seats;
      bool late = false;
      for (int seat : seats) {
        if (plan(id, seat) == Conduct::kNoCommit) {
          late = true;
          continue;
        }
        if (absl::Status s = Commit(seat, id); !s.ok()) return s;
      }
      if (late) {
        clock_.Advance(absl::Milliseconds(kTimeoutMs + 1));
        if (absl::Status s = match_->CheckDeadlines(); !s.ok()) return s;
      }
      if (match_->finished() || match_->decision()->id != id) continue;
      late = false;
      for (int seat : seats) {
        if (!match_->AwaitsReveal(seat)) continue;
        const Conduct conduct = plan(id, seat);
        if (conduct == Conduct::kNoReveal) {
          late = true;
          continue;
        }
        std::string salt = pending_[seat].salt;
        if (conduct == Conduct::kMismatch)
          salt[0] = static_cast<char>(salt[0] ^ 1);
        const absl::Status s =
            match_->Reveal(seat, id, salt, pending_[seat].action_bytes);
        // A mismatched reveal is refused (and logged with its fault).
        if (!s.ok() && conduct != Conduct::kMismatch) return s;
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
  absl::Status Commit(int seat, uint64_t id) {
    v1::Action action;
    if (id == 0) {
      std::string contribution(kSeedContributionSize, '\0');
      entropy_(contribution.data(), contribution.size());
      action.mutable_seed()->set_contribution(contribution);
    } else {
      const std::vector<v1::Action> legal = match_->LegalActions(seat);
      action = legal[chooser_.Uniform(legal.size())];
    }
    Pending& p = pending_[seat];
    p.salt.assign(kSaltSize, '\0');
    entropy_(p.salt.data(), p.salt.size());
    p.action_bytes = action.SerializeAsString();
    const Digest c =
        CommitmentHash(match_->match_id(), seat, id, p.salt, p.action_bytes);
    return match_->Commit(seat, id, AsView(c));
  }

  struct Pending {
    std::string salt;
    std::string action_bytes;
  };
  FakeClock clock_;
  EntropySource entropy_;
  RandomStream chooser_;
  std::vector<Pending> pending_;
  absl::Status status_;
  std::unique_ptr<Match> match_;
};

int Write(const std::filesystem::path& path, const Digest& seed,
          v1::ForfeitPolicy policy, const SigningKey& key,
          const Scenario::Plan& plan) {
  absl::StatusOr<std::unique_ptr<FileLogSink>> sink =
      FileLogSink::Create(path.string());
  if (!sink.ok()) {
    std::cerr << "make_golden: " << sink.status().message() << "\n";
    return 2;
  }
  Scenario scenario(seed, policy, key, *std::move(sink));
  if (absl::Status s = scenario.Run(plan); !s.ok()) {
    std::cerr << "make_golden: " << path.string() << ": " << s.message()
              << "\n";
    return 1;
  }
  std::cout << path.string() << ": "
            << scenario.match().outcome().ShortDebugString() << "\n";
  return 0;
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
  std::filesystem::create_directories(out);
  using Conduct = Scenario::Conduct;

  int status =
      Write(out / "forfeit_mismatch.pyrlog",
            Sha256({AsView(root), "forfeit_mismatch"}),
            v1::FORFEIT_POLICY_FORFEIT, *key, [](uint64_t decision, int seat) {
              return decision == 4 && seat == 1 ? Conduct::kMismatch
                                                : Conduct::kHonest;
            });
  if (status != 0) return status;
  return Write(out / "default_action_timeout.pyrlog",
               Sha256({AsView(root), "default_action_timeout"}),
               v1::FORFEIT_POLICY_DEFAULT_ACTION, *key,
               [](uint64_t decision, int seat) {
                 if (decision == 3 && seat == 2) return Conduct::kNoCommit;
                 if (decision == 6 && seat == 0) return Conduct::kNoReveal;
                 return Conduct::kHonest;
               });
}

}  // namespace
}  // namespace pyramid

int main(int argc, char** argv) {
  std::vector<char*> rest = pyramid::ParseFlags(
      argc, argv,
      "Writes the golden logs of fault scenarios (never overwrites).");
  if (rest.size() > 1) {
    std::cerr << "make_golden takes no positional arguments\n";
    return 2;
  }
  return pyramid::Main();
}
