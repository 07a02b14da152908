#include "replay/match_settings.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

referee::v1::Header Header(uint32_t commit_ms,
                           referee::v1::ForfeitPolicy policy =
                               referee::v1::FORFEIT_POLICY_UNSPECIFIED) {
  referee::v1::Header header;
  header.mutable_game()->set_game("rock_paper_pyramid");
  header.mutable_clocks()->set_commit_timeout_ms(commit_ms);
  header.set_forfeit_policy(policy);
  // What is not a setting: each match's own.
  header.set_label("t/run/" + std::to_string(commit_ms));
  header.set_created_unix_ms(commit_ms * 7);
  header.set_checkpoint_interval(commit_ms % 5);
  return header;
}

TEST(MatchSettingsTest, OnlyTheGameClocksAndForfeitPolicyCount) {
  const MatchSettings a = SettingsOf(Header(1000));
  referee::v1::Header other = Header(1000);
  other.set_label("x");
  other.set_created_unix_ms(1);
  other.add_seats()->set_name("someone");
  EXPECT_EQ(SettingsOf(other).key, a.key);
  EXPECT_NE(SettingsOf(Header(999)).key, a.key);
  EXPECT_NE(
      SettingsOf(Header(1000, referee::v1::FORFEIT_POLICY_DEFAULT_ACTION)).key,
      a.key);
  EXPECT_EQ(SettingsOf(Header(1000, referee::v1::FORFEIT_POLICY_FORFEIT)).key,
            a.key);
  other = Header(1000);
  other.mutable_game()->set_game("pyramid_shambo");
  EXPECT_NE(SettingsOf(other).key, a.key);
  EXPECT_EQ(a.text,
            "game { game: \"rock_paper_pyramid\" } clocks { "
            "commit_timeout_ms: 1000 } forfeit_policy: FORFEIT_POLICY_FORFEIT");
}

TEST(MatchSettingsTest, TheLogsThatDifferFromMostAreNamed) {
  const std::vector<SettledLog> agree = {{"a.pyrlog", SettingsOf(Header(10))},
                                         {"b.pyrlog", SettingsOf(Header(10))}};
  EXPECT_THAT(SettingsProblems(agree), IsEmpty());
  EXPECT_THAT(SettingsProblems({}), IsEmpty());
  const std::vector<SettledLog> one_odd = {
      {"a.pyrlog", SettingsOf(Header(10))},
      {"b.pyrlog", SettingsOf(Header(5))},
      {"c.pyrlog", SettingsOf(Header(10))}};
  EXPECT_THAT(
      SettingsProblems(one_odd),
      ElementsAre("logs/b.pyrlog: played under other settings than 2 other "
                  "logs of the tournament (logs/a.pyrlog and others): its "
                  "header says game { game: \"rock_paper_pyramid\" } clocks { "
                  "commit_timeout_ms: 5 } forfeit_policy: "
                  "FORFEIT_POLICY_FORFEIT; theirs says game { game: "
                  "\"rock_paper_pyramid\" } clocks { commit_timeout_ms: 10 } "
                  "forfeit_policy: FORFEIT_POLICY_FORFEIT"));
  // A tie: the first log's settings are taken as the tournament's.
  const std::vector<SettledLog> tie = {{"a.pyrlog", SettingsOf(Header(10))},
                                       {"b.pyrlog", SettingsOf(Header(5))}};
  ASSERT_EQ(SettingsProblems(tie).size(), 1u);
  EXPECT_THAT(SettingsProblems(tie)[0],
              ::testing::StartsWith("logs/b.pyrlog: played under other "
                                    "settings than 1 other log of the "
                                    "tournament (logs/a.pyrlog): "));
}

}  // namespace
}  // namespace pyramid
