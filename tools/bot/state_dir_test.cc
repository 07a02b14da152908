// The reference bot's commitment records (state_dir.h): a record written is
// read back, byte for byte, and is the JSON the client kits write; the
// records the Python and the Node kit write are read; a record of another
// decision, or with a salt not of 32 bytes, is not; DropMatch removes a
// match's records and its crash's temporary files, nothing else; Newest is
// the seat's largest recorded decision; MakeStateDir makes missing parents. The
// bot restarted on a state directory: play_client_test.cc; killed and restarted
// against a real referee: tests/bot_state_test.sh.
#include "tools/bot/state_dir.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

namespace fs = std::filesystem;

constexpr char kMatch[] = "00112233445566778899aabbccddeeff";
constexpr char kOtherMatch[] = "ffeeddccbbaa99887766554433221100";

class StateDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           absl::StrCat(
               "state-dir-test-", getpid(), "-",
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    ASSERT_TRUE(MakeStateDir(dir_.string()).ok());
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::set<std::string> Files() const {
    std::set<std::string> names;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir_)) {
      names.insert(entry.path().filename().string());
    }
    return names;
  }

  void Write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
  }

  std::string Read(const std::string& name) const {
    std::ifstream in(dir_ / name);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path dir_;
};

TEST_F(StateDirTest, ARecordWrittenIsReadBack) {
  StateDir state(dir_.string());
  CommitmentRecord record;
  record.salt = std::string(32, '\xab');
  record.action = std::string("\x0a\x02\x08\x01\x00\xff", 6);
  ASSERT_TRUE(state.Save(kMatch, 2, 12345678901234ULL, record).ok());
  const std::string name = absl::StrCat(kMatch, "-2-12345678901234.json");
  EXPECT_EQ(Files(), std::set<std::string>{name});  // No temporary left.
  EXPECT_EQ(state.File(kMatch, 2, 12345678901234ULL), (dir_ / name).string());
  // The JSON the kits write and read.
  absl::StatusOr<google::protobuf::Struct> fields = ParseRecordJson(Read(name));
  ASSERT_TRUE(fields.ok()) << fields.status();
  const auto& f = fields->fields();
  EXPECT_EQ(f.size(), 5u);
  EXPECT_EQ(f.at("match_id").string_value(), kMatch);
  EXPECT_EQ(f.at("seat").number_value(), 2);  // A number, not a string.
  EXPECT_TRUE(f.at("seat").has_number_value());
  EXPECT_EQ(f.at("decision_id").number_value(), 12345678901234.0);
  EXPECT_EQ(f.at("action").string_value(), absl::Base64Escape(record.action));
  EXPECT_EQ(f.at("salt").string_value(), absl::Base64Escape(record.salt));
  // Written as JSON numbers, as the kits write them.
  EXPECT_TRUE(absl::StrContains(Read(name), "\"decision_id\": 12345678901234"))
      << Read(name);

  const std::optional<CommitmentRecord> back =
      state.Load(kMatch, 2, 12345678901234ULL);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->salt, record.salt);
  EXPECT_EQ(back->action, record.action);
  // Written again (a decision asked again), the same.
  ASSERT_TRUE(state.Save(kMatch, 2, 12345678901234ULL, record).ok());
  EXPECT_EQ(Files(), std::set<std::string>{name});
}

TEST_F(StateDirTest, TheKitsRecordsAreRead) {
  const std::string salt(32, '\x01');
  const std::string action = "\x12\x03\x0a\x01\x02";
  // As Python's json.dumps writes it, and as the Node kit does; then by
  // hand, the keys in another order, the match id in capitals, an escape.
  Write(absl::StrCat(kMatch, "-0-7.json"),
        absl::StrCat("{\"match_id\": \"", kMatch,
                     "\", \"seat\": 0, \"decision_id\": 7, \"action\": \"",
                     absl::Base64Escape(action), "\", \"salt\": \"",
                     absl::Base64Escape(salt), "\"}\n"));
  Write(absl::StrCat(kMatch, "-1-8.json"),
        absl::StrCat("\n { \"salt\":\"", absl::Base64Escape(salt),
                     "\",\"action\" : \"", absl::Base64Escape(action),
                     "\", \"decision_id\":8,\"seat\":1, \"extra\": null,"
                     "\"match_id\":\"\\u0030",
                     absl::AsciiStrToUpper(std::string(kMatch).substr(1)),
                     "\"}"));
  StateDir state(dir_.string());
  for (const auto& [seat, decision] : {std::pair{0u, 7u}, std::pair{1u, 8u}}) {
    const std::optional<CommitmentRecord> record =
        state.Load(kMatch, seat, decision);
    ASSERT_TRUE(record.has_value()) << seat;
    EXPECT_EQ(record->salt, salt);
    EXPECT_EQ(record->action, action);
  }
}

