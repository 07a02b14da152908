// The match core's protocol: status codes for every misuse, deadlines with an
// injected clock, both forfeit policies, seat signatures, and that every log
// it writes verifies.
#include "referee/core/match.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/core/local_runner.h"
#include "referee/core/log_format.h"
#include "referee/core/log_reader.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/sha256.h"
#include "replay/verifier.h"

namespace pyramid {
namespace {

using ::testing::HasSubstr;

v1::Action Piece(v1::RppColour colour, v1::RppSize size) {
  v1::Action action;
  v1::RppPiece* piece = action.mutable_rock_paper_pyramid()->mutable_piece();
  piece->set_colour(colour);
  piece->set_size(size);
  return action;
}

v1::Action Seed(char fill) {
  v1::Action action;
  action.mutable_seed()->set_contribution(std::string(32, fill));
  return action;
}

std::string Salt(int seat, uint64_t decision) {
  return std::string(AsView(Sha256(std::to_string(seat * 1000 + decision))));
}

class MatchTest : public ::testing::Test {
 protected:
  void Start(v1::ForfeitPolicy policy, uint32_t commit_ms = 1000,
             uint32_t reveal_ms = 1000, std::vector<std::string> keys = {},
             uint32_t bank_ms = 0, uint32_t increment_ms = 0) {
    MatchConfig config;
    config.game.set_game("rock_paper_pyramid");
    for (int i = 0; i < 3; ++i) {
      v1::Seat seat;
      seat.set_name("seat" + std::to_string(i));
      if (i < static_cast<int>(keys.size())) seat.set_public_key(keys[i]);
      config.seats.push_back(seat);
    }
    config.clocks.set_commit_timeout_ms(commit_ms);
    config.clocks.set_reveal_timeout_ms(reveal_ms);
    config.clocks.set_time_bank_ms(bank_ms);
    config.clocks.set_time_bank_increment_ms(increment_ms);
    config.clocks.set_seed_timeout_ms(seed_timeout_ms_);
    config.forfeit_policy = policy;
    config.checkpoint_interval = checkpoint_interval_;
    absl::StatusOr<std::unique_ptr<Match>> match = Match::Create(
        config, referee_key_, std::make_unique<StringLogSink>(&log_), &clock_,
        DeterministicEntropy(Sha256("match-test")));
    ASSERT_TRUE(match.ok()) << match.status();
    match_ = *std::move(match);
  }

  absl::Status CommitAction(int seat, const v1::Action& action) {
    const uint64_t id = match_->decision()->id;
    bytes_[seat] = action.SerializeAsString();
    return match_->Commit(seat, id,
                          AsView(CommitmentHash(match_->match_id(), seat, id,
                                                Salt(seat, id), bytes_[seat])));
  }
  absl::Status RevealAction(int seat) {
    const uint64_t id = match_->decision()->id;
    return match_->Reveal(seat, id, Salt(seat, id), bytes_[seat]);
  }
  // Plays the seed decision honestly.
  void PlaySeed() {
    for (int seat = 0; seat < 3; ++seat) {
      ASSERT_TRUE(CommitAction(seat, Seed('a' + seat)).ok());
    }
    for (int seat = 0; seat < 3; ++seat) ASSERT_TRUE(RevealAction(seat).ok());
    ASSERT_EQ(match_->decision()->id, 1u);
  }
  Verdict Verify() {
    VerifyOptions options;
    options.pinned_key = referee_key_.public_key();
    return VerifyLog(log_, options);
  }
  void ExpectASeedContributionNamesThisLogsHeaderOrNone();

