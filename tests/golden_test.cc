// The golden logs of testdata/golden/ (see its README.md) must verify as
// genuine with the pinned referee key, forever, with exactly the outcome
// they recorded. A failure here means the verifier, the rules or the log
// format changed in a way that breaks logs already written.
//
// Tests run from the source root (pyramid_test in CMakeLists.txt).
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/game.pb.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/log_format.h"
#include "referee/core/log_reader.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/sha256.h"
#include "replay/verifier.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

constexpr char kGoldenDir[] = "testdata/golden";
constexpr char kKeyFile[] = "testdata/golden/referee.pub";

// What each golden log recorded. Adding a golden log means adding a line.
struct Golden {
  const char* file;  // Under testdata/golden/.
  const char* game;  // The header's GameConfig, protobuf text format.
  v1::ForfeitPolicy policy;
  uint64_t records;
  uint64_t moves;
  v1::Termination termination;
  std::vector<uint32_t> ranks;
  std::vector<int32_t> scores;
  std::vector<bool> forfeited;
  std::vector<std::pair<uint32_t, v1::FaultReason>> faults;  // In log order.
};

// Test names show the golden log's file, not the struct's bytes.
void PrintTo(const Golden& golden, std::ostream* out) { *out << golden.file; }

const Golden kGoldens[] = {
    {"rock_paper_pyramid/classic.pyrlog",
     R"pb(game: "rock_paper_pyramid")pb",
     v1::FORFEIT_POLICY_FORFEIT,
     88,
     27,
     v1::TERMINATION_NORMAL,
     {2, 1, 2},
     {4, 11, 4},
     {false, false, false},
     {}},
    {"rock_paper_pyramid/red.pyrlog",
     R"pb(game: "rock_paper_pyramid"
          rock_paper_pyramid { red: true })pb",
     v1::FORFEIT_POLICY_FORFEIT,
     102,
     30,
     v1::TERMINATION_NORMAL,
     {3, 1, 2},
     {0, 18, 10},
     {false, false, false},
     {}},
    {"rock_paper_pyramid/winner_takes_all.pyrlog",
     R"pb(game: "rock_paper_pyramid"
          rock_paper_pyramid { winner_takes: RPP_TAKES_ALL })pb",
     v1::FORFEIT_POLICY_FORFEIT,
     103,
     27,
     v1::TERMINATION_NORMAL,
     {2, 3, 1},
     {8, 6, 18},
     {false, false, false},
     {}},
    {"rock_paper_pyramid/forfeit_mismatch.pyrlog",
     R"pb(game: "rock_paper_pyramid")pb",
     v1::FORFEIT_POLICY_FORFEIT,
     45,
     9,
     v1::TERMINATION_FORFEIT,
     {1, 3, 2},
     {3, 0, 0},
     {false, true, false},
     {{1, v1::FAULT_REVEAL_MISMATCH}}},
    {"rock_paper_pyramid/default_action_timeout.pyrlog",
     R"pb(game: "rock_paper_pyramid")pb",
     v1::FORFEIT_POLICY_DEFAULT_ACTION,
     87,
     27,
     v1::TERMINATION_NORMAL,
     {2, 3, 1},
     {5, 3, 6},
     {false, false, false},
     {{2, v1::FAULT_COMMIT_TIMEOUT}, {0, v1::FAULT_REVEAL_TIMEOUT}}},
    // Seats with keys sign every commit; seat 1 misses the seed decision
    // (its contribution counts as 32 zero bytes); two referee restarts.
    {"rock_paper_pyramid/signed_seed_timeout_restarts.pyrlog",
     R"pb(game: "rock_paper_pyramid")pb",
     v1::FORFEIT_POLICY_DEFAULT_ACTION,
     90,
     27,
     v1::TERMINATION_NORMAL,
     {3, 1, 2},
     {0, 10, 4},
     {false, false, false},
     {{1, v1::FAULT_COMMIT_TIMEOUT}}},
    // Every seat has a key; seats 0 and 1 name the log header in their seed
    // contribution, seat 2 names another header: an illegal action, so its
    // contribution counts as 32 zero bytes.
    {"rock_paper_pyramid/named_header.pyrlog",
     R"pb(game: "rock_paper_pyramid")pb",
     v1::FORFEIT_POLICY_DEFAULT_ACTION,
     90,
     27,
     v1::TERMINATION_NORMAL,
     {3, 1, 2},
     {2, 13, 9},
     {false, false, false},
     {{2, v1::FAULT_ILLEGAL_ACTION}}},
    {"pyramid_shambo/two_seats_move_limit.pyrlog",
     R"pb(game: "pyramid_shambo"
          pyramid_shambo { max_throws: 16 })pb",
     v1::FORFEIT_POLICY_FORFEIT,
     150,
     49,
     v1::TERMINATION_MOVE_LIMIT,
     {1, 1},
     {6, 6},
     {false, false},
     {}},
    {"pyramid_shambo/three_seats.pyrlog",
     R"pb(game: "pyramid_shambo")pb",
     v1::FORFEIT_POLICY_FORFEIT,
     106,
     31,
     v1::TERMINATION_NORMAL,
     {2, 3, 1},
     {0, 0, 6},
     {false, false, false},
     {}},
    {"pyramid_shambo/ten_seats.pyrlog",
     R"pb(game: "pyramid_shambo")pb",
     v1::FORFEIT_POLICY_FORFEIT,
     350,
     115,
     v1::TERMINATION_NORMAL,
     {2, 10, 9, 7, 6, 4, 1, 8, 2, 5},
     {0, 0, 0, 0, 0, 0, 6, 0, 0, 0},
     std::vector<bool>(10, false),
     {}},
    {"pyramid_shambo/overpayment.pyrlog",
     R"pb(game: "pyramid_shambo"
          pyramid_shambo { max_throws: 47 })pb",
     v1::FORFEIT_POLICY_FORFEIT,
     547,
     167,
     v1::TERMINATION_MOVE_LIMIT,
     {4, 6, 1, 5, 1, 7, 3},
     {3, 0, 8, 0, 8, 0, 5},
     std::vector<bool>(7, false),
     {}},
    {"flaming_pyramids/two_seats.pyrlog",
     R"pb(game: "flaming_pyramids")pb",
     v1::FORFEIT_POLICY_FORFEIT,
     289,
     69,
     v1::TERMINATION_NORMAL,
     {1, 2},
     {0, 38},
     {false, false},
     {}},
    {"flaming_pyramids/four_seats_curse.pyrlog",
     R"pb(game: "flaming_pyramids"
          flaming_pyramids { curse: true })pb",
     v1::FORFEIT_POLICY_FORFEIT,
     343,
     80,
     v1::TERMINATION_NORMAL,
     {1, 4, 3, 2},
     {0, 12, 10, 9},
     {false, false, false, false},
     {}},
    {"flaming_pyramids/six_seats.pyrlog",
     R"pb(game: "flaming_pyramids")pb",
     v1::FORFEIT_POLICY_FORFEIT,
     252,
     58,
     v1::TERMINATION_NORMAL,
     {2, 4, 3, 4, 1, 6},
     {4, 8, 5, 8, 0, 13},
     std::vector<bool>(6, false),
     {}},
    {"flaming_pyramids/forfeit_at_collapse_fall.pyrlog",
     R"pb(game: "flaming_pyramids")pb",
     v1::FORFEIT_POLICY_FORFEIT,
     27,
     3,
     v1::TERMINATION_FORFEIT,
     {1, 3, 1},
     // Seat 1 holds 15 - 1 (its collapsing B40) + 2 (the supports under
     // its pile): rules version 2 (version 1 scored it 14).
     {14, 16, 14},
     {false, true, false},
     {{1, v1::FAULT_COMMIT_TIMEOUT}}},
    {"flaming_pyramids/move_limit.pyrlog",
     R"pb(game: "flaming_pyramids"
          flaming_pyramids { max_turns: 12 })pb",
     v1::FORFEIT_POLICY_FORFEIT,
     76,
     15,
     v1::TERMINATION_MOVE_LIMIT,
     {1, 1, 3},
     {11, 11, 17},
     {false, false, false},
     {}},
    // Three referee restarts, two of them in a row.
    {"flaming_pyramids/restarts.pyrlog",
     R"pb(game: "flaming_pyramids"
          flaming_pyramids { max_turns: 6 })pb",
     v1::FORFEIT_POLICY_FORFEIT,
     49,
     8,
     v1::TERMINATION_MOVE_LIMIT,
     {2, 2, 1},
     {15, 15, 13},
     {false, false, false},
     {}},
    {"pyramid_scheme/two_seats_turn_limit.pyrlog",
     R"pb(game: "pyramid_scheme"
          pyramid_scheme { max_turns: 16 })pb",
     v1::FORFEIT_POLICY_FORFEIT,
     180,
     41,
     v1::TERMINATION_MOVE_LIMIT,
     {1, 1},
     {2, 2},
     {false, false},
     {}},
    {"pyramid_scheme/three_seats.pyrlog",
     R"pb(game: "pyramid_scheme")pb",
     v1::FORFEIT_POLICY_FORFEIT,
     261,
     63,
     v1::TERMINATION_NORMAL,
     {1, 3, 2},
     {3, 0, 0},
     {false, false, false},
     {}},
    {"pyramid_scheme/four_seats.pyrlog",
     R"pb(game: "pyramid_scheme")pb",
     v1::FORFEIT_POLICY_FORFEIT,
     263,
     63,
     v1::TERMINATION_NORMAL,
     {3, 2, 1, 4},
     {0, 0, 0, 0},
     {false, false, false, false},
     {}},
    {"pyramid_scheme/reshuffle.pyrlog",
     R"pb(game: "pyramid_scheme")pb",
     v1::FORFEIT_POLICY_FORFEIT,
     448,
     104,
     v1::TERMINATION_NORMAL,
     {2, 1, 3},
     {0, 5, 0},
     {false, false, false},
     {}},
};

