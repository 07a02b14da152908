// Offline evidence checks against the golden transparency-log example of
// testdata/tlog/ (docs/transparency-log.md, "Example"): a tournament
// directory whose three matches are leaves 3 to 5 of checkpoint 6, the
// checkpoint of the tree's first 3 leaves, and the consistency proof 3 -> 6.
// Every file as published passes; each change to a file is named.
#include "replay/evidence.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/tournament.pb.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/sha256.h"
#include "referee/tlog/note.h"
#include "replay/seat_roster.h"
#include "replay/verifier.h"
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

// The problem of a directory without tournament.txt.
constexpr char kNoTournamentTxt[] =
    "the directory holds no tournament.txt, which the runner writes before "
    "it plays (the tournament file that made schedule.json): without it "
    "nobody can tell whether schedule.json lists every match (none cut from "
    "its end)";

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

// Pinned as a referee key, a key vouches for the origin its checkpoint
// names, but not for a referee's origin of another key's name: a second
// tree its holder kept under it would be out of sight of whoever watches
// the tree named after the key. Its verifier key, which names the origin,
// accepts it; an origin of another form (--tlog_origin's) is the key's.
TEST(EvidenceTest, ARefereeKeyVouchesForNoRefereeOriginOfAnotherKey) {
  const SigningKey key = SigningKey::Generate();
  const std::string own =
      absl::StrCat("pyramid-referee/", ToHex(key.public_key()).substr(0, 16));
  const std::string other = "pyramid-referee/0000000000000000";
  const std::string root = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=";
  auto note = [&](const std::string& origin) {
    absl::StatusOr<std::string> signed_note =
        tlog::SignNote(absl::StrCat(origin, "\n0\n", root, "\n"), origin, key);
    EXPECT_TRUE(signed_note.ok()) << signed_note.status();
    return signed_note.ok() ? *signed_note : "";
  };
  const CheckpointKey pinned{"", key.public_key()};
  EXPECT_TRUE(OpenCheckpointWith(note(own), pinned).ok());
  EXPECT_TRUE(OpenCheckpointWith(note("example.com/league"), pinned).ok());
  absl::StatusOr<tlog::Checkpoint> opened =
      OpenCheckpointWith(note(other), pinned);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(std::string(opened.status().message()),
            absl::StrCat("checkpoint: signed by the pinned referee key under "
                         "origin \"",
                         other, "\", not the key's own ", own,
                         ": a referee names its tree after its own key (pin "
                         "the tree's verifier key, --tlog_key, to accept that "
                         "origin)"));
  // Any look-alike in the referees' names: upper case, more digits, a word.
  for (const std::string& look_alike :
       {absl::AsciiStrToUpper(own).replace(0, 16, "pyramid-referee/"),
        own + "0", "pyramid-referee/" + own.substr(16, 15),
        std::string("pyramid-referee/league")}) {
    if (look_alike == own) continue;
    EXPECT_FALSE(OpenCheckpointWith(note(look_alike), pinned).ok())
        << look_alike;
  }
  const CheckpointKey verifier{
      tlog::FormatVerifierKey(tlog::NoteVerifier{other, key.public_key()}), ""};
  EXPECT_TRUE(OpenCheckpointWith(note(other), verifier).ok());
}

// Two checkpoints of one size with different roots are a fork, said as
// such whatever proof comes with them; a proof without its extra line
// names no match, said as such.
TEST(EvidenceTest, AForkAndAProofThatNamesNoMatchAreSaidAsSuch) {
  const SigningKey key = SigningKey::Generate();
  const std::string origin =
      absl::StrCat("pyramid-referee/", ToHex(key.public_key()).substr(0, 16));
  auto note = [&](const std::string& root) {
    absl::StatusOr<std::string> signed_note =
        tlog::SignNote(absl::StrCat(origin, "\n6\n", root, "\n"), origin, key);
    EXPECT_TRUE(signed_note.ok()) << signed_note.status();
    return signed_note.ok() ? *signed_note : "";
  };
  const std::string a = note("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
  const std::string b = note("bjQLnP+zepicpUTmu3gKLHiQHT+zNzh2hRGjBhevoB0=");
  const std::string proof =
      "pyramid-referee/tlog-consistency@v1\nold 6\nnew 6\n";
  const CheckpointKey pinned{"", key.public_key()};
  EXPECT_TRUE(CheckConsistency(a, a, proof, pinned).ok());
  const absl::Status fork = CheckConsistency(a, b, proof, pinned);
  EXPECT_TRUE(absl::IsInvalidArgument(fork)) << fork;
  EXPECT_EQ(std::string(fork.message()),
            "two checkpoints of size 6 with different roots: the key signed "
            "two trees of one size (a fork)");

  std::string no_extra = Proof();
  const size_t extra = no_extra.find("extra ");
  ASSERT_NE(extra, std::string::npos);
  no_extra.erase(extra, no_extra.find('\n', extra) + 1 - extra);
  absl::StatusOr<Inclusion> inclusion =
      CheckInclusion(Log(), kMatch, no_extra, VerifierKey());
  ASSERT_FALSE(inclusion.ok());
  EXPECT_EQ(std::string(inclusion.status().message()),
            absl::StrCat("the proof names no match (it has no extra line, "
                         "which names the match whose log it proves); the log "
                         "is match ",
                         kMatch));
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
            "f7fabef3e6eb30a292073ec68a926bb524f32dab3af525f446909a5ec775e258"
            " as leaves 3..5: tournament \"example\", run "
            "\"434764977a9d6e1d\", game rock_paper_pyramid");
}

// The runner writes tournament.txt before it plays, and only it shows
// that schedule.json lists every match: a directory without it (the
// example's, which passed with a note, as did a round robin whose last
// matches an auditor cut with tournament.txt and results.json) is refused,
// naming the file and why it is needed. The example's own is the
// tournament that made its schedule (AsPublishedItChecksOut).
TEST_F(TournamentDirectoryTest, ADirectoryWithoutTournamentTxtIsRefused) {
  ASSERT_TRUE(fs::remove(dir_ + "/tournament.txt"));
  const TournamentVerdict v = Check();
  EXPECT_THAT(v.problems, ElementsAre(kNoTournamentTxt));
  EXPECT_EQ(v.matches, 3u);
  EXPECT_THAT(v.summary, StartsWith("1 problem"));
}

