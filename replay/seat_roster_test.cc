// The auditor's roster of seat keys (replay/seat_roster.h): its format,
// every mistake in it named by line, and the judgement of a log's seats.
#include "replay/seat_roster.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/files/fifo_testing.h"
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

// Every name the referee seats can be listed: one that starts with '#' or
// '"', or holds a blank (as the referee's own "seat 0" does), in double
// quotes with C escapes, as the verifier's messages print it.
TEST(SeatRosterTest, AnyNameCanBeListedInQuotes) {
  const absl::StatusOr<SeatRoster> roster = SeatRoster::Parse(
      absl::StrCat("\"#x\" none # a name that starts with #\n", "\"seat 0\"\t",
                   ToHex(KeyA()), "\n",
                   "\"a\\\"b\\\\c\" none\n",  // a"b\c
                   "\"\\\"q\" none\n",        // "q
                   "\"eve\\n\\x00\\t\\x01z\" none\n", "\"\\xff\\\'x\" none\n",
                   "\"bob\" \"", ToHex(KeyB()), "\"\n",  // A quoted key.
                   "\"\" \"none\"\n"));                  // An empty name.
  ASSERT_TRUE(roster.ok()) << roster.status();
  EXPECT_EQ(roster->size(), 8u);
  EXPECT_TRUE(roster->Has("#x"));
  EXPECT_EQ(roster->KeyOf("seat 0"), KeyA());
  EXPECT_TRUE(roster->Has("a\"b\\c"));
  EXPECT_TRUE(roster->Has("\"q"));
  EXPECT_TRUE(roster->Has(std::string("eve\n\0\t\x01z", 8)));
  EXPECT_TRUE(roster->Has("\xff'x"));
  EXPECT_EQ(roster->KeyOf("bob"), KeyB());
  EXPECT_EQ(roster->KeyOf(""), "");
  EXPECT_EQ(roster->SeatsDiffer(HeaderOf({{"#x", ""}, {"seat 0", KeyA()}})),
            "");

  // A name as a message prints it, in its quotes, is that name.
  const std::string odd(
      "\x7f\"#\x01"
      "a\xc3\xa9 b\n\x00",
      11);
  const std::string said =
      SeatRoster::Parse("alice none\n")->SeatsDiffer(HeaderOf({{odd, ""}}));
  const size_t open = said.find('"');
  const size_t close = said.find(" (key none");
  ASSERT_NE(close, std::string::npos) << said;
  const absl::StatusOr<SeatRoster> copied = SeatRoster::Parse(
      absl::StrCat(said.substr(open, close - open), " none\n"));
  ASSERT_TRUE(copied.ok()) << copied.status() << said;
  EXPECT_TRUE(copied->Has(odd)) << said;
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
      {"\"alice none\n",
       "line 1: the quoted field at column 1 has no "
       "closing quote"},
      {"bob none\n  \"alice\\\" none\n",
       "line 2: the quoted field at column 3 has no closing quote"},
      {"\"al\\qice\" none\n", "line 1: the quoted field at column 1: "},
      {"\"al\\x100\" none\n", "line 1: the quoted field at column 1: "},
      {"\"alice\"none\n",
       "line 1: want a blank after the quoted field at column 1, not 'n'"},
      {"\"alice\" none \"x\"\n", "line 1: want NAME KEY"},
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
              HasSubstr("alice: bad key \"keys\": want 64 hex digits"));
  EXPECT_THAT(std::string(roster.status().message()),
              HasSubstr("it is a directory"));
  // A quoted path: a file name with a blank.
  ASSERT_TRUE(WriteKeyFiles(tmp_.File("keys/carol dave.key"), *key).ok());
  roster = SeatRoster::ReadFile(
      Write("blank", "\"carol\" \"keys/carol dave.key.pub\"\n"));
  ASSERT_TRUE(roster.ok()) << roster.status();
  EXPECT_EQ(roster->KeyOf("carol"), key->public_key());
}