// Every golden log is rules version 1 of its game but the three Flaming
// Pyramids logs written after its rules fix, version 2
// (testdata/golden/README.md); the verifier implements both versions.
uint32_t RulesVersionOf(const Golden& golden) {
  const std::string file = golden.file;
  return file == "flaming_pyramids/forfeit_at_collapse_fall.pyrlog" ||
                 file == "flaming_pyramids/move_limit.pyrlog" ||
                 file == "flaming_pyramids/restarts.pyrlog"
             ? 2
             : 1;
}

// How many seats named the log header in their seed contribution
// (SeedContribution.header_hash, docs/log-format.md decision 20): none in
// the logs written before it, two of three in named_header.pyrlog.
uint32_t SeatsNamingHeaderOf(const Golden& golden) {
  return std::string(golden.file) == "rock_paper_pyramid/named_header.pyrlog"
             ? 2
             : 0;
}

std::string Path(const Golden& golden) {
  return std::string(kGoldenDir) + "/" + golden.file;
}

std::string ReadOrDie(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFileToString(path);
  EXPECT_TRUE(bytes.ok()) << path << ": " << bytes.status();
  return bytes.ok() ? *bytes : std::string();
}

std::string PinnedKey() {
  absl::StatusOr<std::string> key = ParsePublicKey(kKeyFile);
  EXPECT_TRUE(key.ok()) << kKeyFile << ": " << key.status();
  return key.ok() ? *key : std::string();
}