  SigningKey referee_key_ = *SigningKey::FromSeed(std::string(32, 'k'));
  FakeClock clock_;
  uint32_t seed_timeout_ms_ = 0;  // ClockSettings.seed_timeout_ms.
  uint32_t checkpoint_interval_ = 8;
  std::string log_;
  std::unique_ptr<Match> match_;
  std::string bytes_[3];
};

TEST_F(MatchTest, OpensTheSeedDecisionForEverySeat) {
  Start(v1::FORFEIT_POLICY_FORFEIT);
  const DecisionView d = *match_->decision();
  EXPECT_EQ(d.id, 0u);
  EXPECT_THAT(d.seats, ::testing::ElementsAre(0, 1, 2));
  EXPECT_TRUE(d.simultaneous);
  EXPECT_FALSE(d.reveal_phase);
  EXPECT_TRUE(match_->LegalActions(0).empty());
}

TEST_F(MatchTest, RevealBeforeEveryCommitIsRefused) {
  Start(v1::FORFEIT_POLICY_FORFEIT);
  ASSERT_TRUE(CommitAction(0, Seed('a')).ok());
  absl::Status s = RevealAction(0);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("before every commitment"));
}

TEST_F(MatchTest, DuplicateCommitAndRevealAreAlreadyExists) {
  Start(v1::FORFEIT_POLICY_FORFEIT);
  ASSERT_TRUE(CommitAction(0, Seed('a')).ok());
  EXPECT_EQ(CommitAction(0, Seed('a')).code(),
            absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(CommitAction(1, Seed('b')).ok());
  ASSERT_TRUE(CommitAction(2, Seed('c')).ok());
  ASSERT_TRUE(RevealAction(0).ok());
  EXPECT_EQ(RevealAction(0).code(), absl::StatusCode::kAlreadyExists);
}

TEST_F(MatchTest, WrongDecisionIdIsFailedPrecondition) {
  Start(v1::FORFEIT_POLICY_FORFEIT);
  absl::Status s = match_->Commit(0, 5, std::string(32, 'x'));
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("decision 5 is not open"));
}

TEST_F(MatchTest, SeatOutsideTheDecisionIsRefused) {
  Start(v1::FORFEIT_POLICY_FORFEIT);
  EXPECT_EQ(match_->Commit(7, 0, std::string(32, 'x')).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(MatchTest, MalformedCommitmentIsInvalidArgument) {
  Start(v1::FORFEIT_POLICY_FORFEIT);
  EXPECT_EQ(match_->Commit(0, 0, "short").code(),
            absl::StatusCode::kInvalidArgument);
  // Nothing was accepted: the seat may still commit.
  EXPECT_TRUE(match_->AwaitsCommit(0));
}

TEST_F(MatchTest, MalformedSaltIsRefusedWithoutConsequence) {
  Start(v1::FORFEIT_POLICY_FORFEIT);
  for (int seat = 0; seat < 3; ++seat) {
    ASSERT_TRUE(CommitAction(seat, Seed('a' + seat)).ok());
  }
  EXPECT_EQ(match_->Reveal(0, 0, "salt", bytes_[0]).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(match_->AwaitsReveal(0));
  EXPECT_TRUE(RevealAction(0).ok());
}

TEST_F(MatchTest, MismatchedRevealForfeitsAndEndsTheMatch) {
  Start(v1::FORFEIT_POLICY_FORFEIT);
  PlaySeed();
  for (int seat = 0; seat < 3; ++seat) {
    ASSERT_TRUE(CommitAction(seat, Piece(v1::RPP_BLACK, v1::RPP_LARGE)).ok());
  }
  bytes_[1] = Piece(v1::RPP_WHITE, v1::RPP_SMALL).SerializeAsString();
  absl::Status s = RevealAction(1);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("does not match"));
  EXPECT_FALSE(match_->finished());  // Waits for the other reveals.
  ASSERT_TRUE(RevealAction(0).ok());
  ASSERT_TRUE(RevealAction(2).ok());
  ASSERT_TRUE(match_->finished());
  EXPECT_EQ(match_->outcome().termination(), v1::TERMINATION_FORFEIT);
  EXPECT_TRUE(match_->outcome().seats(1).forfeited());
  EXPECT_EQ(match_->outcome().seats(1).rank(), 3u);
  EXPECT_EQ(match_->outcome().seats(0).rank(), 1u);
  EXPECT_EQ(match_->outcome().seats(2).rank(), 1u);
  Verdict v = Verify();
  EXPECT_EQ(v.kind, Verdict::Kind::kGenuine) << v.reason;
}

// A seat whose client hashed the match id as its hex text hears what went
// wrong; the log's fault says only what any reader can check.
TEST_F(MatchTest, AMismatchedRevealTellsItsSeatTheMistakeTheLogDoesNot) {
  Start(v1::FORFEIT_POLICY_FORFEIT);
  PlaySeed();
  ASSERT_TRUE(CommitAction(0, Piece(v1::RPP_BLACK, v1::RPP_LARGE)).ok());
  ASSERT_TRUE(CommitAction(2, Piece(v1::RPP_BLACK, v1::RPP_LARGE)).ok());
  const uint64_t id = match_->decision()->id;
  bytes_[1] = Piece(v1::RPP_BLACK, v1::RPP_LARGE).SerializeAsString();
  std::string hex_preimage(kCommitDomain);
  hex_preimage.append(ToHex(match_->match_id()));
  AppendU32Be(hex_preimage, 1);
  AppendU64Be(hex_preimage, id);
  absl::StrAppend(&hex_preimage, Salt(1, id), bytes_[1]);
  ASSERT_TRUE(match_->Commit(1, id, AsView(Sha256(hex_preimage))).ok());
  absl::Status s = RevealAction(1);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("the reveal does not match the commitment: the "
                        "commitment is this reveal's hash laid out otherwise: "
                        "the match id is hashed as its hex text"));
  ASSERT_TRUE(RevealAction(0).ok());
  ASSERT_TRUE(RevealAction(2).ok());
  ASSERT_TRUE(match_->finished());
  EXPECT_TRUE(match_->outcome().seats(1).forfeited());
  SplitLogResult split = SplitLog(log_);
  int faults = 0;
  for (const auto& record : split.records) {
    v1::LogRecord parsed;
    ASSERT_TRUE(parsed.ParseFromString(std::string(record.bytes)));
    if (!parsed.has_fault()) continue;
    ++faults;
    EXPECT_EQ(parsed.fault().detail(),
              "the reveal does not match the commitment");
  }
  EXPECT_EQ(faults, 1);
  Verdict v = Verify();
  EXPECT_EQ(v.kind, Verdict::Kind::kGenuine) << v.reason;
}

TEST_F(MatchTest, IllegalActionUnderDefaultPolicyPlaysTheDefault) {
  Start(v1::FORFEIT_POLICY_DEFAULT_ACTION);
  PlaySeed();
  // Red pieces do not exist without the option: illegal.
  ASSERT_TRUE(CommitAction(0, Piece(v1::RPP_RED, v1::RPP_LARGE)).ok());
  ASSERT_TRUE(CommitAction(1, Piece(v1::RPP_WHITE, v1::RPP_SMALL)).ok());
  ASSERT_TRUE(CommitAction(2, Piece(v1::RPP_CRYSTAL, v1::RPP_MEDIUM)).ok());
  EXPECT_EQ(RevealAction(0).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(RevealAction(1).ok());
  ASSERT_TRUE(RevealAction(2).ok());
  ASSERT_FALSE(match_->finished());
  EXPECT_EQ(match_->decision()->id, 2u);
  // The default (Black Large, first in sorted order) left seat 0's pool.
  const v1::RockPaperPyramidObservation o =
      match_->PublicView().rock_paper_pyramid();
  ASSERT_EQ(o.history_size(), 1);
  EXPECT_EQ(o.history(0).played(0).colour(), v1::RPP_BLACK);
  EXPECT_EQ(o.history(0).played(0).size(), v1::RPP_LARGE);
  EXPECT_EQ(o.seats(0).pool_size(), 8);
}

TEST_F(MatchTest, CommitTimeoutForfeitsEveryLateSeatTogether) {
  Start(v1::FORFEIT_POLICY_FORFEIT, /*commit_ms=*/500);
  PlaySeed();
  ASSERT_TRUE(CommitAction(0, Piece(v1::RPP_BLACK, v1::RPP_LARGE)).ok());
  clock_.Advance(absl::Milliseconds(499));
  ASSERT_TRUE(match_->CheckDeadlines().ok());
  EXPECT_FALSE(match_->finished());
  clock_.Advance(absl::Milliseconds(1));
  ASSERT_TRUE(match_->CheckDeadlines().ok());
  ASSERT_TRUE(match_->finished());
  EXPECT_EQ(match_->outcome().seats(0).rank(), 1u);
  EXPECT_EQ(match_->outcome().seats(1).rank(), 2u);
  EXPECT_EQ(match_->outcome().seats(2).rank(), 2u);
  EXPECT_TRUE(match_->outcome().seats(1).forfeited());
  EXPECT_TRUE(match_->outcome().seats(2).forfeited());
  EXPECT_EQ(Verify().kind, Verdict::Kind::kGenuine) << Verify().reason;
}

TEST_F(MatchTest, LateCommitAfterTheDeadlineIsRefused) {
  Start(v1::FORFEIT_POLICY_DEFAULT_ACTION, /*commit_ms=*/500);
  PlaySeed();
  ASSERT_TRUE(CommitAction(0, Piece(v1::RPP_BLACK, v1::RPP_LARGE)).ok());
  ASSERT_TRUE(CommitAction(1, Piece(v1::RPP_BLACK, v1::RPP_LARGE)).ok());
  clock_.Advance(absl::Milliseconds(600));
  // The deadline is applied before the commit is considered.
  EXPECT_FALSE(CommitAction(2, Piece(v1::RPP_WHITE, v1::RPP_LARGE)).ok());
  EXPECT_TRUE(match_->decision()->reveal_phase);
  ASSERT_TRUE(RevealAction(0).ok());
  ASSERT_TRUE(RevealAction(1).ok());
  EXPECT_EQ(match_->decision()->id, 2u);
  EXPECT_EQ(Verify().kind, Verdict::Kind::kUnsealedPrefix);
}

TEST_F(MatchTest, RevealTimeoutUnderDefaultPolicyContinues) {
  Start(v1::FORFEIT_POLICY_DEFAULT_ACTION, 500, /*reveal_ms=*/300);
  PlaySeed();
  for (int seat = 0; seat < 3; ++seat) {
    ASSERT_TRUE(CommitAction(seat, Piece(v1::RPP_WHITE, v1::RPP_SMALL)).ok());
  }
  ASSERT_TRUE(RevealAction(0).ok());
  clock_.Advance(absl::Milliseconds(300));
  ASSERT_TRUE(match_->CheckDeadlines().ok());
  EXPECT_EQ(match_->decision()->id, 2u);
  EXPECT_EQ(match_->PublicView().rock_paper_pyramid().rounds_played(), 1u);
}

TEST_F(MatchTest, TimeBankAbsorbsOverrunsAndGrowsByTheIncrement) {
  Start(v1::FORFEIT_POLICY_FORFEIT, /*commit_ms=*/100, /*reveal_ms=*/100, {},
        /*bank_ms=*/250, /*increment_ms=*/20);
  // Seed decision: seat 2 overruns by 200 ms of its 250 ms bank.
  ASSERT_TRUE(CommitAction(0, Seed('a')).ok());
  ASSERT_TRUE(CommitAction(1, Seed('b')).ok());
  EXPECT_EQ(match_->NextDeadline(),
            clock_.Now() + absl::Milliseconds(100 + 250));
  clock_.Advance(absl::Milliseconds(300));
  ASSERT_TRUE(match_->CheckDeadlines().ok());
  ASSERT_TRUE(CommitAction(2, Seed('c')).ok());
  for (int seat = 0; seat < 3; ++seat) ASSERT_TRUE(RevealAction(seat).ok());
  // Decision 1: seat 2 has 250 - 200 + 20 = 70 ms of bank left, seat 0 has
  // 250 + 20.
  const DecisionView d = *match_->decision();
  ASSERT_EQ(d.id, 1u);
  EXPECT_EQ(d.deadlines[0], clock_.Now() + absl::Milliseconds(100 + 270));
  EXPECT_EQ(d.deadlines[2], clock_.Now() + absl::Milliseconds(100 + 70));
  ASSERT_TRUE(CommitAction(0, Piece(v1::RPP_BLACK, v1::RPP_LARGE)).ok());
  ASSERT_TRUE(CommitAction(1, Piece(v1::RPP_BLACK, v1::RPP_LARGE)).ok());
  clock_.Advance(absl::Milliseconds(170));
  ASSERT_TRUE(match_->CheckDeadlines().ok());
  ASSERT_TRUE(match_->finished());
  EXPECT_TRUE(match_->outcome().seats(2).forfeited());
  EXPECT_FALSE(match_->outcome().seats(0).forfeited());
  EXPECT_EQ(Verify().kind, Verdict::Kind::kGenuine) << Verify().reason;
}

// A missed commit deadline empties the seat's bank: it has used the commit
// timeout and all of its bank, and earns no increment (docs/protocol.md,
// "Deadlines"). Under the default-action policy the seat plays on, so a
// bank left full would give a seat that stopped answering the whole bank
// again at every decision.
TEST_F(MatchTest, AMissedCommitDeadlineEmptiesTheBank) {
  Start(v1::FORFEIT_POLICY_DEFAULT_ACTION, /*commit_ms=*/100,
        /*reveal_ms=*/100, {}, /*bank_ms=*/250, /*increment_ms=*/20);
  ASSERT_TRUE(CommitAction(0, Seed('a')).ok());
  ASSERT_TRUE(CommitAction(1, Seed('b')).ok());
  clock_.Advance(absl::Milliseconds(350));  // Seat 2's deadline: 100 + 250.
  ASSERT_TRUE(match_->CheckDeadlines().ok());
  ASSERT_TRUE(RevealAction(0).ok());
  ASSERT_TRUE(RevealAction(1).ok());
  DecisionView d = *match_->decision();
  ASSERT_EQ(d.id, 1u);
  // Seat 0 committed within its timeout: 250 + 20. Seat 2: nothing left.
  EXPECT_EQ(d.deadlines[0], clock_.Now() + absl::Milliseconds(100 + 270));
  EXPECT_EQ(d.deadlines[2], clock_.Now() + absl::Milliseconds(100));
  // Committing again, within the timeout, earns the increment.
  ASSERT_TRUE(CommitAction(0, Piece(v1::RPP_BLACK, v1::RPP_LARGE)).ok());
  ASSERT_TRUE(CommitAction(1, Piece(v1::RPP_BLACK, v1::RPP_LARGE)).ok());
  ASSERT_TRUE(CommitAction(2, Piece(v1::RPP_BLACK, v1::RPP_LARGE)).ok());
  for (int seat = 0; seat < 3; ++seat) ASSERT_TRUE(RevealAction(seat).ok());
  d = *match_->decision();
  ASSERT_EQ(d.id, 2u);
  EXPECT_EQ(d.deadlines[2], clock_.Now() + absl::Milliseconds(100 + 20));
  // Not over: what is written verifies as far as it goes.
  EXPECT_EQ(Verify().kind, Verdict::Kind::kUnsealedPrefix) << Verify().reason;
}

TEST_F(MatchTest, SeedTimeoutGivesOnlyTheSeedDecisionItsOwnDeadline) {
  seed_timeout_ms_ = 60000;
  Start(v1::FORFEIT_POLICY_FORFEIT, /*commit_ms=*/100, /*reveal_ms=*/100, {},
        /*bank_ms=*/50);
  EXPECT_EQ(match_->NextDeadline(),
            clock_.Now() + absl::Milliseconds(60000 + 50));
  // Fifty seconds to connect cost nothing: not a fault, not the bank.
  clock_.Advance(absl::Seconds(50));
  ASSERT_TRUE(match_->CheckDeadlines().ok());
  PlaySeed();
  const DecisionView d = *match_->decision();
  ASSERT_EQ(d.id, 1u);
  EXPECT_EQ(d.deadlines[0], clock_.Now() + absl::Milliseconds(100 + 50));
  clock_.Advance(absl::Milliseconds(150));
  ASSERT_TRUE(match_->CheckDeadlines().ok());
  EXPECT_TRUE(match_->finished());  // Every seat missed decision 1.
  EXPECT_EQ(Verify().kind, Verdict::Kind::kGenuine) << Verify().reason;
}

TEST_F(MatchTest, SeedTimeoutUnderDefaultPolicyUsesZeroContribution) {
  Start(v1::FORFEIT_POLICY_DEFAULT_ACTION, 500);
  ASSERT_TRUE(CommitAction(0, Seed('a')).ok());
  ASSERT_TRUE(CommitAction(1, Seed('b')).ok());
  clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(match_->CheckDeadlines().ok());
  ASSERT_TRUE(RevealAction(0).ok());
  ASSERT_TRUE(RevealAction(1).ok());
  EXPECT_EQ(match_->decision()->id, 1u);
}

TEST_F(MatchTest, SeedForfeitRanksTheOthersFirstWithScoreZero) {
  Start(v1::FORFEIT_POLICY_FORFEIT, 500);
  ASSERT_TRUE(CommitAction(0, Seed('a')).ok());
  ASSERT_TRUE(CommitAction(2, Seed('c')).ok());
  clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(match_->CheckDeadlines().ok());
  ASSERT_TRUE(match_->finished());
  EXPECT_EQ(match_->outcome().seats(0).rank(), 1u);
  EXPECT_EQ(match_->outcome().seats(2).rank(), 1u);
  EXPECT_EQ(match_->outcome().seats(1).rank(), 3u);
  EXPECT_EQ(Verify().kind, Verdict::Kind::kGenuine) << Verify().reason;
}

// A seed contribution may name the log header (the hash of record 0, which
// the seed decision's requests carry); naming another is an illegal action,
// and the verifier counts the seats that named it.
TEST_F(MatchTest, ASeedContributionNamesThisLogsHeaderOrNone) {
  ExpectASeedContributionNamesThisLogsHeaderOrNone();
}

// The same with a checkpoint after every record: record 1, right after the
// header, is a checkpoint, and the header's hash is still record 0's (it
// was record 1's, so that every seed naming it was refused by the verifier).
TEST_F(MatchTest, ASeedContributionNamesTheHeaderWhateverTheInterval) {
  checkpoint_interval_ = 1;
  ExpectASeedContributionNamesThisLogsHeaderOrNone();
}

void MatchTest::ExpectASeedContributionNamesThisLogsHeaderOrNone() {
  Start(v1::FORFEIT_POLICY_DEFAULT_ACTION);
  const SplitLogResult split = SplitLog(log_);
  ASSERT_FALSE(split.records.empty());
  EXPECT_EQ(AsView(match_->header_hash()),
            AsView(Sha256(split.records[0].bytes)));
  v1::Action named = Seed('a');
  named.mutable_seed()->set_header_hash(
      std::string(AsView(match_->header_hash())));
  v1::Action other = Seed('b');
  other.mutable_seed()->set_header_hash(std::string(AsView(Sha256("other"))));
  ASSERT_TRUE(CommitAction(0, named).ok());
  ASSERT_TRUE(CommitAction(1, other).ok());
  ASSERT_TRUE(CommitAction(2, Seed('c')).ok());
  ASSERT_TRUE(RevealAction(0).ok());
  const absl::Status illegal = RevealAction(1);
  EXPECT_EQ(illegal.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(illegal.message(), HasSubstr("names another log header"));
  ASSERT_TRUE(RevealAction(2).ok());
  ASSERT_EQ(match_->decision()->id, 1u);
  RandomPlayer p0(Sha256("0")), p1(Sha256("1")), p2(Sha256("2"));
  ASSERT_TRUE(RunLocalMatch(*match_, {&p0, &p1, &p2},
                            DeterministicEntropy(Sha256("salts")))
                  .ok());
  const Verdict v = Verify();
  ASSERT_EQ(v.kind, Verdict::Kind::kGenuine) << v.reason;
  EXPECT_EQ(v.seats_naming_header, 1u);
}

// The seed action has its own bound (96 bytes) in every game.
TEST_F(MatchTest, ASeedActionLongerThanItsBoundIsRefusedUnread) {
  Start(v1::FORFEIT_POLICY_FORFEIT);
  v1::Action padded = Seed('a');
  padded.mutable_seed()->set_header_hash(std::string(60, 'h'));
  ASSERT_GT(padded.ByteSizeLong(), kMaxSeedActionBytes);
  ASSERT_TRUE(CommitAction(0, padded).ok());
  ASSERT_TRUE(CommitAction(1, Seed('b')).ok());
  ASSERT_TRUE(CommitAction(2, Seed('c')).ok());
  const absl::Status refused = RevealAction(0);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("seed actions are at most 96"));
  EXPECT_FALSE(match_->finished());  // Refused unread: no fault.
}

TEST_F(MatchTest, SignedSeatsMustSignTheirCommits) {
  const SigningKey seat_key = *SigningKey::FromSeed(std::string(32, 's'));
  Start(v1::FORFEIT_POLICY_FORFEIT, 0, 0, {seat_key.public_key()});
  const std::string bytes = Seed('a').SerializeAsString();
  const Digest c = CommitmentHash(match_->match_id(), 0, 0, Salt(0, 0), bytes);
  EXPECT_EQ(match_->Commit(0, 0, AsView(c)).code(),
            absl::StatusCode::kInvalidArgument);
  const std::string wrong = seat_key.Sign("something else");
  EXPECT_EQ(match_->Commit(0, 0, AsView(c), wrong).code(),
            absl::StatusCode::kInvalidArgument);
  const std::string good = seat_key.Sign(
      CommitSignatureMessage(match_->match_id(), 0, 0, AsView(c)));
  EXPECT_TRUE(match_->Commit(0, 0, AsView(c), good).ok());
  // Seat 1 has no key: a signature is refused.
  EXPECT_EQ(match_->Commit(1, 0, std::string(32, 'x'), good).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(MatchTest, FullMatchWritesAGenuineSealedLog) {
  Start(v1::FORFEIT_POLICY_FORFEIT);
  RandomPlayer p0(Sha256("0")), p1(Sha256("1")), p2(Sha256("2"));
  ASSERT_TRUE(RunLocalMatch(*match_, {&p0, &p1, &p2},
                            DeterministicEntropy(Sha256("salts")))
                  .ok());
  ASSERT_TRUE(match_->finished());
  EXPECT_EQ(match_->outcome().termination(), v1::TERMINATION_NORMAL);
  EXPECT_EQ(match_->Commit(0, 1, std::string(32, 'x')).code(),
            absl::StatusCode::kFailedPrecondition);
  Verdict v = Verify();
  ASSERT_EQ(v.kind, Verdict::Kind::kGenuine) << v.reason;
  EXPECT_EQ(v.moves, 27u);
  EXPECT_EQ(v.outcome.SerializeAsString(),
            match_->outcome().SerializeAsString());
}

TEST_F(MatchTest, EveryPrefixFromTheHeaderCheckpointOnVerifiesAsUnsealed) {
  Start(v1::FORFEIT_POLICY_FORFEIT);
  PlaySeed();
  const SplitLogResult split = SplitLog(log_);
  ASSERT_GE(split.records.size(), 3u);
  ASSERT_TRUE([&] {
    v1::LogRecord second;
    return second.ParseFromString(std::string(split.records[1].bytes)) &&
           second.has_checkpoint();
  }()) << "record 1 is not a checkpoint";
  VerifyOptions options;
  options.pinned_key = referee_key_.public_key();
  // Cut at every byte from the end of the header's checkpoint on (records
  // whole or torn): every prefix verifies as unsealed.
  const size_t first = split.records[2].offset;
  for (size_t cut = first; cut < log_.size(); ++cut) {
    const Verdict v = VerifyLog(std::string_view(log_).substr(0, cut), options);
    EXPECT_EQ(v.kind, Verdict::Kind::kUnsealedPrefix)
        << "cut at " << cut << ": " << v.reason;
  }
  // The header alone has no signature: not genuine, and says why.
  const Verdict header_only = VerifyLog(
      std::string_view(log_).substr(0, split.records[1].offset), options);
  EXPECT_EQ(header_only.kind, Verdict::Kind::kNotGenuine);
}

// Every field of a MatchConfig survives HeaderFor then ConfigFromHeader
// (fsync, which no log records, is given back), and HeaderFor leaves what
// the match draws and signs with to the match.
TEST(MatchConfigTest, SurvivesTheHeaderRoundTrip) {
  MatchConfig config;
  config.game.set_game("rock_paper_pyramid");
  config.game.mutable_rock_paper_pyramid()->set_red(true);
  for (int i = 0; i < 3; ++i) {
    v1::Seat& seat = config.seats.emplace_back();
    seat.set_name("seat" + std::to_string(i));
    seat.set_public_key(std::string(32, static_cast<char>('k' + i)));
  }
  config.clocks.set_commit_timeout_ms(1);
  config.clocks.set_reveal_timeout_ms(2);
  config.clocks.set_time_bank_ms(3);
  config.clocks.set_time_bank_increment_ms(4);
  config.clocks.set_seed_timeout_ms(5);
  config.forfeit_policy = v1::FORFEIT_POLICY_DEFAULT_ACTION;
  config.checkpoint_interval = 7;
  config.fsync = FsyncPolicy::kEveryRecord;
  config.label = "tournament/run/3";

  const v1::Header header = HeaderFor(config);
  EXPECT_EQ(header.format_version(), log_format::kFormatVersion);
  EXPECT_EQ(header.rules_version(), 0u);
  EXPECT_TRUE(header.match_id().empty());
  EXPECT_TRUE(header.referee_public_key().empty());
  EXPECT_TRUE(header.referee_commitment().empty());
  EXPECT_EQ(header.created_unix_ms(), 0);

  const MatchConfig back = ConfigFromHeader(header, FsyncPolicy::kEveryRecord);
  EXPECT_EQ(back.game.SerializeAsString(), config.game.SerializeAsString());
  ASSERT_EQ(back.seats.size(), config.seats.size());
  for (size_t i = 0; i < config.seats.size(); ++i) {
    EXPECT_EQ(back.seats[i].SerializeAsString(),
              config.seats[i].SerializeAsString());
  }
  EXPECT_EQ(back.clocks.SerializeAsString(), config.clocks.SerializeAsString());
  EXPECT_EQ(back.forfeit_policy, config.forfeit_policy);
  EXPECT_EQ(back.checkpoint_interval, config.checkpoint_interval);
  EXPECT_EQ(back.fsync, config.fsync);
  EXPECT_EQ(back.label, config.label);
}

TEST(MatchCreateTest, RefusesBadConfigurations) {
  FakeClock clock;
  std::string log;
  MatchConfig config;
  config.game.set_game("no_such_game");
  config.seats.resize(3);
  EXPECT_EQ(Match::Create(config, SigningKey::Generate(),
                          std::make_unique<StringLogSink>(&log), &clock)
                .status()
                .code(),
            absl::StatusCode::kNotFound);
  config.game.set_game("rock_paper_pyramid");
  config.seats.resize(2);
  EXPECT_EQ(Match::Create(config, SigningKey::Generate(),
                          std::make_unique<StringLogSink>(&log), &clock)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  config.seats.resize(3);
  config.seats[0].set_public_key("short");
  EXPECT_EQ(Match::Create(config, SigningKey::Generate(),
                          std::make_unique<StringLogSink>(&log), &clock)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace pyramid
