// The generic fault conformance test (issue 16): for every game, random
// matches through the referee core (Match) with faults injected by the
// seats, at every kind of decision the game has, under both forfeit
// policies. Each match's log must verify, and the verifier's outcome must be
// the referee's.
//
// The faults are the four a seat can commit: a missed commit deadline, a
// missed reveal deadline, a reveal that does not match its commitment, and
// an illegal action (an action of the wrong kind, properly committed). A
// decision's "kind" is the seed decision, or the kind of the game's default
// action there (the member of its game's action oneof and, below it, of that
// message's oneof, e.g. flaming_pyramids.fall): what the game asks for.
//   * Under FORFEIT_POLICY_DEFAULT_ACTION a seat commits every fault its
//     kind of decision has not met yet, and afterwards faults with
//     probability 1/8; the match goes on with default actions.
//   * Under FORFEIT_POLICY_FORFEIT a fault ends the match, so each match
//     plants one, after a random number of decisions, at the first decision
//     of a kind that has not met every fault yet (once all have, the next
//     fault in turn, anywhere). The seat forfeits.
// Either way every kind of decision met in a test case meets every fault.
// A game joins by adding one line to kGames.
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "referee/core/clock.h"
#include "referee/core/local_runner.h"
#include "referee/core/log_sink.h"
#include "referee/core/match.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/random_stream.h"
#include "referee/crypto/sha256.h"
#include "replay/verifier.h"
#include "tests/sanitizers.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

struct GameCase {
  const char* name;
  const char* config;      // v1::GameConfig, protobuf text format.
  std::vector<int> seats;  // Seat counts, in turn.
  // Matches under each policy (each policy is one test case: coverage is
  // counted over all of its matches, as some kinds of decision come up in
  // few of them). At least 1,000 per game in all.
  int matches_per_policy;
};

const GameCase kGames[] = {
    {"RockPaperPyramid", R"pb(game: "rock_paper_pyramid")pb", {3}, 500},
    {"PyramidShambo", R"pb(game: "pyramid_shambo")pb", {2, 3, 4, 6, 10}, 500},
    {"FlamingPyramids",
     R"pb(game: "flaming_pyramids"
          flaming_pyramids { curse: true })pb",
     {2, 3, 4, 6},
     500},
    // Reserving a goal is asked for in few games.
    {"PyramidScheme", R"pb(game: "pyramid_scheme")pb", {2, 3, 4}, 1500},
};
constexpr uint32_t kTimeoutMs = 1000;

enum class Fault { kNone, kCommitTimeout, kRevealTimeout, kMismatch, kIllegal };
constexpr Fault kFaults[] = {Fault::kCommitTimeout, Fault::kRevealTimeout,
                             Fault::kMismatch, Fault::kIllegal};

const char* FaultName(Fault fault) {
  switch (fault) {
    case Fault::kNone:
      return "none";
    case Fault::kCommitTimeout:
      return "commit timeout";
    case Fault::kRevealTimeout:
      return "reveal timeout";
    case Fault::kMismatch:
      return "reveal mismatch";
    case Fault::kIllegal:
      return "illegal action";
  }
  return "?";
}

// The kind of an action: "seed", or the set member of the action's game
// oneof, then of that message's first oneof (if any).
std::string KindOf(const v1::Action& action) {
  const google::protobuf::Reflection* r = action.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> set;
  r->ListFields(action, &set);
  if (set.empty()) return "none";
  const google::protobuf::FieldDescriptor* game = set.front();
  std::string kind = game->name();
  if (game->type() != google::protobuf::FieldDescriptor::TYPE_MESSAGE) {
    return kind;
  }
  const google::protobuf::Message& inner = r->GetMessage(action, game);
  const google::protobuf::Descriptor* type = inner.GetDescriptor();
  if (type->oneof_decl_count() > 0) {
    const google::protobuf::FieldDescriptor* member =
        inner.GetReflection()->GetOneofFieldDescriptor(inner,
                                                       type->oneof_decl(0));
    if (member != nullptr) absl::StrAppend(&kind, ".", member->name());
  }
  return kind;
}

