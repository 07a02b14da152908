// Match::Resume: a match cut off after any record of its log (as a referee
// killed at that instant leaves it) is rebuilt by re-running the log, goes
// on to the same end, and the whole file verifies, its first bytes
// unchanged and one Restart record per restart.
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/core/local_runner.h"
#include "referee/core/log_reader.h"
#include "referee/core/match.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/sha256.h"
#include "replay/verifier.h"

namespace pyramid {
namespace {

using ::testing::HasSubstr;

struct Setup {
  const char* game;
  int seats;
  v1::ForfeitPolicy policy;
  uint32_t bank_ms;
};

// Test names show the setup, not its bytes (which hold a pointer).
void PrintTo(const Setup& setup, std::ostream* out) {
  *out << setup.game << " " << setup.seats << " seats, "
       << (setup.policy == v1::FORFEIT_POLICY_FORFEIT ? "forfeit" : "default")
       << " policy, bank " << setup.bank_ms << " ms";
}

class MatchResumeTest : public ::testing::TestWithParam<Setup> {
 protected:
  MatchConfig Config() const {
    MatchConfig config;
    config.game.set_game(GetParam().game);
    config.seats.resize(GetParam().seats);
    config.clocks.set_commit_timeout_ms(1000);
    config.clocks.set_reveal_timeout_ms(1000);
    config.clocks.set_time_bank_ms(GetParam().bank_ms);
    config.clocks.set_time_bank_increment_ms(GetParam().bank_ms / 10);
    config.forfeit_policy = GetParam().policy;
    config.checkpoint_interval = 5;
    return config;
  }

  static std::string Salt(int seat, uint64_t decision) {
    return std::string(
        AsView(Sha256(absl::StrCat("salt", seat, "/", decision))));
  }
  // What `seat` plays in `decision`: a fixed seed, else one of its legal
  // actions chosen by the decision id (an empty action where the game lists
  // none, which is then illegal: a fault).
  static std::string Choice(const Match& match, int seat, uint64_t decision) {
    v1::Action action;
    if (decision == 0) {
      action.mutable_seed()->set_contribution(std::string(32, 'a' + seat));
    } else {
      const std::vector<v1::Action> legal = match.LegalActions(seat);
      if (!legal.empty()) action = legal[decision % legal.size()];
    }
    return action.SerializeAsString();
  }

  // Plays `match` until it ends or `steps` calls were made. Seat 1 misses
  // every seventh decision's commit deadline; time moves 7 ms per call.
  void Play(Match& match, int steps = 1 << 30) {
    for (int step = 0; step < steps && !match.finished(); ++step) {
      clock_.Advance(absl::Milliseconds(7));
      const DecisionView d = *match.decision();
      bool acted = false;
      for (int seat : d.seats) {
        if (match.AwaitsCommit(seat)) {
          if (seat == 1 && d.id % 7 == 3) continue;  // Misses the deadline.
          const std::string bytes = Choice(match, seat, d.id);
          ASSERT_TRUE(
              match
                  .Commit(seat, d.id,
                          AsView(CommitmentHash(match.match_id(), seat, d.id,
                                                Salt(seat, d.id), bytes)))
                  .ok());
          acted = true;
          break;
        }
        if (match.AwaitsReveal(seat)) {
          // A faulted reveal is a legitimate outcome; ignore its status.
          match.Reveal(seat, d.id, Salt(seat, d.id), Choice(match, seat, d.id))
              .IgnoreError();
          acted = true;
          break;
        }
      }
      if (!acted) {
        clock_.Advance(absl::Milliseconds(2000));  // Let the deadline pass.
        ASSERT_TRUE(match.CheckDeadlines().ok());
      }
    }
  }

  Verdict Verify(const std::string& log) const {
    VerifyOptions options;
    options.pinned_key = key_.public_key();
    return VerifyLog(log, options);
  }