TEST_F(StateDirTest, WhatIsNotARecordOfTheDecisionIsNotRead) {
  StateDir state(dir_.string());
  const std::string salt = absl::Base64Escape(std::string(32, 'x'));
  const auto record = [&](const std::string& match, int seat, int decision,
                          const std::string& salt_text) {
    return absl::StrCat("{\"match_id\": \"", match, "\", \"seat\": ", seat,
                        ", \"decision_id\": ", decision,
                        ", \"action\": \"\", \"salt\": \"", salt_text, "\"}");
  };
  Write(absl::StrCat(kMatch, "-0-1.json"), record(kOtherMatch, 0, 1, salt));
  Write(absl::StrCat(kMatch, "-0-2.json"), record(kMatch, 1, 2, salt));
  Write(absl::StrCat(kMatch, "-0-3.json"), record(kMatch, 0, 4, salt));
  Write(absl::StrCat(kMatch, "-0-4.json"),
        record(kMatch, 0, 4, absl::Base64Escape("short")));
  Write(absl::StrCat(kMatch, "-0-5.json"), record(kMatch, 0, 5, "!!"));
  Write(absl::StrCat(kMatch, "-0-6.json"), "{\"match_id\": ");
  Write(absl::StrCat(kMatch, "-0-7.json"),
        record(kMatch, 0, 7, salt) + " trailing");
  for (int decision = 1; decision <= 8; ++decision) {
    EXPECT_FALSE(state.Load(kMatch, 0, decision).has_value()) << decision;
  }
  // A match id that is not 32 hex digits names no file.
  EXPECT_EQ(state.File("../x", 0, 1), "");
  EXPECT_FALSE(state.Save("../x", 0, 1, CommitmentRecord{}).ok());
  EXPECT_FALSE(ParseRecordJson("[1, 2]").ok());
  EXPECT_FALSE(ParseRecordJson("{\"a\": ").ok());
  EXPECT_TRUE(ParseRecordJson(" {} ").ok());
}

// A match's end removes its records and the temporary files a crash left
// of them (DIR/<match_id>-*.json, DIR/<match_id>-*.json.*.tmp, as the
// kits name them: .<random>.tmp here and in Python, .<pid>.tmp in Node),
// and nothing else: another match's, a file of the match's id that is no
// record's name, a file not the kits'.
TEST_F(StateDirTest, AMatchsEndRemovesItsRecordsAndTempFilesOnly) {
  StateDir state(dir_.string());
  const CommitmentRecord record{std::string(32, 's'), "a"};
  ASSERT_TRUE(state.Save(kMatch, 0, 1, record).ok());
  ASSERT_TRUE(state.Save(kMatch, 1, 2, record).ok());
  ASSERT_TRUE(state.Save(kOtherMatch, 0, 1, record).ok());
  Write(absl::StrCat(kMatch, "-0-3.json.Ab12Cd.tmp"), "{");  // Ours, Python's.
  Write(absl::StrCat(kMatch, "-0-4.json.4242.tmp"), "{");    // Node's.
  Write(absl::StrCat(kOtherMatch, "-0-3.json.Ab12Cd.tmp"), "{");
  const std::set<std::string> kept = {
      absl::StrCat(kOtherMatch, "-0-1.json"),
      absl::StrCat(kOtherMatch, "-0-3.json.Ab12Cd.tmp"),
      absl::StrCat(kMatch, "-notes.json"),
      absl::StrCat(kMatch, "-0-x.json"),
      absl::StrCat(kMatch, "-0-5.json.tmp"),
      absl::StrCat(kMatch, "-0-6.json.bak"),
      "notes.txt",
  };
  for (const std::string& name : kept) {
    if (!fs::exists(dir_ / name)) Write(name, "kept");
  }
  EXPECT_EQ(Files().size(), kept.size() + 4);
  state.DropMatch(kMatch);
  EXPECT_EQ(Files(), kept);
  state.DropMatch(kMatch);  // Nothing left of it: nothing said, nothing gone.
  state.DropMatch("../x");  // Names no record.
  EXPECT_EQ(Files(), kept);
}

// After a restart, the seat's newest decision is the largest with a record
// of that match and seat (by name, the match id in either case); temporary
// files and other seats' and matches' records do not count.
TEST_F(StateDirTest, NewestIsTheSeatsLargestRecordedDecision) {
  StateDir state(dir_.string());
  EXPECT_FALSE(state.Newest(kMatch, 0).has_value());
  const CommitmentRecord record{std::string(32, 's'), "a"};
  ASSERT_TRUE(state.Save(kMatch, 0, 9, record).ok());
  ASSERT_TRUE(state.Save(kMatch, 0, 12, record).ok());
  ASSERT_TRUE(state.Save(kMatch, 0, 3, record).ok());
  ASSERT_TRUE(state.Save(kMatch, 1, 50, record).ok());
  ASSERT_TRUE(state.Save(kOtherMatch, 0, 99, record).ok());
  Write(absl::StrCat(kMatch, "-0-40.json.Ab12Cd.tmp"), "{");
  Write(absl::StrCat(kMatch, "-0-41.json.bak"), "{");
  EXPECT_EQ(state.Newest(kMatch, 0), std::optional<uint64_t>(12));
  EXPECT_EQ(state.Newest(absl::AsciiStrToUpper(kMatch), 0),
            std::optional<uint64_t>(12));
  EXPECT_EQ(state.Newest(kMatch, 1), std::optional<uint64_t>(50));
  EXPECT_FALSE(state.Newest(kMatch, 2).has_value());
  EXPECT_FALSE(StateDir((dir_ / "missing").string()).Newest(kMatch, 0));
}

TEST_F(StateDirTest, MakeStateDirMakesItOrSaysWhyNot) {
  EXPECT_TRUE(MakeStateDir((dir_ / "a" / "b" / "c").string()).ok());
  EXPECT_TRUE(fs::is_directory(dir_ / "a" / "b" / "c"));
  EXPECT_TRUE(MakeStateDir((dir_ / "a" / "b" / "c").string()).ok());
  // Relative, and through "..".
  const fs::path here = fs::current_path();
  fs::current_path(dir_);
  EXPECT_TRUE(MakeStateDir("d/../e/f").ok());
  fs::current_path(here);
  EXPECT_TRUE(fs::is_directory(dir_ / "e" / "f"));
  Write("file", "");
  const absl::Status status = MakeStateDir((dir_ / "file").string());
  EXPECT_FALSE(status.ok());
}

}  // namespace
}  // namespace pyramid