// Which (kind, fault) pairs the matches of one test case planted.
using Coverage = std::map<std::string, std::set<Fault>>;

// Plays one match with its seats' faults decided by `plan` (called once per
// acting seat and decision with the decision's kind), then checks its log.
class FaultyMatch {
 public:
  using Plan =
      std::function<Fault(uint64_t decision, int seat, const std::string&)>;

  FaultyMatch(const v1::GameConfig& game, int seats, v1::ForfeitPolicy policy,
              const Digest& seed)
      : entropy_(DeterministicEntropy(Sha256({AsView(seed), "entropy"}))),
        chooser_(Sha256({AsView(seed), "chooser"})),
        pending_(seats) {
    config_.game = game;
    config_.seats.resize(seats);
    config_.clocks.set_commit_timeout_ms(kTimeoutMs);
    config_.clocks.set_reveal_timeout_ms(kTimeoutMs);
    config_.forfeit_policy = policy;
    config_.checkpoint_interval = 8;
  }

  // Plays to the end; the faults planted, by kind, go to `planted`.
  void Play(const Plan& plan, Coverage& planted) {
    absl::StatusOr<std::unique_ptr<Match>> created =
        Match::Create(config_, key_, std::make_unique<StringLogSink>(&log_),
                      &clock_, entropy_);
    ASSERT_TRUE(created.ok()) << created.status();
    match_ = *std::move(created);
    for (int step = 0; !match_->finished(); ++step) {
      ASSERT_LT(step, 100000) << "the match does not end";
      ASSERT_NO_FATAL_FAILURE(PlayDecision(plan, planted));
    }
    ASSERT_TRUE(match_->broken().ok()) << match_->broken();
  }

  // The log verifies, and the verifier's outcome is the referee's.
  void CheckLog() const {
    VerifyOptions options;
    options.pinned_key = key_.public_key();
    const Verdict verdict = VerifyLog(log_, options);
    ASSERT_EQ(verdict.kind, Verdict::Kind::kGenuine)
        << "record " << verdict.bad_record << ": " << verdict.reason;
    EXPECT_EQ(verdict.outcome.SerializeAsString(),
              match_->outcome().SerializeAsString());
  }

  const v1::Outcome& outcome() const { return match_->outcome(); }

 private:
  // One decision: the planned commits, then the planned reveals, with the
  // clock moved past a deadline whenever a seat withholds a message.
  void PlayDecision(const Plan& plan, Coverage& planted) {
    const DecisionView decision = *match_->decision();
    std::map<int, Fault> faults;
    for (int seat : decision.seats) {
      const v1::Action honest = Honest(decision.id, seat);
      const std::string kind = decision.id == 0
                                   ? std::string("seed")
                                   : KindOf(match_->DefaultActionFor(seat));
      const Fault fault = plan(decision.id, seat, kind);
      faults[seat] = fault;
      if (fault != Fault::kNone) planted[kind].insert(fault);
      if (fault == Fault::kCommitTimeout) continue;
      v1::Action action = honest;
      if (fault == Fault::kIllegal) action = WrongKind(decision.id);
      Commit(seat, decision.id, action);
      if (match_->finished()) return;
    }
    if (Stalled(decision.id, /*reveal_phase=*/false)) PassDeadline();
    if (match_->finished() || match_->decision()->id != decision.id) return;
    for (int seat : decision.seats) {
      if (!match_->AwaitsReveal(seat)) continue;
      if (faults[seat] == Fault::kRevealTimeout) continue;
      std::string salt = pending_[seat].salt;
      if (faults[seat] == Fault::kMismatch) salt[0] ^= 1;
      // A mismatch or an illegal action is refused and logged as a fault.
      (void)match_->Reveal(seat, decision.id, salt,
                           pending_[seat].action_bytes);
      if (match_->finished()) return;
    }
    if (Stalled(decision.id, /*reveal_phase=*/true)) PassDeadline();
  }