  SigningKey key_ = *SigningKey::FromSeed(std::string(32, 'k'));
  FakeClock clock_;
};

TEST_P(MatchResumeTest, ResumesAfterEveryRecordAndEndsTheSame) {
  std::string reference;
  absl::StatusOr<std::unique_ptr<Match>> original =
      Match::Create(Config(), key_, std::make_unique<StringLogSink>(&reference),
                    &clock_, DeterministicEntropy(Sha256("resume")));
  ASSERT_TRUE(original.ok()) << original.status();
  const std::string contribution = (*original)->referee_contribution();
  Play(**original);
  ASSERT_TRUE((*original)->finished());
  ASSERT_EQ(Verify(reference).kind, Verdict::Kind::kGenuine);
  const std::string outcome = (*original)->outcome().SerializeAsString();

  const SplitLogResult split = SplitLog(reference);
  // Every cut for short logs; for long ones the first and last 8 and 12
  // spread between (each resume re-runs the whole prefix).
  const size_t n = split.records.size();
  std::vector<size_t> cuts;
  for (size_t cut = 2; cut <= n; ++cut) {
    if (n <= 64 || cut < 10 || cut + 8 > n || cut % (n / 12) == 0) {
      cuts.push_back(cut);
    }
  }
  for (size_t cut : cuts) {
    const size_t end = cut == split.records.size() ? reference.size()
                                                   : split.records[cut].offset;
    std::string file = reference.substr(0, end);
    clock_.Advance(absl::Seconds(30));  // The referee was down.
    absl::StatusOr<std::unique_ptr<Match>> resumed =
        Match::Resume(file, contribution, key_, FsyncPolicy::kCheckpoints,
                      std::make_unique<StringLogSink>(&file), &clock_);
    ASSERT_TRUE(resumed.ok()) << "cut " << cut << ": " << resumed.status();
    // The re-run may itself write the outcome (when the cut falls after the
    // last move): then there is nothing to resume and no restart.
    const bool over_at_once = (*resumed)->finished();
    Play(**resumed);
    ASSERT_TRUE((*resumed)->finished()) << "cut " << cut;
    const Verdict v = Verify(file);
    ASSERT_EQ(v.kind, Verdict::Kind::kGenuine)
        << "cut " << cut << ": " << v.reason;
    EXPECT_EQ(file.substr(0, end), reference.substr(0, end)) << cut;
    // The same moves and the same missed deadlines: the same end.
    EXPECT_EQ((*resumed)->outcome().SerializeAsString(), outcome) << cut;
    int restarts = 0;
    for (const RawRecord& raw : SplitLog(file).records) {
      v1::LogRecord record;
      ASSERT_TRUE(record.ParseFromArray(raw.bytes.data(),
                                        static_cast<int>(raw.bytes.size())));
      restarts += record.has_restart();
    }
    // With the outcome in the cut, the match is over at once.
    bool ended = false;
    for (size_t i = 0; i < cut; ++i) {
      v1::LogRecord record;
      record.ParseFromArray(split.records[i].bytes.data(),
                            static_cast<int>(split.records[i].bytes.size()));
      ended = ended || record.has_outcome();
    }
    if (ended) {
      EXPECT_TRUE(over_at_once) << "cut " << cut;
    }
    EXPECT_EQ(restarts, over_at_once ? 0 : 1) << "cut " << cut;
  }
}

TEST_P(MatchResumeTest, ResumesTwiceAndRefusesATornOrForeignLog) {
  std::string file;
  absl::StatusOr<std::unique_ptr<Match>> match =
      Match::Create(Config(), key_, std::make_unique<StringLogSink>(&file),
                    &clock_, DeterministicEntropy(Sha256("twice")));
  ASSERT_TRUE(match.ok());
  const std::string contribution = (*match)->referee_contribution();
  Play(**match, 9);
  for (int restart = 0; restart < 2; ++restart) {
    ASSERT_FALSE((*match)->finished());
    match->reset();
    std::string copy = file;
    // A torn last record is refused (the caller truncates it first).
    EXPECT_EQ(Match::Resume(copy.substr(0, copy.size() - 1), contribution, key_,
                            FsyncPolicy::kNever,
                            std::make_unique<StringLogSink>(&copy), &clock_)
                  .status()
                  .code(),
              absl::StatusCode::kDataLoss);
    // So is another contribution than the header's commitment binds.
    EXPECT_EQ(
        Match::Resume(file, std::string(32, 'x'), key_, FsyncPolicy::kNever,
                      std::make_unique<StringLogSink>(&copy), &clock_)
            .status()
            .code(),
        absl::StatusCode::kDataLoss);
    clock_.Advance(absl::Seconds(10));
    match = Match::Resume(file, contribution, key_, FsyncPolicy::kNever,
                          std::make_unique<StringLogSink>(&file), &clock_);
    ASSERT_TRUE(match.ok()) << match.status();
    Play(**match, 5);
  }
  Play(**match);
  ASSERT_TRUE((*match)->finished());
  const Verdict v = Verify(file);
  ASSERT_EQ(v.kind, Verdict::Kind::kGenuine) << v.reason;
}

// How each sync reached a SyncCountingSink: at once (Sync) or as a job for
// another thread (SyncLater). Kept apart from the sink, which a finished
// match lets go of.
struct SyncCounts {
  int syncs = 0;
  int sync_laters = 0;
};

class SyncCountingSink final : public LogSink {
 public:
  SyncCountingSink(std::string* out, std::shared_ptr<SyncCounts> counts)
      : inner_(out), counts_(std::move(counts)) {}
  absl::Status Append(std::string_view bytes) override {
    return inner_.Append(bytes);
  }
  absl::Status Sync() override {
    ++counts_->syncs;
    return absl::OkStatus();
  }
  SyncJob SyncLater() override {
    ++counts_->sync_laters;
    return [](SyncDone done) { done(absl::OkStatus()); };
  }

