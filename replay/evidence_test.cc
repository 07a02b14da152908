// Offline evidence checks against the golden transparency-log example of
// testdata/tlog/ (docs/transparency-log.md, "Example"): a tournament
// directory whose three matches are leaves 3 to 5 of checkpoint 6, the
// checkpoint of the tree's first 3 leaves, and the consistency proof 3 -> 6.
// Every file as published passes; each change to a file is named.
#include "replay/evidence.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/tlog/note.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

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

// A checkpoint checked against another key says that the pinned key did
// not sign it, naming that key as pinned (not the checkpoint's origin
// joined with it, which reads like the referee's own verifier key), and
// what the checkpoint names instead.
TEST(EvidenceTest, ACheckpointByAnotherKeyNamesThePinnedKeyAndItsSigner) {
  const std::string stranger = SigningKey::Generate().public_key();
  const std::string origin = "pyramid-referee/84c5b30cb33a0e5d";
  const std::string signer = absl::StrCat(origin, "+6bddd573");
  absl::StatusOr<Inclusion> inclusion =
      CheckInclusion(Log(), kMatch, Proof(), CheckpointKey{"", stranger});
  ASSERT_FALSE(inclusion.ok());
  EXPECT_EQ(
      std::string(inclusion.status().message()),
      absl::StrCat("checkpoint: not signed by the pinned referee key ",
                   ToHex(stranger), "; the checkpoint names origin \"", origin,
                   "\" (a referee key beginning 84c5b30cb33a0e5d) and is "
                   "signed by ",
                   signer));
  // Under a verifier key of another origin: that key's NAME+KEYID.
  const tlog::NoteVerifier other{"pyramid-referee/0123456789abcdef", stranger};
  const std::string vkey = tlog::FormatVerifierKey(other);
  // NAME+KEYID: up to the second '+' (the base64 key may hold more).
  const std::string id = vkey.substr(0, vkey.find('+', vkey.find('+') + 1));
  inclusion = CheckInclusion(Log(), kMatch, Proof(), CheckpointKey{vkey, ""});
  ASSERT_FALSE(inclusion.ok());
  EXPECT_THAT(std::string(inclusion.status().message()),
              HasSubstr(absl::StrCat(
                  "checkpoint: not signed by the pinned verifier key ", id,
                  "; the checkpoint names origin \"", origin)));
  EXPECT_THAT(std::string(inclusion.status().message()),
              HasSubstr(absl::StrCat("signed by ", signer)));
  // A signature by the pinned key that does not verify is said as such.
  std::string proof = Proof();
  const size_t root = proof.find("\n6\n") + 3;
  proof[root] = proof[root] == 'A' ? 'B' : 'A';
  inclusion = CheckInclusion(Log(), kMatch, proof, VerifierKey());
  ASSERT_FALSE(inclusion.ok());
  EXPECT_THAT(
      std::string(inclusion.status().message()),
      HasSubstr(absl::StrCat("the signature by ", origin, " does not verify")));
}

// --key and --tlog_key take the key or the path of a file holding it; a
// path that cannot be read says so, whichever the flag.
class KeyArgumentTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(tmp_.ok()); }
  TempDir tmp_{"key-argument"};
};

TEST_F(KeyArgumentTest, AVerifierKeyAsTextOrInAFile) {
  const std::string vkey = VerifierKey().verifier_key;
  absl::StatusOr<std::string> key = ParseVerifierKeyArgument(vkey);
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_EQ(*key, vkey);
  key = ParseVerifierKeyArgument(absl::StrCat(kDir, "/tlog.vkey"));
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_EQ(*key, vkey);
}

TEST_F(KeyArgumentTest, AVerifierKeyPathThatCannotBeReadSaysSo) {
  const std::string missing = tmp_.File("missing/file");
  for (const std::string& path :
       {missing, std::string("missing/file"), std::string("tlog.vkey"),
        std::string("referee.key.pub")}) {
    absl::StatusOr<std::string> key = ParseVerifierKeyArgument(path);
    ASSERT_FALSE(key.ok()) << path;
    EXPECT_EQ(std::string(key.status().message()),
              absl::StrCat("cannot read ", path, ": No such file or directory"))
        << path;
  }
  absl::StatusOr<std::string> key = ParseVerifierKeyArgument(tmp_.path());
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(std::string(key.status().message()),
            absl::StrCat("cannot read ", tmp_.path(), ": it is a directory"));
}