class GoldenTest : public ::testing::TestWithParam<Golden> {};

TEST_P(GoldenTest, VerifiesWithThePinnedKey) {
  const Golden& golden = GetParam();
  const std::string file = ReadOrDie(Path(golden));
  ASSERT_FALSE(file.empty());
  VerifyOptions options;
  options.pinned_key = PinnedKey();
  ASSERT_EQ(options.pinned_key.size(), kPublicKeySize);
  const Verdict v = VerifyLog(file, options);
  ASSERT_EQ(v.kind, Verdict::Kind::kGenuine)
      << "record " << v.bad_record << ": " << v.reason;
  EXPECT_FALSE(v.key_from_header);
  EXPECT_EQ(v.records, golden.records);
  EXPECT_EQ(v.signed_records, golden.records - 1);
  EXPECT_EQ(v.moves, golden.moves);
  EXPECT_EQ(v.seats_naming_header, SeatsNamingHeaderOf(golden));

  // The recorded outcome.
  EXPECT_EQ(v.outcome.termination(), golden.termination);
  std::vector<uint32_t> ranks;
  std::vector<int32_t> scores;
  std::vector<bool> forfeited;
  for (const v1::SeatOutcome& seat : v.outcome.seats()) {
    ranks.push_back(seat.rank());
    scores.push_back(seat.score());
    forfeited.push_back(seat.forfeited());
  }
  EXPECT_THAT(ranks, ElementsAreArray(golden.ranks));
  EXPECT_THAT(scores, ElementsAreArray(golden.scores));
  EXPECT_THAT(forfeited, ElementsAreArray(golden.forfeited));

  // The header.
  const v1::Header& header = v.header;
  EXPECT_EQ(header.format_version(), log_format::kFormatVersion);
  EXPECT_EQ(header.rules_version(), RulesVersionOf(golden));
  EXPECT_EQ(header.referee_public_key(), options.pinned_key);
  EXPECT_EQ(header.seats_size(), static_cast<int>(golden.ranks.size()));
  EXPECT_EQ(header.forfeit_policy(), golden.policy);
  v1::GameConfig game;
  ASSERT_TRUE(
      google::protobuf::TextFormat::ParseFromString(golden.game, &game));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equivalent(
      header.game(), game))
      << header.game().ShortDebugString();
}