// A key file larger than kMaxKeyFileBytes is refused unread (a sparse file
// of 300 MB was read whole), a FIFO without blocking; a secret key file
// beside a huge .pub is not read whole either.
TEST_F(SeatRosterFileTest, AKeyFileIsARegularFileOfAFewBytes) {
  const std::string big = tmp_.File("big.pub");
  ASSERT_EQ(truncate(Write("big.pub", "").c_str(), 300 << 20), 0);
  absl::StatusOr<SeatRoster> roster =
      SeatRoster::ReadFile(Write("roster", "alice big.pub\nbob none\n"));
  ASSERT_FALSE(roster.ok());
  EXPECT_EQ(std::string(roster.status().message()),
            absl::StrCat(tmp_.File("roster"), " line 1: alice: cannot read ",
                         big, ": it is ", 300 << 20, " bytes, more than ",
                         SeatRoster::kMaxKeyFileBytes, " (not read)"));
  // Hex digits and whitespace up to the bound are read.
  Write("spaced.pub",
        absl::StrCat(std::string(SeatRoster::kMaxKeyFileBytes - 65, '\n'),
                     ToHex(KeyA()), "\n"));
  roster = SeatRoster::ReadFile(Write("spaced", "alice spaced.pub\n"));
  ASSERT_TRUE(roster.ok()) << roster.status();
  EXPECT_EQ(roster->KeyOf("alice"), KeyA());
  Write("long.pub",
        absl::StrCat(std::string(SeatRoster::kMaxKeyFileBytes - 64, '\n'),
                     ToHex(KeyA()), "\n"));
  roster = SeatRoster::ReadFile(Write("long", "alice long.pub\n"));
  ASSERT_FALSE(roster.ok());
  EXPECT_THAT(std::string(roster.status().message()),
              HasSubstr(absl::StrCat("it is ", SeatRoster::kMaxKeyFileBytes + 1,
                                     " bytes, more than")));

  ASSERT_EQ(mkfifo(tmp_.File("fifo.pub").c_str(), 0600), 0);
  roster = SeatRoster::ReadFile(Write("fifo", "alice fifo.pub\n"));
  ASSERT_FALSE(roster.ok());
  EXPECT_THAT(std::string(roster.status().message()),
              HasSubstr(absl::StrCat("(cannot read ", tmp_.File("fifo.pub"),
                                     ": it is not a regular file (a FIFO or "
                                     "pipe))")));
}

// A named FIFO with no writer is refused at once (opening it waited for a
// writer forever); one with a writer, and a pipe (`<(...)`), are read. (The
// reader's bounds on a pipe are bounded_read_test's.)
TEST_F(SeatRosterFileTest, ARosterThatIsAPipeIsReadOrRefusedWithoutHanging) {
  const std::string fifo = tmp_.File("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  absl::StatusOr<SeatRoster> roster = SeatRoster::ReadFile(fifo);
  ASSERT_FALSE(roster.ok());
  EXPECT_EQ(std::string(roster.status().message()),
            absl::StrCat("cannot read ", fifo,
                         ": a FIFO or pipe with no writer and nothing in it"));

  // Its text written, its writer gone: read.
  {
    const FilledFifo filled(fifo, "alice none\n");
    ASSERT_TRUE(filled.ok());
    roster = SeatRoster::ReadFile(fifo);
    ASSERT_TRUE(roster.ok()) << roster.status();
    EXPECT_TRUE(roster->Has("alice"));
  }

  // A pipe whose writer writes later, as <(...) gives it.
  int ends[2];
  ASSERT_EQ(pipe(ends), 0);
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const std::string text = "bob none\n";
    EXPECT_EQ(write(ends[1], text.data(), text.size()),
              static_cast<ssize_t>(text.size()));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    close(ends[1]);
  });
  roster = SeatRoster::ReadFile(absl::StrCat("/dev/fd/", ends[0]));
  writer.join();
  close(ends[0]);
  ASSERT_TRUE(roster.ok()) << roster.status();
  EXPECT_TRUE(roster->Has("bob"));

  // A device is not read.
  roster = SeatRoster::ReadFile("/dev/zero");
  ASSERT_FALSE(roster.ok());
  EXPECT_EQ(std::string(roster.status().message()),
            "cannot read /dev/zero: it is not a regular file (a character "
            "device)");
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