 private:
  StringLogSink inner_;
  const std::shared_ptr<SyncCounts> counts_;
};

// A resumed match hands the syncs it defers to its file's own SyncLater (a
// journal, or a thread of the referee's pool), as a new match does: never
// an fdatasync on the caller's thread.
TEST_P(MatchResumeTest, AResumedMatchDefersItsSyncsAsANewOneDoes) {
  std::string file;
  absl::StatusOr<std::unique_ptr<Match>> match =
      Match::Create(Config(), key_, std::make_unique<StringLogSink>(&file),
                    &clock_, DeterministicEntropy(Sha256("defer")));
  ASSERT_TRUE(match.ok());
  const std::string contribution = (*match)->referee_contribution();
  Play(**match, 9);
  ASSERT_FALSE((*match)->finished());
  match->reset();
  auto counts = std::make_shared<SyncCounts>();
  match = Match::Resume(
      std::string(file), contribution, key_, FsyncPolicy::kCheckpoints,
      std::make_unique<SyncCountingSink>(&file, counts), &clock_);
  ASSERT_TRUE(match.ok()) << match.status();
  (*match)->DeferCheckpointSyncs();
  // The seal's sync is owed whether or not the call that sealed batched.
  Play(**match);
  ASSERT_TRUE((*match)->finished());
  const std::optional<SyncJob> seal = (*match)->TakeOwedSync();
  ASSERT_TRUE(seal.has_value());
  EXPECT_EQ(counts->sync_laters, 1);
  absl::Status reported = absl::UnknownError("not run");
  (*seal)([&](absl::Status s) { reported = s; });
  EXPECT_TRUE(reported.ok()) << reported;
  EXPECT_EQ(Verify(file).kind, Verdict::Kind::kGenuine);
}

INSTANTIATE_TEST_SUITE_P(
    Games, MatchResumeTest,
    ::testing::Values(
        Setup{"rock_paper_pyramid", 3, v1::FORFEIT_POLICY_DEFAULT_ACTION, 0},
        Setup{"rock_paper_pyramid", 3, v1::FORFEIT_POLICY_FORFEIT, 500},
        Setup{"flaming_pyramids", 3, v1::FORFEIT_POLICY_DEFAULT_ACTION, 3000},
        Setup{"pyramid_scheme", 2, v1::FORFEIT_POLICY_DEFAULT_ACTION, 0},
        Setup{"pyramid_shambo", 2, v1::FORFEIT_POLICY_DEFAULT_ACTION, 0}),
    [](const ::testing::TestParamInfo<Setup>& info) {
      return absl::StrCat(info.param.game, "_", info.param.seats, "seats_",
                          info.param.policy == v1::FORFEIT_POLICY_FORFEIT
                              ? "forfeit"
                              : "default",
                          info.param.bank_ms > 0 ? "_bank" : "");
    });

}  // namespace
}  // namespace pyramid