TEST_P(GoldenTest, RecordsItsFaults) {
  const Golden& golden = GetParam();
  const std::string file = ReadOrDie(Path(golden));
  const SplitLogResult split = SplitLog(file);
  ASSERT_EQ(split.tail, SplitLogResult::Tail::kClean) << split.tail_reason;
  std::vector<std::pair<uint32_t, v1::FaultReason>> faults;
  for (const RawRecord& raw : split.records) {
    v1::LogRecord record;
    ASSERT_TRUE(record.ParseFromArray(raw.bytes.data(),
                                      static_cast<int>(raw.bytes.size())));
    if (!record.has_fault()) continue;
    faults.emplace_back(record.fault().seat(), record.fault().reason());
    EXPECT_EQ(record.fault().consequence(),
              golden.policy == v1::FORFEIT_POLICY_DEFAULT_ACTION
                  ? v1::FAULT_DEFAULT_ACTION
                  : v1::FAULT_FORFEIT);
  }
  EXPECT_EQ(faults, golden.faults);
}

TEST_P(GoldenTest, KeyFromTheHeaderAlsoVerifies) {
  const Verdict v = VerifyLog(ReadOrDie(Path(GetParam())), VerifyOptions{});
  EXPECT_EQ(v.kind, Verdict::Kind::kGenuine) << v.reason;
  EXPECT_TRUE(v.key_from_header);
}

TEST_P(GoldenTest, AnotherPinnedKeyIsRejected) {
  VerifyOptions options;
  options.pinned_key = std::string(kPublicKeySize, '\x01');
  const Verdict v = VerifyLog(ReadOrDie(Path(GetParam())), options);
  EXPECT_EQ(v.kind, Verdict::Kind::kNotGenuine);
  EXPECT_EQ(v.bad_record, 0u);
  EXPECT_THAT(v.reason, HasSubstr("not the pinned key"));
}

INSTANTIATE_TEST_SUITE_P(Goldens, GoldenTest, ::testing::ValuesIn(kGoldens),
                         [](const ::testing::TestParamInfo<Golden>& info) {
                           std::string name;
                           for (char c : std::string(info.param.file)) {
                             name += std::isalnum(static_cast<unsigned char>(c))
                                         ? c
                                         : '_';
                           }
                           return name;
                         });

// Every log in testdata/golden/ has its line in kGoldens (so none is left
// unchecked), and every line names a file that exists.
TEST(GoldenDirectoryTest, EveryLogIsListed) {
  std::set<std::string> on_disk;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(kGoldenDir)) {
    if (entry.path().extension() == ".pyrlog") {
      on_disk.insert(
          std::filesystem::relative(entry.path(), kGoldenDir).generic_string());
    }
  }
  std::set<std::string> listed;
  for (const Golden& golden : kGoldens) listed.insert(golden.file);
  EXPECT_EQ(on_disk, listed);
}