  // What an honest seat plays: the seed contribution, a random legal action
  // where the game lists them (see below), else the game's default action.
  v1::Action Honest(uint64_t id, int seat) {
    if (id == 0) return SeedAction(entropy_);
    const std::vector<v1::Action> legal = match_->LegalActions(seat);
    if (legal.empty()) return match_->DefaultActionFor(seat);
    // A kind of action first, then one of that kind: rare kinds (and the
    // decisions that only follow them) come up as often as common ones.
    std::map<std::string, std::vector<const v1::Action*>> by_kind;
    for (const v1::Action& action : legal) {
      by_kind[KindOf(action)].push_back(&action);
    }
    auto kind = by_kind.begin();
    std::advance(kind, chooser_.Uniform(by_kind.size()));
    return *kind->second[chooser_.Uniform(kind->second.size())];
  }

  // An action no rules accept here: a game's action in the seed decision,
  // a seed contribution in any other.
  static v1::Action WrongKind(uint64_t id) {
    v1::Action action;
    if (id == 0) {
      action.mutable_rock_paper_pyramid();
    } else {
      action.mutable_seed()->set_contribution(
          std::string(kSeedContributionSize, 's'));
    }
    return action;
  }

  void Commit(int seat, uint64_t id, const v1::Action& action) {
    absl::StatusOr<CommittedMove> move =
        CommitTo(*match_, seat, id, action, entropy_);
    ASSERT_TRUE(move.ok()) << move.status();
    pending_[seat] = *std::move(move);
  }

  // Whether decision `id` still waits in that phase (a seat withheld).
  bool Stalled(uint64_t id, bool reveal_phase) const {
    if (match_->finished()) return false;
    const std::optional<DecisionView> now = match_->decision();
    return now->id == id && now->reveal_phase == reveal_phase;
  }

  void PassDeadline() {
    clock_.Advance(absl::Milliseconds(kTimeoutMs + 1));
    ASSERT_TRUE(match_->CheckDeadlines().ok());
  }

  const SigningKey key_ = *SigningKey::FromSeed(std::string(32, '\x44'));
  MatchConfig config_;
  FakeClock clock_;
  EntropySource entropy_;
  RandomStream chooser_;
  std::vector<CommittedMove> pending_;
  std::string log_;
  std::unique_ptr<Match> match_;
};

v1::GameConfig ParseConfig(const GameCase& game) {
  v1::GameConfig config;
  EXPECT_TRUE(
      google::protobuf::TextFormat::ParseFromString(game.config, &config));
  return config;
}

using Param = std::tuple<GameCase, v1::ForfeitPolicy>;

void PrintTo(const GameCase& game, std::ostream* os) { *os << game.name; }

class FaultConformanceTest : public ::testing::TestWithParam<Param> {
 protected:
  const GameCase& game() const { return std::get<0>(GetParam()); }
  v1::ForfeitPolicy policy() const { return std::get<1>(GetParam()); }
  Digest SeedOf(std::string_view what, int n) const {
    return Sha256({"fault-conformance", game().name,
                   v1::ForfeitPolicy_Name(policy()), what, absl::StrCat(n)});
  }
  static bool Covered(const std::set<std::string>& kinds,
                      const Coverage& planted) {
    for (const std::string& kind : kinds) {
      const auto it = planted.find(kind);
      if (it == planted.end() || it->second.size() < std::size(kFaults)) {
        return false;
      }
    }
    return true;
  }
  // Every (kind, fault) pair of every kind met was planted.
  static void ExpectCovered(const std::set<std::string>& kinds,
                            const Coverage& planted) {
    for (const std::string& kind : kinds) {
      for (Fault fault : kFaults) {
        const auto it = planted.find(kind);
        EXPECT_TRUE(it != planted.end() && it->second.count(fault))
            << "no " << FaultName(fault) << " at a " << kind << " decision";
      }
    }
  }
};