// A log the caller knows (KnownLogs: the tournament runner's verdicts on
// the files it read, unchanged since) is taken as known and not read; a
// log it does not know is read.
TEST_F(TournamentDirectoryTest, AKnownLogIsNotReadAgain) {
  const std::string path =
      absl::StrCat(dir_, "/logs/rock_paper_pyramid-", kMatch, ".pyrlog");
  VerifyOptions options;
  options.pinned_key = RefereeKey().public_key;
  auto log = std::make_shared<KnownLog>();
  log->verdict = VerifyLog(Log(), options);
  log->sha256 = Sha256(Log());
  std::vector<std::string> asked;
  std::mutex asked_mutex;  // `known` is called from several threads.
  const KnownLogs known =
      [&](const std::string& file,
          const std::string& key) -> std::shared_ptr<const KnownLog> {
    EXPECT_EQ(key, RefereeKey().public_key);
    std::lock_guard<std::mutex> lock(asked_mutex);
    asked.push_back(fs::path(file).filename().string());
    return file == path ? log : nullptr;
  };
  // Damaged after the caller read it: what the caller knows stands.
  Write(absl::StrCat("logs/rock_paper_pyramid-", kMatch, ".pyrlog"), "x");
  TournamentVerdict v =
      CheckTournamentDirectory(dir_, CheckpointKey{}, nullptr, known);
  EXPECT_THAT(v.problems, IsEmpty());
  EXPECT_EQ(v.matches, 3u);
  EXPECT_THAT(asked,
              Contains(absl::StrCat("rock_paper_pyramid-", kMatch, ".pyrlog")));
  EXPECT_EQ(asked.size(), 3u);  // Every log of logs/.
  // Read, the damage is found.
  v = CheckTournamentDirectory(dir_, CheckpointKey{}, nullptr,
                               [](const std::string&, const std::string&) {
                                 return std::shared_ptr<const KnownLog>();
                               });
  EXPECT_THAT(v.problems, Contains(HasSubstr("NOT GENUINE")));
  EXPECT_EQ(v.matches, 2u);
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
  // The same key in the directory's referee.pub, no key given: it was not
  // pinned, and the problem says whose it is (it said "the pinned referee
  // key" while the summary said the directory's own file; an auditor's
  // finding, L2).
  Write("referee.pub", ToHex(stranger) + "\n");
  v = Check();
  ASSERT_EQ(v.problems.size(), 1u);
  EXPECT_THAT(v.problems[0],
              StartsWith(absl::StrCat("checkpoint: not signed by the referee "
                                      "key ",
                                      ToHex(stranger),
                                      " of the directory's referee.pub (not "
                                      "pinned); the checkpoint names origin")));
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

// A proof or checkpoint far larger than any is refused unread (a hostile
// directory cannot make the check hold gigabytes per file), named.
TEST_F(TournamentDirectoryTest, AnOversizedProofOrCheckpointIsRefusedUnread) {
  const std::string name = absl::StrCat("rock_paper_pyramid-", kMatch);
  const std::string proof = absl::StrCat("proofs/", name, ".tlog-proof");
  std::ofstream(dir_ + "/" + proof, std::ios::app) << std::string(2 << 20, 'A');
  TournamentVerdict v = Check();
  EXPECT_THAT(v.problems, Contains(AllOf(HasSubstr(proof),
                                         HasSubstr("1048576 bytes read"))));
  std::ofstream(dir_ + "/checkpoint", std::ios::app)
      << std::string(2 << 20, 'A');
  v = Check();
  EXPECT_THAT(v.problems, Contains(AllOf(StartsWith("checkpoint"),
                                         HasSubstr("1048576 bytes read"))));
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

// A proof's file name, the log's with another extension, is anyone's: a
// problem names it escaped (printable_text.h), as it names the log, so
// that the verdict's problems (its JSON's too) hold no terminal escape.
TEST_F(TournamentDirectoryTest, AProofsNameIsEscapedInItsProblem) {
  const std::string name = absl::StrCat("rock_paper_pyramid-", kMatch);
  const std::string odd = name + "\x1b[2J";
  fs::rename(dir_ + "/logs/" + name + ".pyrlog",
             dir_ + "/logs/" + odd + ".pyrlog");
  fs::rename(dir_ + "/proofs/" + name + ".tlog-proof",
             dir_ + "/proofs/" + odd + ".tlog-proof");
  // Another match's proof: the log's inclusion does not check.
  Write("proofs/" + odd + ".tlog-proof",
        Read("example/proofs/"
             "rock_paper_pyramid-1a08adf5fc16925d26ec56c7ef0369db.tlog-proof"));
  const TournamentVerdict v = Check();
  EXPECT_EQ(v.matches, 2u);
  EXPECT_THAT(v.problems, Contains(StartsWith(absl::StrCat(
                              "proofs/", name, "\\x1B[2J.tlog-proof: "))));
  EXPECT_THAT(v.problems, Not(Contains(HasSubstr("\x1b"))));
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

// A schedule.json that does not parse says what is wrong and where, on
// one line, not only that it is.
TEST_F(TournamentDirectoryTest, AScheduleThatDoesNotParseSaysWhy) {
  const std::string schedule = Read("example/schedule.json");
  Write("schedule.json",
        absl::StrReplaceAll(schedule, {{"\"game\":", "\"gmae\":"}}));
  EXPECT_THAT(Check().problems,
              ElementsAre("schedule.json: gmae is not a field of "
                          "pyramid.referee.v1.TournamentSchedule (at line 3, "
                          "column 2)"));
  Write("schedule.json", schedule.substr(0, schedule.size() / 2));
  EXPECT_THAT(Check().problems,
              ElementsAre(AllOf(StartsWith("schedule.json: not strict JSON "
                                           "(RFC 8259) at line "),
                                HasSubstr("the text ends early"),
                                Not(HasSubstr("\n")))));
}

// A schedule of more values than a real one holds is refused before
// protobuf's parser reads it: "{}," 22 million times in 64 MiB cost that
// parser 1.9 GB. The refusal names the limit.
TEST_F(TournamentDirectoryTest, AScheduleOfTooManyValuesIsNotParsed) {
  const std::string head =
      R"({"name": "example", "game": "rock_paper_pyramid", )"
      R"("run_id": "434764977a9d6e1d", "matches": [)";
  // The top object, its three strings and the array: five values.
  auto empties = [&](uint64_t n) {
    std::string text = head;
    text.reserve(head.size() + 3 * n + 2);
    for (uint64_t i = 0; i < n; ++i) text += i == 0 ? "{}" : ",{}";
    return text + "]}";
  };
  Write("schedule.json", empties(kMaxScheduleValues - 5 + 1));
  EXPECT_THAT(Check().problems,
              ElementsAre(StartsWith(
                  absl::StrCat("schedule.json: more than ", kMaxScheduleValues,
                               " values (at line 1, column "))));
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

// protobuf's JSON parser reads a schedule.json that jq and Python read
// otherwise, or not at all: a key twice (it joins a list given twice and
// keeps a field's last value), a field under both its names, unquoted keys,
// single quotes, a trailing comma. Each is refused, naming the key or place
// (each passed as 3 matches before).
TEST_F(TournamentDirectoryTest,
       AScheduleOtherJsonReadersReadOtherwiseIsRefused) {
  const std::string schedule = Read("example/schedule.json");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {absl::StrReplaceAll(schedule,
                           {{"\"name\": \"example\",",
                             "\"name\": \"other\", \"name\": \"example\","}}),
       "schedule.json: the key \"name\" appears twice in one object (again "
       "at line 2, column 19)"},
      {absl::StrReplaceAll(schedule, {{"\"run_id\":",
                                       "\"runId\": \"0\", "
                                       "\"run_id\":"}}),
       "schedule.json: the keys \"runId\" and \"run_id\" name one field in "
       "one object"},
      {absl::StrReplaceAll(schedule,
                           {{"\"label\": \"example/434764977a9d6e1d/1\",",
                             "\"label\": \"example/434764977a9d6e1d/1\", "
                             "\"seats\": [\"b1\"],"}}),
       "schedule.json: the key \"seats\" appears twice in one object"},
      {absl::StrReplaceAll(schedule, {{"\"name\":", "name:"}}),
       "schedule.json: not strict JSON (RFC 8259) at line 2, column 2: want "
       "a key"},
      {absl::StrReplaceAll(
           schedule, {{"\"b3\"\n   ]\n  }\n ]", "\"b3\"\n   ],\n  },\n ]"}}),
       "schedule.json: not strict JSON (RFC 8259) at line 31, column 3: a "
       "comma before '}'"},
  };
  for (const auto& [text, why] : cases) {
    ASSERT_NE(text, schedule) << why;
    Write("schedule.json", text);
    const TournamentVerdict v = Check();
    EXPECT_THAT(v.problems, ElementsAre(StartsWith(why)));
    EXPECT_EQ(v.matches, 0u);
  }
}

// protobuf's JSON parser reads shapes that are not a TournamentSchedule's,
// which jq and Python read otherwise: a list of lists (it flattens them),
// null in a list (it drops it), a lone object for a list (a list of one),
// "false" for a bool (jq's select() takes it as true), a fraction for an
// integer. Each is refused, naming its path (each but the lone object,
// which has 1 match, passed as 3 matches before).
TEST_F(TournamentDirectoryTest, AScheduleOfAnotherShapeIsRefused) {
  const std::string schedule = Read("example/schedule.json");
  const std::string first = "\"matches\": [\n  {\n   \"label\"";
  ASSERT_THAT(schedule, HasSubstr(first));
  const std::string last = "\"b3\"\n   ]\n  }\n ]";
  ASSERT_THAT(schedule, HasSubstr(last));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {absl::StrReplaceAll(schedule, {{"\"matches\": [", "\"matches\": [["},
                                      {last, absl::StrCat(last, "]")}}),
       "schedule.json: matches[0] is an array, not an object (at line 5"},
      {absl::StrReplaceAll(schedule,
                           {{"\"matches\": [", "\"matches\": [null, "}}),
       "schedule.json: matches[0] is null, not an object"},
      {R"({"name": "example", "game": "rock_paper_pyramid",
           "run_id": "434764977a9d6e1d", "matches":
           {"label": "example/434764977a9d6e1d/0", "seats": ["b3", "b1", "b2"]}})",
       "schedule.json: matches is an object, not an array"},
      {absl::StrReplaceAll(schedule,
                           {{"\"label\": \"example/434764977a9d6e1d/2\"",
                             "\"skipped\": \"false\", \"label\": "
                             "\"example/434764977a9d6e1d/2\""}}),
       "schedule.json: matches[2].skipped is a string (\"false\"), not true "
       "or false"},
      {absl::StrReplaceAll(schedule, {{"\"seats\": [", "\"seats\": [["},
                                      {"\"\n   ]\n  }", "\"\n   ]]\n  }"}}),
       "schedule.json: matches[0].seats[0] is an array, not a string"},
      {absl::StrReplaceAll(schedule, {{"\"index\": 1,", "\"index\": 1.0,"}}),
       "schedule.json: matches[1].index is a number with a fraction or "
       "exponent, not an integer"},
  };
  for (const auto& [text, why] : cases) {
    ASSERT_NE(text, schedule) << why;
    Write("schedule.json", text);
    const TournamentVerdict v = Check();
    EXPECT_THAT(v.problems, ElementsAre(StartsWith(why))) << text;
    EXPECT_EQ(v.matches, 0u);
  }
}