// What make_golden's signed_seed_timeout_restarts and restarts scenarios
// were added for: without them no golden log had seat keys with signed
// commits, a Restart record (in a decision's commit phase, twice in a row,
// in its reveal phase), or a seat faulted in the seed decision, whose
// contribution to the seed is 32 zero bytes; and named_header's: a seed
// contribution naming the log header (SeedContribution.header_hash, the
// SHA-256 of record 0's stored bytes), and one naming another header,
// faulted FAULT_ILLEGAL_ACTION (its contribution then counts as zeros too).
TEST(GoldenDirectoryTest, CoversSeatKeysRestartsAndASeedDecisionFault) {
  int keyed_seats = 0, signed_commits = 0, restarts = 0, restarts_in_a_row = 0,
      restarts_in_reveal_phase = 0, seed_faults = 0, seeds_naming_header = 0,
      seeds_naming_another_header = 0, illegal_seed_faults = 0;
  for (const Golden& golden : kGoldens) {
    SCOPED_TRACE(golden.file);
    const std::string file = ReadOrDie(Path(golden));
    const SplitLogResult split = SplitLog(file);
    std::vector<v1::LogRecord> records(split.records.size());
    for (size_t i = 0; i < records.size(); ++i) {
      const std::string_view bytes = split.records[i].bytes;
      ASSERT_TRUE(records[i].ParseFromArray(bytes.data(),
                                            static_cast<int>(bytes.size())));
    }
    ASSERT_FALSE(records.empty());
    const v1::Header& header = records[0].header();
    const std::string header_hash(AsView(Sha256(split.records[0].bytes)));
    for (const v1::Seat& seat : header.seats()) {
      keyed_seats += seat.public_key().empty() ? 0 : 1;
    }
    // The seed decision's contributions: 32 zero bytes for a faulted seat.
    std::vector<std::string> contributions(
        header.seats_size(), std::string(kSeedContributionSize, 0));
    bool revealed = false;  // In the open decision, since it opened.
    for (size_t i = 0; i < records.size(); ++i) {
      const v1::LogRecord& record = records[i];
      if (record.has_decision_opened()) revealed = false;
      if (record.has_reveal()) revealed = true;
      if (record.has_commit() && !record.commit().signature().empty()) {
        const v1::Seat& seat = header.seats(record.commit().seat());
        EXPECT_EQ(seat.public_key().size(), kPublicKeySize);
        ++signed_commits;
      }
      if (record.has_restart()) {
        ++restarts;
        if (records[i - 1].has_restart()) ++restarts_in_a_row;
        if (revealed) ++restarts_in_reveal_phase;
      }
      if (record.has_fault() && record.fault().decision_id() == 0) {
        EXPECT_EQ(record.fault().consequence(), v1::FAULT_DEFAULT_ACTION);
        ++seed_faults;
        // Its reveal, if logged before the fault, does not count.
        contributions[record.fault().seat()] =
            std::string(kSeedContributionSize, 0);
        if (record.fault().reason() == v1::FAULT_ILLEGAL_ACTION) {
          ++illegal_seed_faults;
        }
      }
      if (record.has_reveal() && record.reveal().decision_id() == 0) {
        v1::Action action;
        ASSERT_TRUE(action.ParseFromString(record.reveal().action()));
        contributions[record.reveal().seat()] = action.seed().contribution();
        const std::string& named = action.seed().header_hash();
        if (named == header_hash) {
          ++seeds_naming_header;
        } else if (!named.empty()) {
          ++seeds_naming_another_header;
        }
      }
      if (record.has_seed_reveal()) {
        const v1::SeedReveal& seed = record.seed_reveal();
        EXPECT_EQ(std::string(AsView(DeriveSeed(header.match_id(),
                                                seed.referee_contribution(),
                                                contributions))),
                  seed.seed());
      }
    }
  }
  EXPECT_GT(keyed_seats, 0);
  EXPECT_GT(signed_commits, 0);
  EXPECT_GT(restarts, restarts_in_a_row + restarts_in_reveal_phase);
  EXPECT_GT(restarts_in_a_row, 0);
  EXPECT_GT(restarts_in_reveal_phase, 0);
  EXPECT_GT(seed_faults, 0);
  EXPECT_GT(seeds_naming_header, 0);
  EXPECT_GT(seeds_naming_another_header, 0);
  EXPECT_EQ(illegal_seed_faults, seeds_naming_another_header);
}

TEST(GoldenDirectoryTest, PinnedKeyFileIsWellFormed) {
  // 64 lower-case hex digits and a newline (the keygen format).
  const std::string text = ReadOrDie(kKeyFile);
  ASSERT_EQ(text.size(), 65u);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(PinnedKey().size(), kPublicKeySize);
}

}  // namespace
}  // namespace pyramid
