// The tournament's match journal (match_journal.h): what a run appends a resume
// reads back, a last line torn by a crash is ignored and cut off before the
// next append, and a damaged line before the last is refused, named.
#include "tools/tournament/match_journal.h"

#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;
using ::testing::HasSubstr;

v1::TournamentMatchResult Result(int index) {
  v1::TournamentMatchResult result;
  result.set_index(index);
  result.set_match_id("match-" + std::to_string(index));
  result.set_verdict("genuine");
  return result;
}

std::vector<uint32_t> Indices(
    const std::vector<v1::TournamentMatchResult>& entries) {
  std::vector<uint32_t> indices;
  for (const auto& entry : entries) indices.push_back(entry.index());
  return indices;
}

// Appends the results of matches 0 to n - 1 to the journal at `path`.
void AppendResults(const std::string& path, int n) {
  auto journal = MatchJournal::OpenForAppend(path);
  ASSERT_TRUE(journal.ok()) << journal.status();
  for (int i = 0; i < n; ++i) ASSERT_TRUE((*journal)->Append(Result(i)).ok());
}

TEST(MatchJournalTest, WhatIsAppendedIsReadBack) {
  const TempDir dir("journal-test");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("journal.jsonl");
  auto none = MatchJournal::Read(path);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
  ASSERT_NO_FATAL_FAILURE(AppendResults(path, 3));
  auto entries = MatchJournal::Read(path);
  ASSERT_TRUE(entries.ok()) << entries.status();
  EXPECT_EQ(Indices(*entries), (std::vector<uint32_t>{0, 1, 2}));
}

// A crash (a power loss) can leave the last line cut short. It is ignored,
// and the next run's appends do not run on from it: the run after that
// still reads the journal (it used to find the torn bytes and the next
// entry on one line, and refuse the journal as damaged).
TEST(MatchJournalTest, ATornLastLineIsCutOffBeforeTheNextAppend) {
  const TempDir dir("journal-test");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("journal.jsonl");
  ASSERT_NO_FATAL_FAILURE(AppendResults(path, 2));
  std::ofstream(path, std::ios::app) << "{\"index\": 2, \"match_id\": \"ma";
  auto torn = MatchJournal::Read(path);
  ASSERT_TRUE(torn.ok()) << torn.status();
  EXPECT_EQ(Indices(*torn), (std::vector<uint32_t>{0, 1}));
  {
    auto journal = MatchJournal::OpenForAppend(path);
    ASSERT_TRUE(journal.ok()) << journal.status();
    ASSERT_TRUE((*journal)->Append(Result(2)).ok());
  }
  auto entries = MatchJournal::Read(path);
  ASSERT_TRUE(entries.ok()) << entries.status();
  EXPECT_EQ(Indices(*entries), (std::vector<uint32_t>{0, 1, 2}));
}

TEST(MatchJournalTest, ADamagedLineBeforeTheLastIsRefusedByNumber) {
  auto entries = MatchJournal::Parse(
      "{\"index\": 0}\nnot json\n{\"index\": 2}\n", "j.jsonl");
  ASSERT_FALSE(entries.ok());
  EXPECT_EQ(entries.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(entries.status().message()),
              HasSubstr("j.jsonl line 2 is not a match result"));
}

// The journal of the bots' ends and restarts (OUTPUT/bots.jsonl) is the
// same mechanism with another message: appended and read back, a damaged
// line named as the kind of line it should be.
TEST(MatchJournalTest, AJournalOfBotEventsIsReadBack) {
  const TempDir dir("journal-test");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("bots.jsonl");
  {
    auto journal = MatchJournal::OpenForAppend(path);
    ASSERT_TRUE(journal.ok()) << journal.status();
    v1::TournamentBotEvent ended;
    ended.set_bot("flaky");
    ended.set_ended("exit status 3");
    ASSERT_TRUE((*journal)->Append(ended).ok());
    v1::TournamentBotEvent restarted;
    restarted.set_bot("flaky");
    restarted.set_restarted(true);
    ASSERT_TRUE((*journal)->Append(restarted).ok());
  }
  auto events = MatchJournal::Read<v1::TournamentBotEvent>(path, "bot event");
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].ended(), "exit status 3");
  EXPECT_FALSE((*events)[0].restarted());
  EXPECT_TRUE((*events)[1].restarted());
  auto damaged = MatchJournal::Parse<v1::TournamentBotEvent>(
      "not json\n", "bots.jsonl", "bot event");
  ASSERT_FALSE(damaged.ok());
  EXPECT_THAT(std::string(damaged.status().message()),
              HasSubstr("bots.jsonl line 1 is not a bot event"));
}

TEST(MatchJournalTest, AJournalThatCannotBeReadIsNotTakenForNone) {
  const TempDir dir("journal-test");
  ASSERT_TRUE(dir.ok());
  // A directory where the journal should be: not "no journal yet".
  auto entries = MatchJournal::Read(dir.path());
  ASSERT_FALSE(entries.ok());
}

}  // namespace
}  // namespace pyramid