// A schedule.json over kMaxScheduleBytes is refused unread (a sparse file
// of twice that, as a hostile directory could hold a far larger one).
TEST_F(TournamentDirectoryTest, AnOversizedScheduleIsRefusedUnread) {
  fs::resize_file(dir_ + "/schedule.json", 2 * kMaxScheduleBytes);
  const TournamentVerdict v = Check();
  EXPECT_THAT(v.problems,
              ElementsAre(AllOf(
                  StartsWith("schedule.json: cannot read"),
                  HasSubstr(absl::StrCat(kMaxScheduleBytes, " bytes read")))));
}

// A schedule of more bad entries than kMaxListedProblems lists that many
// problems and a line counting the rest; the summary counts them all.
TEST_F(TournamentDirectoryTest, ProblemsPastTheLimitAreCountedNotListed) {
  std::string schedule = Read("example/schedule.json");
  const std::string last = "\"b3\"\n   ]\n  }";
  ASSERT_THAT(schedule, HasSubstr(last));
  std::string more;
  // Each entry is numbered 0 and labelled "": two problems of its own, and
  // a label listed twice after the first.
  for (size_t i = 0; i < kMaxListedProblems; ++i) absl::StrAppend(&more, ",{}");
  schedule = absl::StrReplaceAll(schedule, {{last, last + more}});
  Write("schedule.json", schedule);
  const TournamentVerdict v = Check();
  EXPECT_GT(v.problem_count, kMaxListedProblems + 1000);
  ASSERT_EQ(v.problems.size(), kMaxListedProblems + 1);
  EXPECT_EQ(v.problems.back(),
            absl::StrCat("and ", v.problem_count - kMaxListedProblems,
                         " more problems (the first ", kMaxListedProblems,
                         " are listed)"));
  EXPECT_EQ(v.summary, absl::StrCat(v.problem_count, " problems"));
}