TEST_P(FaultConformanceTest, FaultyMatchesVerifyWithTheRefereesOutcome) {
  const v1::GameConfig config = ParseConfig(game());
  Coverage planted;
  std::set<std::string> kinds;  // Every kind of decision met.
  int forfeits = 0;
  int played = 0;
  // Under the forfeit policy: the next pair to plant, in turn.
  size_t next_pair = 0;
  for (int n = 0; n < game().matches_per_policy; ++n) {
    // Under the sanitizers (tests/sanitizers.h) every kSanitizerStride-th
    // match, and every match while a kind of decision met so far has not
    // had every fault planted (a rare kind, such as reserving a goal in
    // Pyramid Scheme, comes up in too few of every fourth match).
    if (n % kSanitizerStride != 0 && Covered(kinds, planted)) continue;
    SCOPED_TRACE(absl::StrCat("match ", n));
    const int seats = game().seats[n % game().seats.size()];
    FaultyMatch match(config, seats, policy(), SeedOf("match", n));
    RandomStream dice(SeedOf("dice", n));
    // Forfeit policy: this match plants one fault, after its first `skip`
    // decisions, at the first decision of a kind that has not met every
    // fault yet (or, once all have, the next fault in turn).
    // A quarter of them start at once, so the seed decision gets its turn.
    const int skip =
        dice.Uniform(4) == 0 ? 0 : static_cast<int>(dice.Uniform(40));
    bool planted_one = false;
    const FaultyMatch::Plan plan = [&](uint64_t decision, int seat,
                                       const std::string& kind) {
      kinds.insert(kind);
      // A fault this kind of decision has not met yet, if any.
      std::optional<Fault> missing;
      for (Fault fault : kFaults) {
        if (!missing && !planted[kind].count(fault)) missing = fault;
      }
      if (policy() == v1::FORFEIT_POLICY_DEFAULT_ACTION) {
        if (missing) return *missing;
        return dice.Uniform(8) == 0 ? kFaults[dice.Uniform(4)] : Fault::kNone;
      }
      if (planted_one || static_cast<int>(decision) < skip) {
        return Fault::kNone;
      }
      if (!missing && !Covered(kinds, planted)) {
        return Fault::kNone;  // Wait for a kind that still misses one.
      }
      planted_one = true;
      if (missing) return *missing;
      next_pair = (next_pair + 1) % std::size(kFaults);
      return kFaults[next_pair];
    };
    ASSERT_NO_FATAL_FAILURE(match.Play(plan, planted));
    ASSERT_NO_FATAL_FAILURE(match.CheckLog());
    ++played;
    const bool forfeited =
        match.outcome().termination() == v1::TERMINATION_FORFEIT;
    forfeits += forfeited;
    if (policy() == v1::FORFEIT_POLICY_DEFAULT_ACTION) {
      EXPECT_FALSE(forfeited) << "a fault forfeited under the default policy";
    } else {
      EXPECT_EQ(forfeited, planted_one);
    }
  }
  EXPECT_GT(played, 0);
  if (policy() == v1::FORFEIT_POLICY_FORFEIT) {
    EXPECT_GT(forfeits, 0);
  }
  ExpectCovered(kinds, planted);
}

INSTANTIATE_TEST_SUITE_P(
    AllGames, FaultConformanceTest,
    ::testing::Combine(::testing::ValuesIn(kGames),
                       ::testing::Values(v1::FORFEIT_POLICY_FORFEIT,
                                         v1::FORFEIT_POLICY_DEFAULT_ACTION)),
    [](const ::testing::TestParamInfo<Param>& info) {
      return absl::StrCat(std::get<0>(info.param).name,
                          std::get<1>(info.param) == v1::FORFEIT_POLICY_FORFEIT
                              ? "Forfeit"
                              : "Default");
    });

}  // namespace
}  // namespace pyramid
