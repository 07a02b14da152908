// The auditor's roster of seat keys (replay/seat_roster.h): its format,
// every mistake in it named by line, and the judgement of a log's seats.
#include "replay/seat_roster.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace fs = std::filesystem;

// Two keys, as 64 hex digits.
std::string KeyA() { return std::string(32, '\xa1'); }
std::string KeyB() { return std::string(32, '\xb2'); }

referee::v1::Header HeaderOf(
    const std::vector<std::pair<std::string, std::string>>& seats) {
  referee::v1::Header header;
  for (const auto& [name, key] : seats) {
    referee::v1::Seat* seat = header.add_seats();
    seat->set_name(name);
    seat->set_public_key(key);
  }
  return header;
}

TEST(SeatRosterTest, NamesKeysNoneCommentsAndBlankLines) {
  const absl::StatusOr<SeatRoster> roster = SeatRoster::Parse(
      absl::StrCat("# the bots we know\n"
                   "\n",
                   "alice ", ToHex(KeyA()), "   # keygen's alice.key.pub\r\n",
                   "\tbob\t", absl::AsciiStrToUpper(ToHex(KeyB())), "\n",
                   "carol none\n", "d#e none #no key\n", "   \n"));
  ASSERT_TRUE(roster.ok()) << roster.status();
  EXPECT_EQ(roster->size(), 4u);
  EXPECT_EQ(roster->KeyOf("alice"), KeyA());
  EXPECT_EQ(roster->KeyOf("bob"), KeyB());
  EXPECT_TRUE(roster->Has("carol"));
  EXPECT_EQ(roster->KeyOf("carol"), "");
  EXPECT_TRUE(roster->Has("d#e"));
  EXPECT_FALSE(roster->Has("#the"));
}

TEST(SeatRosterTest, EachMistakeIsNamedWithItsLine) {
  const std::string key = ToHex(KeyA());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"alice\n", "line 1: want NAME KEY"},
      {"# header\nalice none extra\n", "line 2: want NAME KEY"},
      {"alice " + key + "\nbob 0x" + key + "\n", "line 2: bob: bad key \"0x"},
      {"alice " + key.substr(1) + "\n", "line 1: alice: bad key: 63 hex"},
      {"alice " + key + "00\n", "line 1: alice: bad key: 66 hex"},
      {"alice None\n", "line 1: alice: bad key \"None\""},
      {"alice none\n\nalice " + key + "\n",
       "line 3: alice is listed twice (first on line 1)"},
      {"", "names no bot"},
      {"# nothing but\n\n  # comments\n", "names no bot"},
  };
  for (const auto& [text, why] : cases) {
    const absl::StatusOr<SeatRoster> roster = SeatRoster::Parse(text);
    ASSERT_FALSE(roster.ok()) << text;
    EXPECT_TRUE(absl::IsInvalidArgument(roster.status()));
    EXPECT_THAT(std::string(roster.status().message()), StartsWith(why))
        << text;
  }
}

class SeatRosterFileTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(tmp_.ok()); }
  std::string Write(const std::string& name, const std::string& text) const {
    const std::string path = tmp_.File(name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  TempDir tmp_{"seat_roster"};
};

TEST_F(SeatRosterFileTest, AKeyFileIsReadFromTheRostersDirectory) {
  fs::create_directory(tmp_.File("keys"));
  const absl::StatusOr<SigningKey> key =
      SigningKey::FromSeed(std::string(32, '\x07'));
  ASSERT_TRUE(key.ok());
  ASSERT_TRUE(WriteKeyFiles(tmp_.File("keys/alice.key"), *key).ok());
  const std::string path =
      Write("roster", "alice keys/alice.key.pub\nbob none\n");
  absl::StatusOr<SeatRoster> roster = SeatRoster::ReadFile(path);
  ASSERT_TRUE(roster.ok()) << roster.status();
  EXPECT_EQ(roster->KeyOf("alice"), key->public_key());

  // The secret key beside its .pub is refused, naming the public one.
  roster = SeatRoster::ReadFile(Write("secret", "alice keys/alice.key\n"));
  ASSERT_FALSE(roster.ok());
  EXPECT_THAT(
      std::string(roster.status().message()),
      AllOf(StartsWith(absl::StrCat(tmp_.File("secret"), " line 1: alice: ")),
            HasSubstr("holds a secret key; give the public key"),
            HasSubstr("alice.key.pub")));
  // A path to no file, or to a directory.
  roster = SeatRoster::ReadFile(Write("missing", "alice keys/bob.key.pub\n"));
  ASSERT_FALSE(roster.ok());
  EXPECT_THAT(std::string(roster.status().message()),
              AllOf(HasSubstr("line 1: alice: bad key \"keys/bob.key.pub\""),
                    HasSubstr("no file ")));
  roster = SeatRoster::ReadFile(Write("directory", "alice keys\n"));
  ASSERT_FALSE(roster.ok());
  EXPECT_THAT(std::string(roster.status().message()),
              HasSubstr("is not a regular file"));
}

TEST_F(SeatRosterFileTest, AFileThatCannotBeReadOrIsTooLargeIsRefused) {
  absl::StatusOr<SeatRoster> roster =
      SeatRoster::ReadFile(tmp_.File("no-such-roster"));
  ASSERT_FALSE(roster.ok());
  EXPECT_THAT(std::string(roster.status().message()),
              HasSubstr("no-such-roster"));
  roster = SeatRoster::ReadFile(tmp_.path());
  ASSERT_FALSE(roster.ok());
  EXPECT_THAT(std::string(roster.status().message()),
              HasSubstr("it is a directory"));
  // Comments past 1 MiB: refused unread, however valid.
  std::string text = "alice none\n";
  text.append(SeatRoster::kMaxFileBytes, '#');
  roster = SeatRoster::ReadFile(Write("large", text));
  ASSERT_FALSE(roster.ok());
  EXPECT_THAT(std::string(roster.status().message()),
              HasSubstr(absl::StrCat(SeatRoster::kMaxFileBytes)));
}

TEST(SeatRosterTest, SaysWhichSeatDiffersWithBothKeys) {
  const absl::StatusOr<SeatRoster> roster = SeatRoster::Parse(
      absl::StrCat("alice ", ToHex(KeyA()), "\nbob none\nnot-seated none\n"));
  ASSERT_TRUE(roster.ok());
  // Every seat a bot of the roster with its key (a bot may sit out).
  EXPECT_EQ(roster->SeatsDiffer(HeaderOf({{"bob", ""}, {"alice", KeyA()}})),
            "");
  // Another key.
  EXPECT_EQ(roster->SeatsDiffer(HeaderOf({{"bob", ""}, {"alice", KeyB()}})),
            absl::StrCat("seat 1 \"alice\" has key ", ToHex(KeyB()),
                         " in the header; the roster's is ", ToHex(KeyA())));
  // Keyed against none, both ways.
  EXPECT_EQ(roster->SeatsDiffer(HeaderOf({{"alice", ""}})),
            absl::StrCat("seat 0 \"alice\" has key none in the header; the "
                         "roster's is ",
                         ToHex(KeyA())));
  EXPECT_EQ(roster->SeatsDiffer(HeaderOf({{"alice", KeyA()}, {"bob", KeyB()}})),
            absl::StrCat("seat 1 \"bob\" has key ", ToHex(KeyB()),
                         " in the header; the roster's is none"));
  // A seat the roster lacks, its name escaped.
  EXPECT_EQ(roster->SeatsDiffer(HeaderOf({{"alice", KeyA()}, {"eve\n", ""}})),
            "seat 1 \"eve\\n\" (key none in the header) is not in the roster");
}

TEST(SeatRosterTest, JudgesAVerdictWhoseHeaderIsVouchedFor) {
  const absl::StatusOr<SeatRoster> roster =
      SeatRoster::Parse(absl::StrCat("alice ", ToHex(KeyA()), "\n"));
  ASSERT_TRUE(roster.ok());
  for (const Verdict::Kind kind :
       {Verdict::Kind::kGenuine, Verdict::Kind::kUnsealedPrefix}) {
    Verdict verdict;
    verdict.kind = kind;
    verdict.header = HeaderOf({{"alice", KeyA()}});
    EXPECT_TRUE(JudgeSeats(*roster, verdict));
    EXPECT_EQ(verdict.kind, kind);
    verdict.header = HeaderOf({{"alice", KeyB()}});
    verdict.bad_record = 7;
    EXPECT_FALSE(JudgeSeats(*roster, verdict));
    EXPECT_EQ(verdict.kind, Verdict::Kind::kNotGenuine);
    EXPECT_EQ(verdict.bad_record, 0u);
    EXPECT_THAT(verdict.reason, StartsWith("seat 0 \"alice\" has key "));
  }
  // Not genuine already: left as it is.
  Verdict bad;
  bad.kind = Verdict::Kind::kNotGenuine;
  bad.bad_record = 5;
  bad.reason = "broken chain";
  EXPECT_FALSE(JudgeSeats(*roster, bad));
  EXPECT_EQ(bad.bad_record, 5u);
  EXPECT_EQ(bad.reason, "broken chain");
}

// A golden log with keyed and unkeyed seats against its own keys, as
// `replay show` prints them.
TEST(SeatRosterTest, AGoldenLogsSeatsMatchTheirKeys) {
  const absl::StatusOr<std::string> log = ReadFileToString(
      "testdata/golden/rock_paper_pyramid/"
      "signed_seed_timeout_restarts.pyrlog");
  ASSERT_TRUE(log.ok()) << log.status();
  Verdict verdict = VerifyLog(*log, VerifyOptions());
  ASSERT_EQ(verdict.kind, Verdict::Kind::kGenuine) << verdict.reason;
  const std::string roster_text =
      "golden-0 "
      "acd87e5d3be94506219b659be014d189f0eb325446121ce8687270e8481fdf42\n"
      "golden-1 none\n"
      "golden-2 "
      "af43dfbffbc9f78ca0806117cbaf08bc7102e19eadf42dd064d2ce0f65268fea\n";
  absl::StatusOr<SeatRoster> roster = SeatRoster::Parse(roster_text);
  ASSERT_TRUE(roster.ok());
  EXPECT_TRUE(JudgeSeats(*roster, verdict));
  EXPECT_EQ(verdict.kind, Verdict::Kind::kGenuine);
  // golden-1 keyed in the roster: the header gives it none.
  roster = SeatRoster::Parse(absl::StrCat(
      roster_text.substr(0, roster_text.find("golden-1")), "golden-1 ",
      ToHex(KeyA()), "\n", roster_text.substr(roster_text.find("golden-2"))));
  ASSERT_TRUE(roster.ok()) << roster.status();
  EXPECT_FALSE(JudgeSeats(*roster, verdict));
  EXPECT_EQ(verdict.reason,
            absl::StrCat("seat 1 \"golden-1\" has key none in the header; "
                         "the roster's is ",
                         ToHex(KeyA())));
}

}  // namespace
}  // namespace pyramid