// Every entry of logs/ that is not a log the check reads (its name does
// not end in .pyrlog) is named, as a stray proof is.
TEST_F(TournamentDirectoryTest, AStrayEntryInLogsIsNamed) {
  const std::string name = absl::StrCat("rock_paper_pyramid-", kMatch);
  Write(absl::StrCat("logs/", name, ".pyrlog.orig"), Log());
  Write("logs/other.PYRLOG", Log());
  fs::create_directory(dir_ + "/logs/sub");
  Write(absl::StrCat("logs/sub/", name, ".pyrlog"), Log());
  const TournamentVerdict v = Check();
  const std::string why =
      " not named MATCH.pyrlog, so not checked as a log: logs/ holds the "
      "logs alone";
  EXPECT_THAT(
      v.problems,
      ElementsAre(absl::StrCat("logs/other.PYRLOG: a file", why),
                  absl::StrCat("logs/", name, ".pyrlog.orig: a file", why),
                  absl::StrCat("logs/sub: a directory", why)));
  EXPECT_EQ(v.matches, 3u);
}

// An auditor's roster (replay/seat_roster.h) pins every seat's key: a log
// whose header gives a seat another key or none, or names a seat the roster
// lacks, is named, and its match not counted (the example's bots b1, b2, b3
// play without keys).
TEST_F(TournamentDirectoryTest, ARosterPinsEverySeatsKey) {
  absl::StatusOr<SeatRoster> roster =
      SeatRoster::Parse("b1 none\nb2 none\nb3 none\nb4 none\n");
  ASSERT_TRUE(roster.ok());
  TournamentVerdict v =
      CheckTournamentDirectory(dir_, CheckpointKey{}, &*roster);
  EXPECT_THAT(v.problems, IsEmpty());
  EXPECT_EQ(v.matches, 3u);
  EXPECT_EQ(v.seats_matching_roster, 9u);
  EXPECT_EQ(v.summary, Check().summary);

  const std::string key(32, '\x5a');
  roster = SeatRoster::Parse(
      absl::StrCat("b1 none\nb2 ", ToHex(key), "\nb3 none\n"));
  ASSERT_TRUE(roster.ok());
  v = CheckTournamentDirectory(dir_, CheckpointKey{}, &*roster);
  // Match 1's log, b2 in seat 0; its proof does not count then.
  const std::string log =
      "logs/rock_paper_pyramid-d22052291b3f9879cd6d8236d2d75509.pyrlog";
  EXPECT_THAT(v.problems,
              Contains(absl::StrCat(log,
                                    ": NOT GENUINE: record 0: seat 0 \"b2\" "
                                    "has key none in the header; the "
                                    "roster's is ",
                                    ToHex(key))));
  EXPECT_THAT(v.problems,
              Contains("match 1 (example/434764977a9d6e1d/1) has no log that "
                       "counts: logs/rock_paper_pyramid-"
                       "d22052291b3f9879cd6d8236d2d75509.pyrlog holds its "
                       "label but does not count (its own line says why)"));
  EXPECT_EQ(v.problems.size(), 9u);  // Each log, match and proof.
  EXPECT_EQ(v.matches, 0u);

  roster = SeatRoster::Parse("b1 none\nb3 none\n");
  ASSERT_TRUE(roster.ok());
  v = CheckTournamentDirectory(dir_, CheckpointKey{}, &*roster);
  EXPECT_THAT(v.problems,
              Contains(absl::StrCat(log,
                                    ": NOT GENUINE: record 0: seat 0 \"b2\" "
                                    "(key none in the header) is not in the "
                                    "roster")));
  // The tree's leaves are counted all the same: no other problem.
  EXPECT_EQ(v.problems.size(), 9u);
}

// The example's schedule.json with match `index` marked skipped, and its
// log and proof removed (the runner writes neither for a skipped match).
class SkippedMatchTest : public TournamentDirectoryTest {
 protected:
  static std::string Label(int index) {
    return absl::StrCat("example/434764977a9d6e1d/", index);
  }
  // Removes match `index`'s log (the one whose signed header holds its
  // label) and its proof.
  void RemoveMatch(int index) const {
    for (const auto& entry : fs::directory_iterator(dir_ + "/logs")) {
      absl::StatusOr<std::string> bytes =
          ReadFileToString(entry.path().string());
      ASSERT_TRUE(bytes.ok()) << bytes.status();
      if (!absl::StrContains(*bytes, Label(index))) continue;
      fs::remove(entry.path());
      fs::remove(absl::StrCat(dir_, "/proofs/", entry.path().stem().string(),
                              ".tlog-proof"));
      return;
    }
    FAIL() << "no log of match " << index;
  }
  void Skip(std::vector<int> indexes) const {
    std::string schedule = Read("example/schedule.json");
    for (int index : indexes) {
      RemoveMatch(index);
      const std::string label =
          absl::StrCat("\"label\": \"", Label(index), "\",");
      ASSERT_TRUE(absl::StrContains(schedule, label));
      schedule = absl::StrReplaceAll(
          schedule, {{label, absl::StrCat(label, " \"skipped\": true,")}});
    }
    Write("schedule.json", schedule);
  }
  // tournament.txt, as the runner copies the tournament file there.
  void WriteTournament(const std::string& more) const {
    Write("tournament.txt",
          absl::StrCat("name: \"example\"\ngame {\n  game: "
                       "\"rock_paper_pyramid\"\n}\nseats: 3\n",
                       more));
  }
};