TEST_F(KeyArgumentTest, NeitherKeyNorPathExplainsTheForm) {
  absl::StatusOr<std::string> key = ParseVerifierKeyArgument("nonsense");
  ASSERT_FALSE(key.ok());
  EXPECT_THAT(std::string(key.status().message()),
              HasSubstr("want NAME+KEYID+KEY"));
  EXPECT_THAT(std::string(key.status().message()),
              Not(HasSubstr("cannot read")));
  // A verifier key holds '/' in its origin: with '+', it is a key, and a
  // wrong one is named as such, not as a missing file.
  std::string vkey = VerifierKey().verifier_key;
  vkey[vkey.find('+') + 1] ^= 0x01;
  key = ParseVerifierKeyArgument(vkey);
  ASSERT_FALSE(key.ok());
  EXPECT_THAT(std::string(key.status().message()),
              HasSubstr("the key id does not match"));
  // A file that holds something else is named with what is wrong.
  const std::string file = tmp_.File("not.vkey");
  std::ofstream(file) << "nonsense\n";
  key = ParseVerifierKeyArgument(file);
  ASSERT_FALSE(key.ok());
  EXPECT_THAT(std::string(key.status().message()),
              StartsWith(file + ": bad verifier key"));
}

TEST_F(KeyArgumentTest, ARefereeKeyTheSameWay) {
  const std::string pub = absl::StrCat(kDir, "/example/referee.pub");
  absl::StatusOr<std::string> key = ParseRefereeKeyArgument(pub);
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_EQ(*key, RefereeKey().public_key);
  key = ParseRefereeKeyArgument(ToHex(RefereeKey().public_key));
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_EQ(*key, RefereeKey().public_key);
  key = ParseRefereeKeyArgument("missing/file");
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(std::string(key.status().message()),
            "cannot read missing/file: No such file or directory");
  key = ParseRefereeKeyArgument("nothex");
  ASSERT_FALSE(key.ok());
  EXPECT_THAT(std::string(key.status().message()),
              HasSubstr("want 64 hex digits"));
  key = ParseRefereeKeyArgument(absl::StrCat(kDir, "/tlog.vkey"));
  ASSERT_FALSE(key.ok());
  EXPECT_THAT(std::string(key.status().message()),
              HasSubstr("want 64 hex digits"));
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

// A label the schedule lists twice counts its log once: the verdict's
// count is of logs, not of the entries that name them (it was 3 here, for
// two logs that count).
TEST_F(TournamentDirectoryTest, ALabelListedTwiceCountsItsLogOnce) {
  const std::string schedule = Read("example/schedule.json");
  Write("schedule.json",
        absl::StrReplaceAll(schedule, {{"\"example/434764977a9d6e1d/1\"",
                                        "\"example/434764977a9d6e1d/0\""}}));
  const TournamentVerdict v = Check();
  EXPECT_THAT(v.problems,
              Contains("the schedule lists label example/434764977a9d6e1d/0 "
                       "twice"));
  // Match 1's log is then extra; matches 0's and 2's count.
  EXPECT_THAT(v.problems,
              Contains(HasSubstr("extra: its label "
                                 "\"example/434764977a9d6e1d/1\"")));
  EXPECT_EQ(v.matches, 2u);
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
  const std::string stranger = SigningKey::Generate().public_key();
  v = CheckTournamentDirectory(dir_, CheckpointKey{"", stranger});
  ASSERT_EQ(v.problems.size(), 1u);
  EXPECT_THAT(v.problems[0],
              StartsWith(absl::StrCat(
                  "checkpoint: not signed by the pinned referee key ",
                  ToHex(stranger), "; the checkpoint names origin")));
}

TEST_F(TournamentDirectoryTest, NoKeyAndNoCheckpointAreNamed) {
  fs::remove(dir_ + "/referee.pub");
  EXPECT_THAT(Check().problems, ElementsAre(HasSubstr("no referee key")));
  fs::copy(absl::StrCat(kDir, "/example/referee.pub"), dir_ + "/referee.pub");
  fs::remove(dir_ + "/checkpoint");
  EXPECT_THAT(Check().problems, ElementsAre(HasSubstr("checkpoint")));
}

// A witness's cosignature line on a proof's checkpoint changes the note,
// not the tree it names: the proof is in the directory's checkpoint (C2SP
// tlog-proof allows cosigned checkpoints; lines by other keys are ignored).
TEST_F(TournamentDirectoryTest, AProofWhoseCheckpointAWitnessCosignedCounts) {
  const std::string proof =
      absl::StrCat("proofs/rock_paper_pyramid-", kMatch, ".tlog-proof");
  Write(proof, Read(absl::StrCat("example/", proof)) +
                   "\xe2\x80\x94 witness.example AAAAAAAAAAAA\n");
  const TournamentVerdict v = Check();
  EXPECT_THAT(v.problems, IsEmpty());
  EXPECT_EQ(v.matches, 3u);
  // And so does a cosigned checkpoint in the directory itself.
  Write("checkpoint", Read("example/checkpoint") +
                          "\xe2\x80\x94 witness.example AAAAAAAAAAAA\n");
  EXPECT_THAT(Check().problems, IsEmpty());
}

// A proof no counted log used says why: its log is missing, or its log
// (named above with its own problem) does not count.
TEST_F(TournamentDirectoryTest, AProofOfALogThatDoesNotCountSaysSo) {
  const std::string name = absl::StrCat("rock_paper_pyramid-", kMatch);
  std::string log = Log();
  log[log.size() / 2] ^= 0x01;
  Write(absl::StrCat("logs/", name, ".pyrlog"), log);
  TournamentVerdict v = Check();
  EXPECT_THAT(v.problems, Contains(StartsWith(absl::StrCat(
                              "logs/", name, ".pyrlog: NOT GENUINE"))));
  EXPECT_THAT(v.problems,
              Contains(absl::StrCat("proofs/", name,
                                    ".tlog-proof: a proof whose log does not "
                                    "count (see logs/",
                                    name, ".pyrlog above)")));
  EXPECT_THAT(v.problems, Not(Contains(HasSubstr("without its log"))));
  fs::remove(dir_ + "/logs/" + name + ".pyrlog");
  v = Check();
  EXPECT_THAT(v.problems,
              Contains(absl::StrCat("proofs/", name,
                                    ".tlog-proof: a proof without its log")));
}

// The schedule's game is every log's: a log of another game is named.
TEST_F(TournamentDirectoryTest, ALogOfAnotherGameThanTheSchedulesIsNamed) {
  const std::string schedule = Read("example/schedule.json");
  Write("schedule.json",
        absl::StrReplaceAll(schedule, {{"\"game\": \"rock_paper_pyramid\"",
                                        "\"game\": \"pyramid_scheme\""}}));
  TournamentVerdict v = Check();
  EXPECT_EQ(v.matches, 0u);
  EXPECT_THAT(v.problems,
              Contains(absl::StrCat("logs/rock_paper_pyramid-", kMatch,
                                    ".pyrlog: a rock_paper_pyramid log; the "
                                    "schedule is of pyramid_scheme")));
  // A schedule without a game names none.
  Write("schedule.json",
        absl::StrReplaceAll(schedule,
                            {{"\"game\": \"rock_paper_pyramid\",", ""}}));
  v = Check();
  EXPECT_THAT(v.problems, Contains(HasSubstr("the schedule names no game")));
}

// A directory that holds neither schedule.json nor checkpoint is not a
// tournament's (an input error); one that holds either is checked.
TEST_F(TournamentDirectoryTest, ADirectoryWithoutScheduleOrCheckpointIsNone) {
  const std::string empty = tmp_.File("empty");
  fs::create_directory(empty);
  TournamentVerdict v = CheckTournamentDirectory(empty, CheckpointKey{});
  EXPECT_EQ(v.not_a_tournament,
            absl::StrCat(empty,
                         " is not a tournament directory (no schedule.json, "
                         "no checkpoint)"));
  EXPECT_THAT(v.problems, IsEmpty());
  fs::remove(dir_ + "/checkpoint");
  v = Check();
  EXPECT_EQ(v.not_a_tournament, "");
  EXPECT_THAT(v.problems, ElementsAre(StartsWith("checkpoint: ")));
}

// referee.key.pub and referee.pub must agree when both are there.
TEST_F(TournamentDirectoryTest, TwoKeyFilesThatDifferAreNamed) {
  Write("referee.key.pub", Read("example/referee.pub"));
  EXPECT_THAT(Check().problems, IsEmpty());
  const std::string stranger = SigningKey::Generate().public_key();
  Write("referee.key.pub", ToHex(stranger) + "\n");
  EXPECT_THAT(Check().problems,
              ElementsAre(StartsWith(absl::StrCat(
                  "referee.key.pub and referee.pub hold different referee "
                  "keys (",
                  ToHex(stranger), " and "))));
}

// A schedule.json that does not parse says what the JSON parser objected
// to, not only that it did.
TEST_F(TournamentDirectoryTest, AScheduleThatDoesNotParseSaysWhy) {
  const std::string schedule = Read("example/schedule.json");
  Write("schedule.json",
        absl::StrReplaceAll(schedule, {{"\"game\":", "\"gmae\":"}}));
  EXPECT_THAT(Check().problems,
              ElementsAre(AllOf(
                  StartsWith("schedule.json is not a TournamentSchedule in "
                             "JSON: "),
                  HasSubstr("gmae"))));
  // Cut short: the parser's reason, on one line.
  Write("schedule.json", schedule.substr(0, schedule.size() / 2));
  EXPECT_THAT(Check().problems,
              ElementsAre(AllOf(StartsWith("schedule.json is not a "
                                           "TournamentSchedule in JSON: "),
                                HasSubstr("Unexpected end of string"),
                                Not(HasSubstr("\n")))));
}

// A proof, or the logs/ or proofs/ directory, that is there but cannot be
// read is named with why: not reported missing, nor passed over.
TEST_F(TournamentDirectoryTest, WhatIsThereButCannotBeReadSaysWhy) {
  const std::string name = absl::StrCat("rock_paper_pyramid-", kMatch);
  const std::string proof = dir_ + "/proofs/" + name + ".tlog-proof";
  fs::remove(proof);
  fs::create_directory(proof);
  EXPECT_THAT(
      Check().problems,
      Contains(absl::StrCat("proofs/", name, ".tlog-proof: cannot read ", proof,
                            ": it is a directory")));
  EXPECT_THAT(Check().problems, Not(Contains(HasSubstr("no inclusion proof"))));
  fs::remove_all(dir_ + "/proofs");
  Write("proofs", "not a directory\n");
  EXPECT_THAT(Check().problems,
              Contains(absl::StrCat("proofs/: cannot list ", dir_,
                                    "/proofs: Not a directory")));
  fs::remove_all(dir_ + "/logs");
  Write("logs", "not a directory\n");
  EXPECT_THAT(Check().problems,
              Contains(absl::StrCat("logs/: cannot list ", dir_,
                                    "/logs: Not a directory")));
}

// A loop of symbolic links where a log, a key file, the checkpoint or the
// schedule should be is there but cannot be read, and named so; the check
// does not throw (std::filesystem::exists did, which ended `replay
// verify-tournament` with an uncaught exception).
TEST_F(TournamentDirectoryTest, ALoopOfSymbolicLinksIsNamedNotThrown) {
  auto loop = [&](const std::string& name) {
    const std::string path = dir_ + "/" + name;
    fs::remove(path);
    fs::create_symlink(path, path);
  };
  const std::string name = absl::StrCat("rock_paper_pyramid-", kMatch);
  loop(absl::StrCat("logs/", name, ".pyrlog"));
  TournamentVerdict v = Check();
  EXPECT_THAT(v.problems,
              Contains(AllOf(StartsWith(absl::StrCat("logs/", name,
                                                     ".pyrlog: cannot open")),
                             HasSubstr("Too many levels of symbolic links"))));
  EXPECT_THAT(v.problems,
              Contains(absl::StrCat("proofs/", name,
                                    ".tlog-proof: a proof whose log does not "
                                    "count (see logs/",
                                    name, ".pyrlog above)")));
  EXPECT_EQ(v.matches, 2u);
  loop("referee.pub");
  EXPECT_THAT(Check().problems,
              ElementsAre(AllOf(StartsWith("referee.pub: "),
                                HasSubstr("symbolic links"))));
  fs::remove(dir_ + "/referee.pub");
  fs::copy(absl::StrCat(kDir, "/example/referee.pub"), dir_ + "/referee.pub");
  loop("checkpoint");
  loop("schedule.json");
  v = Check();
  EXPECT_EQ(v.not_a_tournament, "");
  EXPECT_THAT(v.problems, ElementsAre(AllOf(StartsWith("checkpoint: "),
                                            HasSubstr("symbolic links"))));
}

// A FIFO would make the check wait for a writer forever, a device (a link
// to /dev/zero) would be read without end: each is named, not read.
TEST_F(TournamentDirectoryTest, AFifoOrADeviceIsNamedNotRead) {
  const std::string name = absl::StrCat("rock_paper_pyramid-", kMatch);
  const std::string log = absl::StrCat(dir_, "/logs/", name, ".pyrlog");
  fs::remove(log);
  ASSERT_EQ(mkfifo(log.c_str(), 0600), 0);
  TournamentVerdict v = Check();
  EXPECT_THAT(v.problems,
              Contains(absl::StrCat("logs/", name, ".pyrlog: cannot read ", log,
                                    ": it is a FIFO, not a file")));
  EXPECT_EQ(v.matches, 2u);
  for (const char* entry : {"referee.pub", "schedule.json"}) {
    const std::string path = absl::StrCat(dir_, "/", entry);
    const std::string kept = path + ".kept";
    fs::rename(path, kept);
    fs::create_symlink("/dev/zero", path);
    EXPECT_THAT(Check().problems,
                Contains(absl::StrCat(entry, ": cannot read ", path,
                                      ": it is a device, not a file")))
        << entry;
    fs::remove(path);
    fs::rename(kept, path);
  }
}

// A log larger than the machine's memory is named, not read: a sparse file
// of a terabyte in a tarball must not be allocated.
TEST_F(TournamentDirectoryTest, AFileLargerThanMemoryIsNamedNotRead) {
  const std::string name = absl::StrCat("rock_paper_pyramid-", kMatch);
  const std::string log = absl::StrCat(dir_, "/logs/", name, ".pyrlog");
  const uint64_t size = PhysicalMemoryBytes() + 1;
  fs::resize_file(log, size);
  TournamentVerdict v = Check();
  EXPECT_THAT(v.problems,
              Contains(absl::StrCat("logs/", name, ".pyrlog: cannot read ", log,
                                    ": it is ", size,
                                    " bytes, more than this machine's memory (",
                                    PhysicalMemoryBytes(), " bytes)")));
  EXPECT_EQ(v.matches, 2u);
}

// The proof's extra data is any bytes: named escaped, never raw.
TEST(EvidenceTest, ExtraDataOfAnotherMatchIsPrintedEscaped) {
  const std::string proof = absl::StrReplaceAll(
      Proof(),
      {{"extra ZDBhZWU1YmVmOTBlY2VmMTZkMzViZGQ5ODQ2NjQwNDc=",
        absl::StrCat("extra ", absl::Base64Escape("\xff\xfe\n\x01\"ok"))}});
  absl::StatusOr<Inclusion> inclusion =
      CheckInclusion(Log(), kMatch, proof, VerifierKey());
  ASSERT_FALSE(inclusion.ok());
  EXPECT_EQ(std::string(inclusion.status().message()),
            absl::StrCat("the proof is for match \"\\xff\\xfe\\n\\x01\\\"ok\", "
                         "the log is match ",
                         kMatch));
}

// Files given in the wrong order or place are the command's mistake
// (FAILED_PRECONDITION, which `replay consistency` exits 2 for), not a
// verdict; a proof that does not hold is one.
TEST(EvidenceTest, ConsistencyInputMistakesAreToldApartFromVerdicts) {
  const std::string old_note = Read("checkpoint-3");
  const std::string new_note = Read("example/checkpoint");
  const std::string proof = Read("consistency-3-6");
  absl::Status status =
      CheckConsistency(new_note, old_note, proof, VerifierKey());
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_EQ(std::string(status.message()),
            "the old checkpoint (size 6) is larger than the new one (size 3): "
            "swapped? The older checkpoint comes first");
  const ConsistencyNames names{"old", "new", "p"};
  status = CheckConsistency(old_note, new_note, Proof(), VerifierKey(), names);
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_EQ(std::string(status.message()),
            "p is not a consistency proof (it looks like an inclusion proof, "
            "a .tlog-proof file)");
  status = CheckConsistency(old_note, new_note, new_note, VerifierKey(), names);
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("it looks like a checkpoint"));
  status = CheckConsistency(proof, new_note, proof, VerifierKey(), names);
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_EQ(std::string(status.message()),
            "old is not a checkpoint (it looks like a consistency proof)");
  status = CheckConsistency(old_note, old_note, proof, VerifierKey(), names);
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_EQ(std::string(status.message()),
            "p is from size 3 to 6; the checkpoints are of sizes 3 and 3: give "
            "the proof between them (refctl consistency 3 3)");
  // A proof hash changed: the proof does not hold, a verdict.
  std::string bad = proof;
  bad[bad.size() - 3] = bad[bad.size() - 3] == 'A' ? 'B' : 'A';
  status = CheckConsistency(old_note, new_note, bad, VerifierKey(), names);
  EXPECT_FALSE(status.ok());
  EXPECT_FALSE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("the proof does not show"));
}

// A secret key file (its seed in hex, beside FILE.pub) given as --key is
// named, not taken for a public key.
TEST_F(KeyArgumentTest, ASecretKeyFileIsNamed) {
  const std::string path = tmp_.File("referee.key");
  const SigningKey key = SigningKey::Generate();
  ASSERT_TRUE(WriteKeyFiles(path, key).ok());
  absl::StatusOr<std::string> parsed = ParseRefereeKeyArgument(path);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(std::string(parsed.status().message()),
            absl::StrCat(path, " holds a secret key; give the public key (",
                         path, ".pub)"));
  parsed = ParseRefereeKeyArgument(path + ".pub");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, key.public_key());
}

}  // namespace
}  // namespace pyramid
