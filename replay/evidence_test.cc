// Offline evidence checks against the golden transparency-log example of
// testdata/tlog/ (docs/transparency-log.md, "Example"): a tournament
// directory whose three matches are leaves 3 to 5 of checkpoint 6, the
// checkpoint of the tree's first 3 leaves, and the consistency proof 3 -> 6.
// Every file as published passes; each change to a file is named.
#include "replay/evidence.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/ed25519.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kDir[] = "testdata/tlog";
constexpr char kMatch[] = "d0aee5bef90ecef16d35bdd984664047";

std::string Read(const std::string& name) {
  absl::StatusOr<std::string> text =
      ReadFileToString(absl::StrCat(kDir, "/", name));
  EXPECT_TRUE(text.ok()) << name << ": " << text.status();
  return text.ok() ? *text : "";
}

std::string Log() {
  return Read(
      absl::StrCat("example/logs/rock_paper_pyramid-", kMatch, ".pyrlog"));
}
std::string Proof() {
  return Read(absl::StrCat("example/proofs/rock_paper_pyramid-", kMatch,
                           ".tlog-proof"));
}

CheckpointKey VerifierKey() {
  return CheckpointKey{
      std::string(absl::StripAsciiWhitespace(Read("tlog.vkey"))), ""};
}
CheckpointKey RefereeKey() {
  absl::StatusOr<std::string> key =
      ParsePublicKey(absl::StrCat(kDir, "/example/referee.pub"));
  EXPECT_TRUE(key.ok()) << key.status();
  return CheckpointKey{"", key.ok() ? *key : ""};
}

TEST(EvidenceTest, TheExampleInclusionProofHoldsUnderEitherKey) {
  for (const CheckpointKey& key : {VerifierKey(), RefereeKey()}) {
    absl::StatusOr<Inclusion> inclusion =
        CheckInclusion(Log(), kMatch, Proof(), key);
    ASSERT_TRUE(inclusion.ok()) << inclusion.status();
    EXPECT_EQ(inclusion->index, 5u);
    EXPECT_EQ(inclusion->checkpoint.size, 6u);
    EXPECT_EQ(inclusion->checkpoint.origin, "pyramid-referee/84c5b30cb33a0e5d");
    EXPECT_EQ(inclusion->note, Read("example/checkpoint"));
  }
}

TEST(EvidenceTest, AnInclusionProofVouchesForNoOtherLogMatchOrKey) {
  std::string other_log = Log();
  other_log.back() ^= 0x01;
  EXPECT_FALSE(CheckInclusion(other_log, kMatch, Proof(), VerifierKey()).ok());
  EXPECT_FALSE(CheckInclusion(Log(), "00000000000000000000000000000000",
                              Proof(), VerifierKey())
                   .ok());
  const std::string stranger = SigningKey::Generate().public_key();
  EXPECT_FALSE(
      CheckInclusion(Log(), kMatch, Proof(), CheckpointKey{"", stranger}).ok());
  // Another leaf index, or a changed proof hash.
  EXPECT_FALSE(
      CheckInclusion(Log(), kMatch,
                     absl::StrReplaceAll(Proof(), {{"index 5", "index 4"}}),
                     VerifierKey())
          .ok());
  std::string proof = Proof();
  const size_t hash = proof.find("index 5\n") + 8;
  proof[hash] = proof[hash] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(CheckInclusion(Log(), kMatch, proof, VerifierKey()).ok());
}

// Every single-bit change anywhere in a tlog-proof file (index, proof
// hashes, the checkpoint's origin, size and root, its signature) fails.
TEST(EvidenceTest, NoSingleBitChangeOfAnInclusionProofFileHolds) {
  const std::string log = Log();
  const std::string proof = Proof();
  ASSERT_TRUE(CheckInclusion(log, kMatch, proof, VerifierKey()).ok());
  for (size_t i = 0; i < proof.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string changed = proof;
      changed[i] = static_cast<char>(changed[i] ^ (1 << bit));
      EXPECT_FALSE(CheckInclusion(log, kMatch, changed, VerifierKey()).ok())
          << "byte " << i << " bit " << bit;
    }
  }
}

TEST(EvidenceTest, NoSingleBitChangeOfAConsistencyProofOrCheckpointHolds) {
  std::string files[3] = {Read("checkpoint-3"), Read("example/checkpoint"),
                          Read("consistency-3-6")};
  ASSERT_TRUE(
      CheckConsistency(files[0], files[1], files[2], VerifierKey()).ok());
  for (std::string& file : files) {
    for (size_t i = 0; i < file.size(); ++i) {
      for (int bit = 0; bit < 8; ++bit) {
        file[i] = static_cast<char>(file[i] ^ (1 << bit));
        EXPECT_FALSE(
            CheckConsistency(files[0], files[1], files[2], VerifierKey()).ok())
            << "byte " << i << " bit " << bit;
        file[i] = static_cast<char>(file[i] ^ (1 << bit));
      }
    }
  }
}