// Only a decided SPRT skips matches, and only those the runner never
// started, which come last (it starts them in index order): the tournament
// file the runner copied (tournament.txt) must have an SPRT, and every
// skipped match must come after the last one played. A host without the
// referee's key could otherwise drop any match by marking it skipped and
// removing its log and proof (a red-team finding: "11 matches, all
// included", exit status 0).
TEST_F(SkippedMatchTest, OnlyAnSprtSkipsAndOnlyTheLastMatches) {
  Skip({2});
  // No tournament.txt: a problem of its own, and the skipped match's.
  ASSERT_TRUE(fs::remove(dir_ + "/tournament.txt"));
  TournamentVerdict v = Check();
  EXPECT_THAT(
      v.problems,
      ElementsAre(StartsWith("the directory holds no "
                             "tournament.txt"),
                  absl::StrCat("match 2 (", Label(2),
                               ") is marked skipped, but the directory holds "
                               "no tournament.txt (the tournament file the "
                               "runner copies there) to show an SPRT, and "
                               "only an SPRT that has decided skips "
                               "matches")));
  // Another tournament's file, and one that does not parse: each a
  // problem of its own, and the skipped match's.
  Write("tournament.txt",
        "name: \"other\" game { game: \"rock_paper_pyramid\" "
        "} sprt { elo1: 10 }\n");
  const std::string other =
      "tournament.txt is another tournament's (\"other\" of "
      "rock_paper_pyramid, the schedule's \"example\" of "
      "rock_paper_pyramid)";
  EXPECT_THAT(
      Check().problems,
      ElementsAre(other, absl::StrCat("match 2 (", Label(2),
                                      ") is marked skipped, but ", other)));
  WriteTournament("sprt { elo1: 10 ");
  EXPECT_THAT(Check().problems,
              ElementsAre(StartsWith("tournament.txt, which would fix the "
                                     "schedule, is not a Tournament in text "
                                     "format: line "),
                          HasSubstr("is marked skipped, but tournament.txt, "
                                    "which would fix the schedule, is not a "
                                    "Tournament in text format: line ")));
  // An SPRT the runner does not take (3 seats; the example's file had no
  // bots: 'is not the tournament that made schedule.json' either way) does
  // not skip: the last match skipped passed so (an auditor's finding, M1).
  WriteTournament("sprt {\n  elo1: 10\n}\n");
  v = Check();
  EXPECT_THAT(v.problems,
              ElementsAre(HasSubstr("is not the tournament that made "
                                    "schedule.json: it has an SPRT, which the "
                                    "runner takes only with 2 bots, 2 seats "
                                    "and the round-robin format"),
                          absl::StrCat("match 2 (", Label(2),
                                       ") is marked skipped, but "
                                       "tournament.txt is not the tournament "
                                       "that made schedule.json (said above), "
                                       "so it does not show an SPRT, and only "
                                       "an SPRT that has decided skips "
                                       "matches")));
}

TEST_F(SkippedMatchTest, AScheduleOfNoMatchIsNamed) {
  Skip({0, 1, 2});  // No log left.
  // A schedule of no match (it passed as "0 matches, all included").
  Write("schedule.json",
        "{\"name\": \"example\", \"game\": \"rock_paper_pyramid\", "
        "\"run_id\": \"434764977a9d6e1d\"}");
  TournamentVerdict v = Check();
  // The example's tournament.txt did not make it either.
  EXPECT_THAT(v.problems,
              ElementsAre("the schedule lists no match: a "
                          "tournament plays at least one",
                          HasSubstr("is not the tournament that made "
                                    "schedule.json")));
  EXPECT_EQ(v.summary, "2 problems");
}

// The embedded referee's tree holds its tournament's logs and nothing
// else, so its checkpoint's size is the number of sealed logs the directory
// holds. The example's is a running referee's (it holds referee.pub):
// leaves 3 to 5 of 6, the rest other matches, which a note says is not
// checked. As the embedded referee's (referee.key.pub alone), 3 sealed logs
// of checkpoint 6 are missing (it passed: a red-team finding, where a
// match played again after its log was lost left checkpoint 13 over 12
// logs).
// (The example holds no results.json: a note says so.)
TEST_F(TournamentDirectoryTest, AnEmbeddedRefereesCheckpointHoldsItsLogsOnly) {
  const std::string no_results =
      "the directory holds no results.json: no standings to check";
  TournamentVerdict v = Check();
  EXPECT_THAT(v.problems, IsEmpty());
  EXPECT_THAT(v.notes,
              ElementsAre(no_results,
                          "the checkpoint holds 6 logs; logs/ holds 3 sealed "
                          "logs, 3 of them proved included in it: the "
                          "directory holds referee.pub, a "
                          "running referee's, whose tree holds other matches "
                          "too, so its size is not checked against the "
                          "directory's logs (with the embedded referee it "
                          "is)"));
  fs::rename(dir_ + "/referee.pub", dir_ + "/referee.key.pub");
  v = Check();
  EXPECT_THAT(v.problems,
              ElementsAre("the checkpoint holds 6 logs and the directory 3: 3 "
                          "sealed logs of this tournament are not in the "
                          "directory (a match played again after its log was "
                          "lost, or a log removed); the embedded referee's "
                          "tree (the directory holds referee.key.pub, no "
                          "referee.pub) holds this tournament's logs and "
                          "nothing else"));
  EXPECT_THAT(v.notes, ElementsAre(no_results));
  EXPECT_EQ(v.matches, 3u);
  // Without either key file (the key given), which referee it was is not
  // known: a note.
  fs::rename(dir_ + "/referee.key.pub", dir_ + "/moved.pub");
  v = CheckTournamentDirectory(dir_, RefereeKey());
  EXPECT_THAT(v.problems, IsEmpty());
  EXPECT_THAT(
      v.notes,
      ElementsAre(no_results,
                  HasSubstr("the directory holds neither referee.key.pub (the "
                            "embedded referee's) nor referee.pub (a running "
                            "referee's), so which referee it was is not known "
                            "and its size is not checked")));
  fs::rename(dir_ + "/moved.pub", dir_ + "/referee.key.pub");
  // A log of logs/ copied into superseded/ is the same leaf, not another.
  fs::create_directory(dir_ + "/superseded");
  fs::copy(absl::StrCat(dir_, "/logs/rock_paper_pyramid-", kMatch, ".pyrlog"),
           dir_ + "/superseded/copy.pyrlog");
  EXPECT_THAT(Check().problems,
              ElementsAre(StartsWith("the checkpoint holds 6 logs and the "
                                     "directory 3: 3 sealed logs")));
}

// The referee's key read from the directory is said to be so (`replay
// verify-tournament` prints it and asks for --key), since a directory
// signed again with another key checks out as well; a key given is not.
TEST_F(TournamentDirectoryTest, AKeyTakenFromTheDirectoryIsSaidToBe) {
  TournamentVerdict v = Check();
  EXPECT_EQ(v.referee_key_files, "referee.pub");
  EXPECT_EQ(v.referee_key, RefereeKey().public_key);
  Write("referee.key.pub", Read("example/referee.pub"));
  EXPECT_EQ(Check().referee_key_files, "referee.key.pub and referee.pub");
  v = CheckTournamentDirectory(dir_, RefereeKey());
  EXPECT_THAT(v.problems, IsEmpty());
  EXPECT_EQ(v.referee_key_files, "");
  EXPECT_EQ(v.referee_key, RefereeKey().public_key);
  v = CheckTournamentDirectory(dir_, VerifierKey());
  EXPECT_THAT(v.problems, IsEmpty());
  EXPECT_EQ(v.referee_key_files, "");
  EXPECT_EQ(v.referee_key, RefereeKey().public_key);
}

// A real tournament's output directory with the embedded referee
// (build/bin/tournament, 3 reference bots, 3 matches): its checkpoint holds
// its 3 sealed logs. A match played again after its log was lost
// (--replay_lost_logs) leaves the checkpoint a sealed log more than the
// directory holds, which is named (it passed: a red-team finding); the lost
// log found again and set aside in superseded/ is counted, with a note that
// its label stands twice.
class EmbeddedTournamentTest : public ::testing::Test {
 protected:
  static std::string Bin() {
    const char* env = std::getenv("PYRAMID_BIN");
    return env != nullptr && *env != '\0' ? env : "build/bin";
  }
  void SetUp() override {
    ASSERT_TRUE(tmp_.ok());
    for (const char* program : {"tournament", "bot"}) {
      ASSERT_TRUE(fs::exists(Bin() + "/" + program))
          << Bin() << "/" << program << " is not built";
    }
    std::string text = absl::StrCat("name: \"e\" ", Settings(),
                                    " output_dir: \"", out_, "\"\n");
    for (int i = 1; i <= Bots(); ++i) {
      absl::StrAppend(&text, "bots { name: \"b", i, "\" command: \"", Bin(),
                      "/bot\" command: \"--quiet\" }\n");
    }
    std::ofstream(tmp_.File("t.txt")) << text;
    ASSERT_EQ(RunTournament(""), 0) << Output();
  }
  // The tournament's settings and number of bots (b1, b2, ...).
  virtual std::string Settings() const {
    return "game { game: \"rock_paper_pyramid\" } seats: 3 concurrency: 3";
  }
  virtual int Bots() const { return 3; }
  // The tournament program's exit status on t.txt, with `flags`.
  int RunTournament(const std::string& flags) const {
    const int status = std::system(
        absl::StrCat("'", Bin(), "/tournament' '", tmp_.File("t.txt"), "' ",
                     flags, " >'", tmp_.File("run.out"), "' 2>&1")
            .c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string Output() const {
    absl::StatusOr<std::string> text = ReadFileToString(tmp_.File("run.out"));
    return text.ok() ? *text : "";
  }
  TournamentVerdict Check() const {
    return CheckTournamentDirectory(out_, CheckpointKey{});
  }
  std::vector<fs::path> Logs() const {
    std::vector<fs::path> logs;
    for (const auto& entry : fs::directory_iterator(out_ + "/logs")) {
      logs.push_back(entry.path());
    }
    std::sort(logs.begin(), logs.end());
    return logs;
  }
  // Removes the schedule's last match's log and proof and, unless `skip`
  // (then marks it skipped, as a decided SPRT leaves it), its entry in
  // schedule.json; sets run_id_. Returns its label.
  std::string CutLastMatch(bool skip) { return Cut(-1, skip); }
  // Removes match `index`'s log and proof (the last match's when -1) and
  // marks it skipped (`skip`), else drops the last match's entry.
  std::string Cut(int index, bool skip) {
    referee::v1::TournamentSchedule schedule;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(
                    *ReadFileToString(out_ + "/schedule.json"), &schedule)
                    .ok());
    run_id_ = schedule.run_id();
    const int last = index < 0 ? schedule.matches_size() - 1 : index;
    const std::string label = schedule.matches(last).label();
    for (const fs::path& log : Logs()) {
      if (!absl::StrContains(*ReadFileToString(log.string()), label)) continue;
      fs::remove(log);
      fs::remove(out_ + "/proofs/" + log.stem().string() + ".tlog-proof");
    }
    if (skip) {
      schedule.mutable_matches(last)->set_skipped(true);
    } else {
      schedule.mutable_matches()->RemoveLast();
    }
    std::string json;
    google::protobuf::util::JsonPrintOptions options;
    options.preserve_proto_field_names = true;
    EXPECT_TRUE(
        google::protobuf::util::MessageToJsonString(schedule, &json, options)
            .ok());
    std::ofstream(out_ + "/schedule.json", std::ios::trunc) << json;
    return label;
  }
  TempDir tmp_{"embedded-tournament"};
  const std::string out_ = tmp_.File("out");
  std::string run_id_;
};

TEST_F(EmbeddedTournamentTest, ItsCheckpointHoldsItsSealedLogsAndNoOthers) {
  TournamentVerdict v = Check();
  EXPECT_THAT(v.problems, IsEmpty());
  EXPECT_THAT(v.notes, IsEmpty());
  EXPECT_EQ(v.matches, 3u);
  EXPECT_EQ(v.checkpoint.size, 3u);
  EXPECT_EQ(v.referee_key_files, "referee.key.pub");

  // A log lost, and its match played again with --replay_lost_logs.
  const fs::path lost = Logs()[1];
  const std::string lost_bytes = *ReadFileToString(lost.string());
  fs::remove(lost);
  ASSERT_EQ(RunTournament("--replay_lost_logs"), 1) << Output();
  const std::string problem =
      "the checkpoint holds 4 logs and the directory 3: 1 sealed log of this "
      "tournament is not in the directory (a match played again after its "
      "log was lost, or a log removed); the embedded referee's tree (the "
      "directory holds referee.key.pub, no referee.pub) holds this "
      "tournament's logs and nothing else";
  EXPECT_THAT(Output(), HasSubstr("1 problem\n" + problem + "\n"));
  v = Check();
  EXPECT_THAT(v.problems, ElementsAre(problem));
  EXPECT_EQ(v.matches, 3u);

  // The lost log found again, set aside in superseded/: counted, and said.
  fs::create_directory(out_ + "/superseded");
  std::ofstream(out_ + "/superseded/" + lost.filename().string(),
                std::ios::binary)
      << lost_bytes;
  v = Check();
  EXPECT_THAT(v.problems, IsEmpty());
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_THAT(
      v.notes[0],
      AllOf(StartsWith(absl::StrCat("superseded/", lost.filename().string(),
                                    ": a sealed log of match ")),
            HasSubstr("that the runner set aside and played again: "
                      "its label stands twice in the referee's "
                      "transparency log")));
}

// A host with a running referee's admin token (no referee key) cut the
// last match of a round robin from the schedule with its log and proof,
// removed results.json and renamed referee.key.pub to referee.pub (so the
// checkpoint's size is a note): it passed, exit 0 ("2 matches, all
// included"), tournament.txt being read only beside results.json (an
// auditor's finding, M1). tournament.txt fixes the schedule; removing it
// too passed with a note (the schedule its own word): a missing
// tournament.txt, which the runner writes before it plays, is a problem.
TEST_F(EmbeddedTournamentTest, AScheduleCutFromItsEndIsNamedWithoutResults) {
  const std::string label = CutLastMatch(/*skip=*/false);
  EXPECT_EQ(label, "e/" + run_id_ + "/2");
  fs::remove(out_ + "/results.json");
  fs::rename(out_ + "/referee.key.pub", out_ + "/referee.pub");
  TournamentVerdict v = Check();
  EXPECT_THAT(
      v.problems,
      ElementsAre(
          "tournament.txt (TOURNAMENT_FORMAT_UNSPECIFIED, 3 bots, 3 seats, 1 "
          "round, seed 0) is not the tournament that made "
          "schedule.json: it schedules 3 matches, "
          "schedule.json lists 2"));
  EXPECT_EQ(v.summary, "1 problem");
  // Without tournament.txt too, nothing shows the cut but its absence.
  fs::remove(out_ + "/tournament.txt");
  v = Check();
  EXPECT_THAT(v.problems, ElementsAre(kNoTournamentTxt));
  EXPECT_EQ(v.summary, "1 problem");
}

// The same host marked the last match skipped instead (its log and proof
// removed) and appended an SPRT to tournament.txt: it passed ("2 matches,
// all included"), though the runner takes an SPRT only with 2 bots, 2
// seats and the round-robin format, and this is 3 bots at 3 seats.
TEST_F(EmbeddedTournamentTest, AnSprtTheRunnerWouldNotTakeSkipsNothing) {
  const std::string label = CutLastMatch(/*skip=*/true);
  fs::remove(out_ + "/results.json");
  fs::rename(out_ + "/referee.key.pub", out_ + "/referee.pub");
  EXPECT_THAT(Check().problems,
              ElementsAre(absl::StrCat(
                  "match 2 (", label,
                  ") is marked skipped, but the tournament (tournament.txt) "
                  "has no SPRT, and only an SPRT that has decided skips "
                  "matches")));
  std::ofstream(out_ + "/tournament.txt", std::ios::app)
      << "sprt { elo0: 0 elo1: 10 }\n";
  const TournamentVerdict v = Check();
  EXPECT_THAT(
      v.problems,
      ElementsAre(
          "tournament.txt (TOURNAMENT_FORMAT_UNSPECIFIED, 3 bots, 3 seats, 1 "
          "round, seed 0) is "
          "not the tournament that made schedule.json: it has an SPRT, which "
          "the runner takes only with 2 bots, 2 seats and the round-robin "
          "format",
          absl::StrCat("match 2 (", label,
                       ") is marked skipped, but tournament.txt is not the "
                       "tournament that made schedule.json (said above), so "
                       "it does not show an SPRT, and only an SPRT that has "
                       "decided skips matches")));
}

// A tournament the runner takes an SPRT with (2 bots, 2 seats, round
// robin, pyramid_scheme; 4 matches, bounds no 4 results reach), its
// results.json removed
// and referee.key.pub renamed referee.pub (so that the matches cut below
// leave no size problem): the rule for skipped matches with an SPRT that
// made the schedule.
class SprtTournamentTest : public EmbeddedTournamentTest {
 protected:
  std::string Settings() const override {
    return "game { game: \"pyramid_scheme\" } seats: 2 rounds: 2 "
           "concurrency: 2 sprt { elo0: 0 elo1: 5 }";
  }
  int Bots() const override { return 2; }
  void SetUp() override {
    EmbeddedTournamentTest::SetUp();
    fs::remove(out_ + "/results.json");
    fs::rename(out_ + "/referee.key.pub", out_ + "/referee.pub");
  }
};

TEST_F(SprtTournamentTest, OnlyTheLastMatchesAreSkipped) {
  ASSERT_THAT(Check().problems, IsEmpty());
  const std::string last = Cut(3, /*skip=*/true);
  TournamentVerdict v = Check();
  EXPECT_THAT(v.problems, IsEmpty());
  EXPECT_EQ(v.matches, 3u);
  const std::string first = Cut(1, /*skip=*/true);
  v = Check();
  EXPECT_THAT(
      v.problems,
      ElementsAre(absl::StrCat(
          "match 1 (", first, ") is marked skipped, but match 2 (e/", run_id_,
          "/2), after it, was played: the runner starts matches in "
          "index order and skips only those it never started once "
          "the SPRT has decided, the schedule's last")));
  EXPECT_EQ(v.matches, 2u);
  Cut(0, /*skip=*/true);
  Cut(2, /*skip=*/true);
  EXPECT_THAT(Check().problems,
              ElementsAre("every match of the schedule is marked skipped, but "
                          "an SPRT decides only on matches played"));
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
            "swapped? The older checkpoint comes first (if it is the older, "
            "the tree shrank, which no proof can show consistent)");
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

// Two checkpoints of different logs are not comparable: a mistake in the
// command (FAILED_PRECONDITION, status 2), said plainly, not NOT
// CONSISTENT (which an auditor reads as a fork). Of two keys (one the
// pinned key's, the other another key's), whichever comes first; of one
// key and two origins. A checkpoint whose signature by the pinned key does
// not verify, or two checkpoints neither of which the pinned key signed,
// stay a verdict.
TEST(EvidenceTest, CheckpointsOfDifferentLogsAreAnInputMistakeNotAVerdict) {
  const std::string ours = Read("checkpoint-3");
  const std::string proof = Read("consistency-3-6");
  const SigningKey stranger = SigningKey::Generate();
  const std::string stranger_origin = absl::StrCat(
      "pyramid-referee/", ToHex(stranger.public_key()).substr(0, 16));
  auto sign = [](const std::string& origin, const SigningKey& key) {
    absl::StatusOr<std::string> note = tlog::SignNote(
        absl::StrCat(origin,
                     "\n6\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n"),
        origin, key);
    EXPECT_TRUE(note.ok()) << note.status();
    return note.ok() ? *note : "";
  };
  const std::string theirs = sign(stranger_origin, stranger);
  const std::string their_signer = absl::StrCat(
      stranger_origin, "+",
      absl::StrFormat(
          "%08x", tlog::Ed25519KeyId(stranger_origin, stranger.public_key())));
  const std::string our_origin = "pyramid-referee/84c5b30cb33a0e5d";
  const ConsistencyNames names{"old.ckpt", "new.ckpt", "p"};
  absl::Status status =
      CheckConsistency(ours, theirs, proof, VerifierKey(), names);
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_EQ(std::string(status.message()),
            absl::StrCat("the checkpoints are of different logs: old.ckpt is "
                         "origin \"",
                         our_origin, "\" (signed by the pinned verifier key ",
                         our_origin, "+6bddd573), new.ckpt is origin \"",
                         stranger_origin, "\" (signed by ", their_signer,
                         ", not by the pinned verifier key ", our_origin,
                         "+6bddd573); a consistency proof relates two "
                         "checkpoints of one log"));
  // The other way round, and with the referee's own key pinned.
  status = CheckConsistency(theirs, ours, proof, RefereeKey(), names);
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_EQ(
      std::string(status.message()),
      absl::StrCat("the checkpoints are of different logs: old.ckpt is "
                   "origin \"",
                   stranger_origin, "\" (signed by ", their_signer,
                   ", not by the pinned referee key ",
                   ToHex(RefereeKey().public_key), "), new.ckpt is origin \"",
                   our_origin, "\" (signed by the pinned referee key ",
                   ToHex(RefereeKey().public_key),
                   "); a consistency proof relates two checkpoints of "
                   "one log"));
  // One key, two origins.
  const std::string elsewhere = sign("example.org/other-log", stranger);
  const CheckpointKey pinned{"", stranger.public_key()};
  status = CheckConsistency(theirs, elsewhere, proof, pinned, names);
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_EQ(
      std::string(status.message()),
      absl::StrCat("the checkpoints are of different logs: old.ckpt is "
                   "origin \"",
                   stranger_origin, "\" (signed by the pinned referee key ",
                   ToHex(stranger.public_key()),
                   "), new.ckpt is origin \"example.org/other-log\" "
                   "(signed by the pinned referee key ",
                   ToHex(stranger.public_key()),
                   "); a consistency proof relates two checkpoints of "
                   "one log"));

  // Still verdicts: the pinned key's signature that does not verify (the
  // other checkpoint another key's or not), and neither checkpoint the
  // pinned key's.
  std::string forged = ours;
  const size_t root = forged.find("\n3\n") + 3;
  forged[root] = forged[root] == 'A' ? 'B' : 'A';
  for (const std::string& other : {theirs, ours}) {
    status = CheckConsistency(forged, other, proof, VerifierKey(), names);
    EXPECT_FALSE(status.ok());
    EXPECT_FALSE(absl::IsFailedPrecondition(status)) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr("does not verify"));
    status = CheckConsistency(other, forged, proof, VerifierKey(), names);
    EXPECT_FALSE(status.ok());
    EXPECT_FALSE(absl::IsFailedPrecondition(status)) << status;
  }
  status = CheckConsistency(theirs, sign(stranger_origin, stranger), proof,
                            VerifierKey(), names);
  EXPECT_FALSE(status.ok());
  EXPECT_FALSE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("old checkpoint: not signed by the pinned"));
}

// A key given as text is that key, though a file in the working directory
// bears its name and holds another (an archive of forged logs could carry
// one named after the key an auditor pins): --key and --tlog_key alike.
TEST_F(KeyArgumentTest, AKeyIsTheKeyWhateverFileBearsItsName) {
  const std::string referee_key = RefereeKey().public_key;
  const std::string pinned = ToHex(referee_key);
  const std::string vkey = VerifierKey().verifier_key;
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(tmp_.path());
  absl::Cleanup back = [&cwd] { std::filesystem::current_path(cwd); };
  std::ofstream(pinned) << ToHex(SigningKey::Generate().public_key()) << "\n";
  absl::StatusOr<std::string> key = ParseRefereeKeyArgument(pinned);
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_EQ(*key, referee_key);
  // The verifier key's origin holds a '/': its file is in a directory.
  std::filesystem::create_directories(
      std::filesystem::path(vkey).parent_path());
  std::ofstream(vkey) << "another+00000000+AAAA\n";
  ASSERT_TRUE(std::filesystem::is_regular_file(vkey));
  key = ParseVerifierKeyArgument(vkey);
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_EQ(*key, vkey);
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