TEST(EvidenceTest, TheExampleConsistencyProofHoldsOneWayOnly) {
  const std::string old_note = Read("checkpoint-3");
  const std::string new_note = Read("example/checkpoint");
  const std::string proof = Read("consistency-3-6");
  EXPECT_TRUE(CheckConsistency(old_note, new_note, proof, VerifierKey()).ok());
  EXPECT_TRUE(CheckConsistency(old_note, new_note, proof, RefereeKey()).ok());
  EXPECT_FALSE(CheckConsistency(new_note, old_note, proof, VerifierKey()).ok());
  std::string bad = proof;
  bad[bad.size() - 3] = bad[bad.size() - 3] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(CheckConsistency(old_note, new_note, bad, VerifierKey()).ok());
}

class TournamentDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(tmp_.ok());
    dir_ = tmp_.File("example");
    fs::copy(absl::StrCat(kDir, "/example"), dir_, fs::copy_options::recursive);
  }
  TournamentVerdict Check() const {
    return CheckTournamentDirectory(dir_, CheckpointKey{});
  }
  void Write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ + "/" + name, std::ios::binary | std::ios::trunc)
        << text;
  }
  TempDir tmp_{"evidence"};
  std::string dir_;  // A copy of the example in tmp_.
};

TEST_F(TournamentDirectoryTest, AsPublishedItChecksOut) {
  const TournamentVerdict v = Check();
  EXPECT_THAT(v.problems, IsEmpty());
  EXPECT_EQ(v.matches, 3u);
  EXPECT_EQ(v.summary,
            "3 matches, all included in checkpoint 6 "
            "f7fabef3e6eb30a292073ec68a926bb524f32dab3af525f446909a5ec775e258");
}

TEST_F(TournamentDirectoryTest, ALogUnderASecondNameIsNamed) {
  const std::string log = absl::StrCat("rock_paper_pyramid-", kMatch);
  fs::copy(dir_ + "/logs/" + log + ".pyrlog", dir_ + "/logs/copy.pyrlog");
  fs::copy(dir_ + "/proofs/" + log + ".tlog-proof",
           dir_ + "/proofs/copy.tlog-proof");
  const TournamentVerdict v = Check();
  ASSERT_EQ(v.problems.size(), 1u);
  EXPECT_THAT(v.problems[0], HasSubstr("has 2 logs"));
}

TEST_F(TournamentDirectoryTest, AScheduleCutShortOrRenumberedIsNamed) {
  const std::string schedule = Read("example/schedule.json");
  // The last match dropped from the schedule: its log becomes extra.
  const size_t last = schedule.rfind("  {");
  ASSERT_NE(last, std::string::npos);
  Write("schedule.json",
        schedule.substr(0, schedule.rfind(',', last)) + "\n ]\n}\n");
  TournamentVerdict v = Check();
  EXPECT_THAT(v.problems, Contains(HasSubstr("is not in the schedule")));
  // A gap in the numbering.
  Write("schedule.json",
        absl::StrReplaceAll(schedule, {{"\"index\": 1,", "\"index\": 7,"}}));
  v = Check();
  ASSERT_FALSE(v.problems.empty());
  EXPECT_THAT(v.problems[0], HasSubstr("numbered 7"));
}

TEST_F(TournamentDirectoryTest, ACheckpointNotSignedByTheRefereeIsNamed) {
  std::string note = Read("example/checkpoint");
  note[note.find("\n6\n") + 1] = '7';
  Write("checkpoint", note);
  TournamentVerdict v = Check();
  ASSERT_EQ(v.problems.size(), 1u);
  EXPECT_THAT(v.problems[0], HasSubstr("signature"));
  // And a key that is not the referee's.
  Write("checkpoint", Read("example/checkpoint"));
  v = CheckTournamentDirectory(
      dir_, CheckpointKey{"", SigningKey::Generate().public_key()});
  EXPECT_FALSE(v.problems.empty());
}

TEST_F(TournamentDirectoryTest, NoKeyAndNoCheckpointAreNamed) {
  fs::remove(dir_ + "/referee.pub");
  EXPECT_THAT(Check().problems, ElementsAre(HasSubstr("no referee key")));
  fs::copy(absl::StrCat(kDir, "/example/referee.pub"), dir_ + "/referee.pub");
  fs::remove(dir_ + "/checkpoint");
  EXPECT_THAT(Check().problems, ElementsAre(HasSubstr("checkpoint")));
}

}  // namespace
}  // namespace pyramid
